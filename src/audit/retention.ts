import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { PLAN_NAMES, PLANS } from '../contract/plans';
import { auditLog, tenants } from '../db/schema';
import type { Services } from '../services';

const DAY_MS = 24 * 3600 * 1000;

/** Operator actions on no tenant are kept as long as the longest plan keeps a tenant's. */
export const OPERATOR_AUDIT_RETENTION_DAYS = Math.max(...PLAN_NAMES.map((p) => PLANS[p].auditRetentionDays));

/**
 * Deletes audit entries past their tenant's plan retention (`auditRetentionDays`; entries on no
 * tenant after OPERATOR_AUDIT_RETENTION_DAYS), in batches so no run holds a long lock. Idempotent
 * and safe on several instances at once: a second run finds nothing left. Returns how many it removed.
 */
export async function purgeExpiredAuditEntries(svc: Pick<Services, 'db'>, batchSize = 5_000, now = Date.now()): Promise<number> {
  const a = auditLog;
  let total = 0;
  for (const plan of PLAN_NAMES) {
    const cutoff = new Date(now - PLANS[plan].auditRetentionDays * DAY_MS);
    total += await deleteInBatches(batchSize, (limit) =>
      svc.db
        .delete(a)
        .where(
          sql`${a.id} in ${svc.db
            .select({ id: a.id })
            .from(a)
            .innerJoin(tenants, eq(tenants.id, a.tenantId))
            .where(and(eq(tenants.plan, plan), lt(a.at, cutoff)))
            .limit(limit)}`,
        )
        .returning({ id: a.id }),
    );
  }
  const operatorCutoff = new Date(now - OPERATOR_AUDIT_RETENTION_DAYS * DAY_MS);
  total += await deleteInBatches(batchSize, (limit) =>
    svc.db
      .delete(a)
      .where(
        sql`${a.id} in ${svc.db
          .select({ id: a.id })
          .from(a)
          .where(and(isNull(a.tenantId), lt(a.at, operatorCutoff)))
          .limit(limit)}`,
      )
      .returning({ id: a.id }),
  );
  return total;
}

async function deleteInBatches(batchSize: number, deleteBatch: (limit: number) => Promise<unknown[]>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await deleteBatch(batchSize);
    total += removed.length;
    if (removed.length < batchSize) return total;
  }
}
