import { desc, eq } from 'drizzle-orm';
import { tenants } from '../db/schema';
import { decodeCursor, toPage, beforeCursor } from '../lib/pagination';
import { notFound } from '../lib/errors';
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
 * PUT /api/v1/admin/tenants/{tenant_id}/plan. `requests_per_minute` overrides the plan's request
 * limit (null clears it; absent keeps it). Takes effect on the next request on every instance.
 */
export async function changeTenantPlan(svc: Services, input: ChangePlanInput) {
  const [row] = await svc.db
    .update(tenants)
    .set({
      plan: input.plan,
      ...(input.requests_per_minute !== undefined ? { requestsPerMinute: input.requests_per_minute } : {}),
      updatedAt: new Date(),
    })
    .where(eq(tenants.id, input.tenant_id))
    .returning();
  if (!row) throw notFound('tenant');
  await svc.keyCache.invalidate();
  return presentTenant(row);
}
