/**
 * Deleting a tenant (docs/organizations.md, Export and deletion). The owner asks; at once every
 * key is revoked, webhook deliveries stop, workflow runs are cancelled and no member acts for the
 * tenant any more. Its data stays for the grace period (an operator may restore it), then the
 * purge job removes everything but its invoices, which the law requires keeping.
 */
import { and, eq, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Executor } from '../db';
import * as schema from '../db/schema';
import { AppError, invalidRequest, notFound } from '../lib/errors';
import { signedInMember } from '../members/manage';
import type { Services } from '../services';
import { planAllows } from '../contract/plans';

/** Days between a deletion and the purge of the tenant's data. */
export const DELETION_GRACE_DAYS = 30;

/** The owner email a deleted tenant keeps (the address is free for a new tenant at once). */
const parkedEmail = (email: string, tenantId: string) => `${email}#deleted-${tenantId}`;
const unparkedEmail = (email: string) => email.replace(/#deleted-[0-9a-f-]{36}$/, '');

/**
 * POST /api/v1/tenant/delete {confirm}: the signed-in owner deletes the tenant, `confirm` being
 * its agent name. Answers when the purge will run.
 */
export async function deleteTenant(svc: Services, principal: Principal, confirm: string) {
  const me = signedInMember(principal, 'delete a tenant');
  if (me.role !== 'owner') throw new AppError('forbidden', 'Only the owner can delete the tenant.', { reason: 'owner_only' });
  const now = new Date();
  const purgeAfter = new Date(now.getTime() + DELETION_GRACE_DAYS * 86_400_000);
  await svc.db.transaction(async (tx) => {
    const [tenant] = await tx.select().from(schema.tenants).where(eq(schema.tenants.id, principal.tenantId)).for('update');
    if (!tenant || tenant.deletedAt) throw notFound('tenant');
    if (confirm !== tenant.agentName)
      throw invalidRequest('Type the tenant’s name to confirm its deletion.', [
        { path: 'confirm', message: `Must be “${tenant.agentName}”` },
      ]);
    await markDeleted(tx, tenant, now);
  });
  await svc.keyCache.invalidate();
  return { tenant_id: principal.tenantId, deleted: true as const, purge_after: purgeAfter.toISOString() };
}

/** The deletion itself, in the caller's transaction: the tenant stops, its purge is scheduled. */
async function markDeleted(tx: Executor, tenant: schema.TenantRow, now: Date): Promise<void> {
  const purgeAfter = new Date(now.getTime() + DELETION_GRACE_DAYS * 86_400_000);
  await tx
    .update(schema.tenants)
    .set({ deletedAt: now, purgeAfter, ownerEmail: parkedEmail(tenant.ownerEmail, tenant.id), updatedAt: now })
    .where(eq(schema.tenants.id, tenant.id));
  await stopTenant(tx, tenant.id, now);
  await recordAudit(tx, tenant.id, {
    action: 'tenant.deleted',
    target: { type: 'tenant', id: tenant.id },
    changes: { agent_name: tenant.agentName, purge_after: purgeAfter.toISOString() },
  });
}

/**
 * POST /api/v1/auth/delete-account {confirm}: the signed-in user (its token's identity) deletes
 * its account, `confirm` being its email. Refused (409) while it owns a tenant with other members
 * (transfer ownership first); tenants it owns alone are deleted with it; it leaves every other
 * tenant. With the built-in provider the user, its sessions and passkeys are gone at once; with an
 * external provider only its memberships here are (its account there is the provider's).
 */
export async function deleteAccount(
  svc: Services,
  identity: { issuer: string; subject: string; email: string | null; builtin: boolean },
  confirm: string,
) {
  if (!identity.email || confirm.trim().toLowerCase() !== identity.email)
    throw invalidRequest('Type your email address to confirm the deletion of your account.', [
      { path: 'confirm', message: 'Must be your email' },
    ]);
  const now = new Date();
  const deletedTenants = await svc.db.transaction(async (tx) => {
    const memberships = await tx
      .select({ tenant: schema.tenants, role: schema.tenantMembers.role })
      .from(schema.tenantMembers)
      .innerJoin(schema.tenants, eq(schema.tenants.id, schema.tenantMembers.tenantId))
      .where(
        and(
          eq(schema.tenantMembers.issuer, identity.issuer),
          eq(schema.tenantMembers.subject, identity.subject),
          isNull(schema.tenants.deletedAt),
        ),
      )
      .for('update');
    const owned = memberships.filter((m) => m.role === 'owner').map((m) => m.tenant);
    const deleted: string[] = [];
    for (const tenant of owned) {
      const [others] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(schema.tenantMembers)
        .where(and(eq(schema.tenantMembers.tenantId, tenant.id), sql`${schema.tenantMembers.subject} <> ${identity.subject}`));
      if ((others?.n ?? 0) > 0)
        throw new AppError(
          'conflict',
          `You own ${tenant.agentName}, which has other members: transfer its ownership (or remove them) first.`,
          {
            reason: 'owns_shared_tenant',
            tenant_id: tenant.id,
          },
        );
      await markDeleted(tx, tenant, now);
      deleted.push(tenant.id);
    }
    for (const m of memberships.filter((m) => m.role !== 'owner'))
      await recordAudit(tx, m.tenant.id, {
        action: 'member.left',
        target: { type: 'member', id: identity.subject },
        changes: { email: identity.email, role: m.role, account_deleted: true },
      });
    await tx
      .delete(schema.tenantMembers)
      .where(and(eq(schema.tenantMembers.issuer, identity.issuer), eq(schema.tenantMembers.subject, identity.subject)));
    if (identity.builtin) await tx.delete(schema.authUsers).where(eq(schema.authUsers.id, identity.subject));
    return deleted;
  });
  if (deletedTenants.length > 0) await svc.keyCache.invalidate();
  return { deleted: true as const, deleted_tenants: deletedTenants };
}

/** Keys revoked, webhooks suspended (their pending deliveries are cancelled when due), runs cancelled, invitations revoked. */
async function stopTenant(tx: Executor, tenantId: string, now: Date) {
  await tx
    .update(schema.apiKeys)
    .set({ revokedAt: now, updatedAt: now, previousSecretHash: null, previousExpiresAt: null })
    .where(and(eq(schema.apiKeys.tenantId, tenantId), isNull(schema.apiKeys.revokedAt)));
  await tx
    .update(schema.webhookSubscriptions)
    .set({ suspendedAt: now, updatedAt: now })
    .where(and(eq(schema.webhookSubscriptions.tenantId, tenantId), isNull(schema.webhookSubscriptions.suspendedAt)));
  const cancelled = await tx
    .update(schema.workflowRuns)
    .set({ status: 'cancelled', finishedAt: now, updatedAt: now })
    .where(and(eq(schema.workflowRuns.tenantId, tenantId), inArray(schema.workflowRuns.status, ['queued', 'running'])))
    .returning({ id: schema.workflowRuns.id });
  if (cancelled.length > 0)
    await tx
      .update(schema.workflowRunSteps)
      .set({ status: 'cancelled', finishedAt: now })
      .where(
        and(
          inArray(
            schema.workflowRunSteps.runId,
            cancelled.map((r) => r.id),
          ),
          eq(schema.workflowRunSteps.status, 'pending'),
        ),
      );
  await tx
    .update(schema.memberInvitations)
    .set({ revokedAt: now, updatedAt: now })
    .where(
      and(
        eq(schema.memberInvitations.tenantId, tenantId),
        isNull(schema.memberInvitations.acceptedAt),
        isNull(schema.memberInvitations.revokedAt),
      ),
    );
}

/**
 * POST /api/v1/admin/tenants/{id}/restore (operator): a deleted tenant not yet purged comes back,
 * its members with it. Its keys stay revoked (the owner creates new ones) and its webhooks resume.
 * Its owner email comes back unless another tenant took it meanwhile.
 */
export async function restoreTenant(svc: Services, tenantId: string) {
  return svc.db.transaction(async (tx) => {
    const [tenant] = await tx.select().from(schema.tenants).where(eq(schema.tenants.id, tenantId)).for('update');
    if (!tenant) throw notFound('tenant');
    if (!tenant.deletedAt || tenant.purgedAt)
      throw new AppError('conflict', tenant.purgedAt ? 'This tenant was purged: it cannot be restored.' : 'This tenant is not deleted.');
    const email = unparkedEmail(tenant.ownerEmail);
    const [taken] = await tx
      .select({ id: schema.tenants.id })
      .from(schema.tenants)
      .where(sql`lower(${schema.tenants.ownerEmail}) = ${email.toLowerCase()}`)
      .limit(1);
    const now = new Date();
    await tx
      .update(schema.tenants)
      .set({ deletedAt: null, purgeAfter: null, ownerEmail: taken ? tenant.ownerEmail : email, updatedAt: now })
      .where(eq(schema.tenants.id, tenantId));
    if (planAllows(tenant.plan, 'webhooks'))
      await tx
        .update(schema.webhookSubscriptions)
        .set({ suspendedAt: null, updatedAt: now })
        .where(and(eq(schema.webhookSubscriptions.tenantId, tenantId), isNotNull(schema.webhookSubscriptions.suspendedAt)));
    await recordAudit(tx, tenantId, { action: 'tenant.restored', target: { type: 'tenant', id: tenantId }, changes: {} });
    return { tenant_id: tenantId, restored: true as const, owner_email_restored: !taken };
  });
}

/**
 * Tables purged with a tenant, children before parents. Invoices stay (and the tenant row,
 * anonymised, which they belong to); so do modules it published, withdrawn from the catalog.
 */
const PURGED = [
  schema.workflowRunSteps,
  schema.workflowRuns,
  schema.workflows,
  schema.webhookDeliveries,
  schema.webhookSubscriptions,
  schema.events,
  schema.executions,
  schema.memoryEntries,
  schema.idempotencyKeys,
  schema.keyRefusals,
  schema.keyUsageCounters,
  schema.apiKeys,
  schema.installations,
  schema.usageCounters,
  schema.requestCounts,
  schema.planChanges,
  schema.trustFeedback,
  schema.memberInvitations,
  schema.tenantMembers,
  schema.auditLog,
] as const;

/** Purges one deleted tenant whose grace period is over; false when there was none to purge. */
async function purgeOne(svc: Services, tenantId: string): Promise<boolean> {
  return svc.db.transaction(async (tx) => {
    const [tenant] = await tx
      .select()
      .from(schema.tenants)
      .where(and(eq(schema.tenants.id, tenantId), isNotNull(schema.tenants.deletedAt), isNull(schema.tenants.purgedAt)))
      .for('update');
    if (!tenant || !tenant.purgeAfter || tenant.purgeAfter.getTime() > Date.now()) return false;
    for (const table of PURGED) await tx.delete(table).where(eq(table.tenantId, tenantId));
    await tx.update(schema.modules).set({ visibility: 'private', updatedAt: new Date() }).where(eq(schema.modules.ownerTenantId, tenantId));
    await tx
      .update(schema.tenants)
      .set({ purgedAt: new Date(), agentName: 'deleted tenant', ownerEmail: `deleted-${tenantId}@invalid`, updatedAt: new Date() })
      .where(eq(schema.tenants.id, tenantId));
    return true;
  });
}

/** The purge job: every deleted tenant past its grace period, one transaction each. Answers how many. */
export async function purgeDeletedTenants(svc: Services, limit = 50): Promise<number> {
  const due = await svc.db
    .select({ id: schema.tenants.id })
    .from(schema.tenants)
    .where(and(isNotNull(schema.tenants.deletedAt), isNull(schema.tenants.purgedAt), lt(schema.tenants.purgeAfter, new Date())))
    .limit(limit);
  let purged = 0;
  for (const { id } of due) if (await purgeOne(svc, id)) purged++;
  return purged;
}
