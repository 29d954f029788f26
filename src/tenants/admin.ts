import { and, count, desc, eq, inArray, isNull } from 'drizzle-orm';
import { changePlan, presentAdminPlanChange } from '../billing/change-plan';
import { parseUsd } from '../billing/money';
import { apiKeys, tenants, usageCounters, webhookSubscriptions } from '../db/schema';
import { notFound } from '../lib/errors';
import { listFailedDeliveries } from '../webhooks/admin';
import { cycleStart } from '../metering/cycle';
import { decodeCursor, toPage, beforeCursor } from '../lib/pagination';
import type { Services } from '../services';
import { presentTenant } from './present';
import type { ChangePlanInput } from './schema';

/** GET /api/v1/admin/tenants: every tenant, newest first. */
export async function listTenants(svc: Services, input: { limit: number; cursor?: string }) {
  const after = decodeCursor(input.cursor);
  const rows = await svc.db
    .select()
    .from(tenants)
    .where(beforeCursor(tenants.createdAt, tenants.id, after))
    .orderBy(desc(tenants.createdAt), desc(tenants.id))
    .limit(input.limit + 1);
  const ids = rows.slice(0, input.limit).map((r) => r.id);
  const [usage, disabled] = ids.length
    ? await Promise.all([cycleUsage(svc, ids), disabledWebhookCounts(svc, ids)])
    : [new Map(), new Map()];
  return toPage(rows, input.limit, (row) => ({
    ...presentTenant(row),
    executions_this_cycle: usage.get(row.id) ?? 0,
    disabled_webhooks: disabled.get(row.id) ?? 0,
  }));
}

/** How many failed deliveries the tenant detail shows. */
export const TENANT_DETAIL_FAILED_DELIVERIES = 10;

/**
 * One tenant as an operator looks into it (the dashboard's Admin tenant page; tRPC only,
 * operators only through `adminProcedure`): the tenant and its terms, this cycle's executions and
 * overage, its keys (active, of which suspended), its webhook subscriptions by status, and its
 * latest failed deliveries. Reads only.
 */
export async function getTenantDetail(svc: Services, tenantId: string) {
  const [row] = await svc.db.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  if (!row) throw notFound('tenant');
  const k = apiKeys;
  const s = webhookSubscriptions;
  const cycle = cycleStart(new Date());
  const [[usage], [keys], webhooks, failed] = await Promise.all([
    svc.db
      .select({ executions: usageCounters.executions, overage: usageCounters.overage })
      .from(usageCounters)
      .where(and(eq(usageCounters.tenantId, row.id), eq(usageCounters.cycleStart, cycle))),
    svc.db
      .select({ active: count(), suspended: count(k.suspendedAt) })
      .from(k)
      .where(and(eq(k.tenantId, row.id), isNull(k.revokedAt))),
    svc.db
      .select({ status: s.status, n: count(), suspended: count(s.suspendedAt) })
      .from(s)
      .where(eq(s.tenantId, row.id))
      .groupBy(s.status),
    listFailedDeliveries(svc, { limit: TENANT_DETAIL_FAILED_DELIVERIES, tenantId: row.id }),
  ]);
  const byStatus = (status: string) => webhooks.find((w) => w.status === status)?.n ?? 0;
  return {
    ...presentTenant(row),
    deleted_at: row.deletedAt ? row.deletedAt.toISOString() : null,
    cycle_start: cycle,
    executions_this_cycle: usage?.executions ?? 0,
    overage_this_cycle: usage?.overage ?? 0,
    keys: { active: keys?.active ?? 0, suspended: keys?.suspended ?? 0 },
    webhooks: {
      total: webhooks.reduce((sum, w) => sum + w.n, 0),
      active: byStatus('active'),
      disabled: byStatus('disabled'),
      suspended: webhooks.reduce((sum, w) => sum + w.suspended, 0),
    },
    recent_failed_deliveries: failed.data,
  };
}

/** Executions counted this cycle per tenant (the same counter the quota checks). */
async function cycleUsage(svc: Services, tenantIds: string[]): Promise<Map<string, number>> {
  const u = usageCounters;
  const rows = await svc.db
    .select({ tenantId: u.tenantId, executions: u.executions })
    .from(u)
    .where(and(inArray(u.tenantId, tenantIds), eq(u.cycleStart, cycleStart(new Date()))));
  return new Map(rows.map((r) => [r.tenantId, r.executions]));
}

async function disabledWebhookCounts(svc: Services, tenantIds: string[]): Promise<Map<string, number>> {
  const s = webhookSubscriptions;
  const rows = await svc.db
    .select({ tenantId: s.tenantId, n: count() })
    .from(s)
    .where(and(inArray(s.tenantId, tenantIds), eq(s.status, 'disabled')))
    .groupBy(s.tenantId);
  return new Map(rows.map((r) => [r.tenantId, r.n]));
}

/**
 * PUT /api/v1/admin/tenants/{tenant_id}/plan: plan and per-tenant terms (custom contracts).
 * Each of `requests_per_minute`, `executions_per_month`, `overage_unit_usd`, `monthly_fee_usd`:
 * absent keeps the tenant's value, null clears it back to the plan's. The same service as the
 * tenant's own plan change (src/billing/change-plan.ts), recorded with actor `admin`; it takes
 * effect on the next request on every instance.
 */
export async function changeTenantPlan(svc: Services, input: ChangePlanInput) {
  const usd = (value: string | number | null | undefined) => (value === undefined || value === null ? value : parseUsd(value));
  const result = await changePlan(
    svc,
    input.tenant_id,
    {
      plan: input.plan,
      requestsPerMinute: input.requests_per_minute,
      executionsPerMonth: input.executions_per_month,
      overageUnitMicroUsd: usd(input.overage_unit_usd),
      monthlyFeeMicroUsd: usd(input.monthly_fee_usd),
    },
    'admin',
  );
  return presentAdminPlanChange(result);
}
