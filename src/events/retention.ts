import { and, lt, ne, sql } from 'drizzle-orm';
import { events, webhookDeliveries } from '../db/schema';
import type { Services } from '../services';
import { clearExpiredPreviousSecrets } from '../webhooks/signing';

/** Events are kept this long (replay reaches back 7 days; the rest is for support and audits). */
export const EVENT_RETENTION_DAYS = 30;
/** Finished webhook deliveries (with their attempts) are kept this long; statistics are counters and stay. */
export const DELIVERY_RETENTION_DAYS = 30;

/**
 * Deletes events and finished deliveries past their retention, in batches so no run holds a long
 * lock, and forgets rotated-out webhook secrets whose overlap ended. Safe on several instances at
 * once. Returns what it removed.
 */
export async function purgeOldRecords(svc: Pick<Services, 'db'>, batchSize = 5_000) {
  const eventCutoff = sql`now() - make_interval(days => ${EVENT_RETENTION_DAYS})`;
  const deliveryCutoff = sql`now() - make_interval(days => ${DELIVERY_RETENTION_DAYS})`;
  const d = webhookDeliveries;
  const deliveries = await deleteInBatches(batchSize, (limit) =>
    svc.db
      .delete(d)
      .where(
        sql`${d.id} in ${svc.db
          .select({ id: d.id })
          .from(d)
          .where(and(ne(d.status, 'pending'), lt(d.createdAt, deliveryCutoff)))
          .limit(limit)}`,
      )
      .returning({ id: d.id }),
  );
  const removedEvents = await deleteInBatches(batchSize, (limit) =>
    svc.db
      .delete(events)
      .where(sql`${events.id} in ${svc.db.select({ id: events.id }).from(events).where(lt(events.createdAt, eventCutoff)).limit(limit)}`)
      .returning({ id: events.id }),
  );
  await clearExpiredPreviousSecrets(svc.db);
  return { events: removedEvents, deliveries };
}

async function deleteInBatches(batchSize: number, deleteBatch: (limit: number) => Promise<unknown[]>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await deleteBatch(batchSize);
    total += removed.length;
    if (removed.length < batchSize) return total;
  }
}
