import { sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { requestCounts } from '../db/schema';
import type { Logger } from '../logger';
import { BufferedCounts, type CountRow } from './buffered-counts';

/** How often the in-process counts are added to `request_counts`. */
export const REQUEST_COUNTS_FLUSH_MS = 5_000;

const DAY_MS = 86_400_000;
/** The day utcDay answered last (every request asks it: the text is made once a day). */
let lastDay = { from: 0, text: '' };

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  const t = at.getTime();
  if (t >= lastDay.from && t < lastDay.from + DAY_MS) return lastDay.text;
  const text = at.toISOString().slice(0, 10);
  lastDay = { from: t - (((t % DAY_MS) + DAY_MS) % DAY_MS), text };
  return text;
}

/**
 * Authenticated API requests per tenant per UTC day (usage's "requests per day"), without a
 * database write per request (buffered-counts.ts): added to `request_counts` every few seconds
 * and at shutdown.
 */
export class RequestCounter extends BufferedCounts {
  constructor(db: Executor, logger?: Logger, intervalMs = REQUEST_COUNTS_FLUSH_MS) {
    super('request counts', (rows) => upsertRequestCounts(db, rows), logger, intervalMs);
  }

  /** Counts `n` requests of the tenant on the current UTC day (in memory). */
  countRequest(tenantId: string, n = 1, at = new Date()): void {
    this.add([tenantId, utcDay(at)], n);
  }

  /** Requests counted here and not yet written (for tests and diagnostics). */
  pendingRequests(tenantId: string, day: string): number {
    return this.pendingCount([tenantId, day]);
  }
}

function upsertRequestCounts(db: Executor, rows: CountRow[]) {
  const now = new Date();
  return db
    .insert(requestCounts)
    .values(rows.map(({ parts: [tenantId, day], n }) => ({ tenantId: tenantId!, day: day!, requests: n, updatedAt: now })))
    .onConflictDoUpdate({
      target: [requestCounts.tenantId, requestCounts.day],
      set: { requests: sql`${requestCounts.requests} + excluded.requests`, updatedAt: now },
    });
}
