import { desc } from 'drizzle-orm';
import { changePlan, presentAdminPlanChange } from '../billing/change-plan';
import { parseUsd } from '../billing/money';
import { tenants } from '../db/schema';
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
  return toPage(rows, input.limit, presentTenant);
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
