import { sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { keyRefusals } from '../db/schema';
import type { Logger } from '../logger';
import { BufferedCounts, type CountRow } from '../metering/buffered-counts';
import { utcDay } from '../metering/request-counts';

/**
 * Requests a key's policy refused, per key, UTC day and reason (the key's usage page), buffered
 * like the request counts: a key hammering past its own limit costs no database write per
 * refusal. Added to `key_refusals` every few seconds and at shutdown.
 */
export class KeyRefusalCounter extends BufferedCounts {
  constructor(db: Executor, logger?: Logger, intervalMs = 5_000) {
    super('key refusals', (rows) => upsertKeyRefusals(db, rows), logger, intervalMs);
  }

  count(tenantId: string, keyId: string, reason: string, at = new Date()): void {
    this.add([keyId, tenantId, utcDay(at), reason]);
  }
}

function upsertKeyRefusals(db: Executor, rows: CountRow[]) {
  return db
    .insert(keyRefusals)
    .values(
      rows.map(({ parts: [keyId, tenantId, day, reason], n }) => ({
        keyId: keyId!,
        tenantId: tenantId!,
        day: day!,
        reason: reason!,
        count: n,
      })),
    )
    .onConflictDoUpdate({
      target: [keyRefusals.keyId, keyRefusals.day, keyRefusals.reason],
      set: { count: sql`${keyRefusals.count} + excluded.count` },
    });
}
