import { and, count, desc, eq, inArray } from 'drizzle-orm';
import { changePlan, presentAdminPlanChange } from '../billing/change-plan';
import { parseUsd } from '../billing/money';
import { tenants, usageCounters, webhookSubscriptions } from '../db/schema';
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
