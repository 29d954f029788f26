import { eq } from 'drizzle-orm';
import type { Executor } from '../db';
import { tenants } from '../db/schema';
import { notFound } from '../lib/errors';
import { assertPlanAllows, type Plan, type PlanFeature } from './plans';

/**
 * Re-reads the tenant's plan under a share lock and checks it allows `feature`. A create that
 * depends on the plan (keys, webhooks) runs this in its transaction, so a concurrent plan change
 * (which locks the row for update) either sees the new row and suspends it, or runs after it and
 * refuses it: nothing is created active past the plan's allowance. Answers the plan read.
 */
export async function assertPlanAllowsLocked(tx: Executor, tenantId: string, feature: PlanFeature): Promise<Plan> {
  const [row] = await tx.select({ plan: tenants.plan }).from(tenants).where(eq(tenants.id, tenantId)).for('share');
  if (!row) throw notFound('tenant');
  assertPlanAllows(row.plan, feature);
  return row.plan;
}
