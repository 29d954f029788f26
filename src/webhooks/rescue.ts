import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { webhookDeliveries } from '../db/schema';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';

/** A pending delivery this far past its attempt time has lost its job. */
export const STALLED_AFTER_MINUTES = 10;

/**
 * Backstop for deliveries whose attempt job is gone (pg-boss gave up on it after repeated errors
 * of our own, e.g. the database was down for long). Schedules their next attempt again now.
 * At-least-once: should the old job still run, the attempt guard records only one of the two.
 */
export async function rescueStalledDeliveries(svc: Services, batchSize = 1000): Promise<number> {
  const d = webhookDeliveries;
  return unitOfWork(svc, async (tx, out) => {
    const stalled = await tx
      .select({ id: d.id, attempts: d.attempts, subscriptionId: d.subscriptionId })
      .from(d)
      .where(and(eq(d.status, 'pending'), lt(d.nextAttemptAt, sql`now() - make_interval(mins => ${STALLED_AFTER_MINUTES})`)))
      .limit(batchSize)
      .for('update', { skipLocked: true });
    if (stalled.length === 0) return 0;
    await tx
      .update(d)
      .set({ nextAttemptAt: sql`now()` })
      .where(
        inArray(
          d.id,
          stalled.map((s) => s.id),
        ),
      );
    await out.retry(stalled.map((s) => ({ deliveryId: s.id, attempt: s.attempts + 1, delayMs: 0, subscriptionId: s.subscriptionId })));
    return stalled.length;
  });
}
