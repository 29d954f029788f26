import { lte, sql } from 'drizzle-orm';
import { memoryEntries } from '../db/schema';
import type { Services } from '../services';

const m = memoryEntries;

/**
 * Deletes expired memory entries, in batches so one run never holds a long lock, and returns how
 * many it removed. Reads already hide expired entries; this only reclaims their space. Safe to
 * run on several instances at once (each batch deletes whatever is still there).
 */
export async function purgeExpiredMemory(svc: Pick<Services, 'db'>, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = svc.db
      .select({ tenantId: m.tenantId, agentId: m.agentId, key: m.key })
      .from(m)
      .where(lte(m.expiresAt, sql`now()`))
      .limit(batchSize);
    const removed = await svc.db
      .delete(m)
      .where(sql`(${m.tenantId}, ${m.agentId}, ${m.key}) in ${expired}`)
      .returning({ key: m.key });
    total += removed.length;
    if (removed.length < batchSize) return total;
  }
}
