/**
 * GET /api/v1/tenant/export: the tenant's data as one JSON document (docs/organizations.md,
 * Export and deletion). Secrets never appear: keys and webhooks are described, not their secrets
 * or their custom headers' values. The longest histories are capped (newest first), and each
 * capped section says so with `truncated`.
 */
import { and, count, desc, eq } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import * as s from '../db/schema';
import { AppError } from '../lib/errors';
import type { Services } from '../services';

/** Rows per capped section (newest first). */
export const EXPORT_CAPS = { executions: 50_000, memory: 100_000, runs: 10_000, audit: 10_000, events: 10_000 } as const;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The owner (signed in) or a `*` key. */
function assertMayExport(principal: Principal): void {
  const allowed = principal.member ? principal.member.role === 'owner' : principal.scopes.includes('*');
  if (!allowed) throw new AppError('forbidden', 'Only the owner (or a `*` key) exports the tenant’s data.', { reason: 'owner_only' });
}

function capped<T>(rows: T[], cap: number) {
  return { truncated: rows.length > cap, data: rows.slice(0, cap) };
}

export async function exportTenant(svc: Services, principal: Principal) {
  assertMayExport(principal);
  const tenantId = principal.tenantId;
  const db = svc.db;
  const [tenant] = await db.select().from(s.tenants).where(eq(s.tenants.id, tenantId));
  const [members, keys, webhooks, deliveries, executions, memory, workflows, runs, invoices, audit] = await Promise.all([
    db.select().from(s.tenantMembers).where(eq(s.tenantMembers.tenantId, tenantId)),
    db.select().from(s.apiKeys).where(eq(s.apiKeys.tenantId, tenantId)).orderBy(desc(s.apiKeys.createdAt)),
    db.select().from(s.webhookSubscriptions).where(eq(s.webhookSubscriptions.tenantId, tenantId)),
    db
      .select({ webhookId: s.webhookDeliveries.subscriptionId, status: s.webhookDeliveries.status, n: count() })
      .from(s.webhookDeliveries)
      .where(eq(s.webhookDeliveries.tenantId, tenantId))
      .groupBy(s.webhookDeliveries.subscriptionId, s.webhookDeliveries.status),
    db
      .select()
      .from(s.executions)
      .where(eq(s.executions.tenantId, tenantId))
      .orderBy(desc(s.executions.createdAt))
      .limit(EXPORT_CAPS.executions + 1),
    db
      .select()
      .from(s.memoryEntries)
      .where(eq(s.memoryEntries.tenantId, tenantId))
      .orderBy(desc(s.memoryEntries.updatedAt))
      .limit(EXPORT_CAPS.memory + 1),
    db.select().from(s.workflows).where(eq(s.workflows.tenantId, tenantId)),
    db
      .select()
      .from(s.workflowRuns)
      .where(eq(s.workflowRuns.tenantId, tenantId))
      .orderBy(desc(s.workflowRuns.createdAt))
      .limit(EXPORT_CAPS.runs + 1),
    db.select().from(s.invoices).where(eq(s.invoices.tenantId, tenantId)).orderBy(desc(s.invoices.number)),
    db
      .select()
      .from(s.auditLog)
      .where(and(eq(s.auditLog.tenantId, tenantId)))
      .orderBy(desc(s.auditLog.at))
      .limit(EXPORT_CAPS.audit + 1),
  ]);
  await recordAudit(db, tenantId, { action: 'tenant.exported', target: { type: 'tenant', id: tenantId }, changes: {} });
  return {
    exported_at: new Date().toISOString(),
    format: 'amp-tenant-export/1' as const,
    tenant: {
      id: tenant!.id,
      agent_name: tenant!.agentName,
      owner_email: tenant!.ownerEmail,
      plan: tenant!.plan,
      created_at: iso(tenant!.createdAt),
    },
    members: members.map((m) => ({ user_id: m.subject, email: m.email, role: m.role, joined_at: iso(m.createdAt) })),
    keys: keys.map((k) => ({
      key_id: k.id,
      name: k.name,
      prefix: k.prefix,
      scopes: k.scopes,
      policy: k.policy ?? null,
      created_at: iso(k.createdAt),
      revoked_at: iso(k.revokedAt),
    })),
    webhooks: webhooks.map((w) => ({
      id: w.id,
      kind: w.kind,
      url: w.url,
      events: w.events,
      filter: w.filter,
      header_names: Object.keys(w.headers),
      status: w.status,
      created_at: iso(w.createdAt),
      deliveries: Object.fromEntries(deliveries.filter((d) => d.webhookId === w.id).map((d) => [d.status, d.n])),
    })),
    executions: capped(
      executions.map((e) => ({
        execution_id: e.id,
        module: e.module,
        action: e.action,
        status: e.status,
        error: e.errorCode ? { code: e.errorCode, message: e.errorMessage } : null,
        output: e.output ?? null,
        latency_ms: e.latencyMs,
        key_id: e.keyId,
        source: e.source,
        created_at: iso(e.createdAt),
        finished_at: iso(e.finishedAt),
      })),
      EXPORT_CAPS.executions,
    ),
    memory: capped(
      memory.map((m) => ({
        agent_id: m.agentId,
        key: m.key,
        value: m.value,
        tags: m.tags,
        expires_at: iso(m.expiresAt),
        updated_at: iso(m.updatedAt),
      })),
      EXPORT_CAPS.memory,
    ),
    workflows: workflows.map((w) => ({ id: w.id, name: w.name, description: w.description, version: w.version, steps: w.steps })),
    workflow_runs: capped(
      runs.map((r) => ({
        run_id: r.id,
        workflow_id: r.workflowId,
        status: r.status,
        created_at: iso(r.createdAt),
        finished_at: iso(r.finishedAt),
      })),
      EXPORT_CAPS.runs,
    ),
    invoices: invoices.map((i) => ({
      id: i.id,
      number: i.number,
      cycle_start: i.cycleStart,
      status: i.status,
      total_micro_usd: i.totalMicroUsd,
      created_at: iso(i.createdAt),
    })),
    audit_log: capped(
      audit.map((a) => ({
        id: a.id,
        at: iso(a.at),
        actor: { type: a.actorType, id: a.actorId, email: a.actorEmail },
        action: a.action,
        target: { type: a.targetType, id: a.targetId },
        changes: a.changes,
      })),
      EXPORT_CAPS.audit,
    ),
  };
}
