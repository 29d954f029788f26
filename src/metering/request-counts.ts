import { sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { requestCounts } from '../db/schema';
import type { Logger } from '../logger';

/** How often the in-process counts are added to `request_counts`. */
export const REQUEST_COUNTS_FLUSH_MS = 5_000;
/** Rows per INSERT statement of a flush. */
const ROWS_PER_STATEMENT = 500;
/** Past this many pending (tenant, day) pairs a flush starts at once instead of waiting for the timer. */
const EAGER_FLUSH_AT = 10_000;

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
 * database write per request: counts accumulate in this process and are added to
 * `request_counts` every few seconds and at shutdown, in one multi-row
 * `INSERT ... ON CONFLICT DO UPDATE SET requests = request_counts.requests + excluded.requests`,
 * so the counts of any number of instances add up. A flush that fails (database unreachable)
 * keeps its counts for the next one.
 */
export class RequestCounter {
  private pending = new Map<string, number>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Executor,
    private readonly logger?: Logger,
    intervalMs = REQUEST_COUNTS_FLUSH_MS,
  ) {
    if (intervalMs > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => {}), intervalMs);
      this.timer.unref();
    }
  }

  /** Counts `n` requests of the tenant on the current UTC day (in memory). */
  countRequest(tenantId: string, n = 1, at = new Date()): void {
    if (!(n > 0)) return;
    const key = `${tenantId}|${utcDay(at)}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + n);
    if (this.pending.size >= EAGER_FLUSH_AT) void this.flush().catch(() => {});
  }

  /** Requests counted here and not yet written (for tests and diagnostics). */
  pendingRequests(tenantId: string, day: string): number {
    return this.pending.get(`${tenantId}|${day}`) ?? 0;
  }

  /**
   * Writes everything counted so far; resolves once it is committed (flushes run one at a time,
   * so a caller that awaits this sees every count made before the call in the table).
   */
  flush(): Promise<void> {
    const run = this.flushing.catch(() => {}).then(() => this.write());
    this.flushing = run;
    return run;
  }

  /** Stops the timer and writes what is left (service shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch((err: unknown) =>
      this.logger?.warn({ err }, 'request counts: final flush failed; the counts since the last flush are lost'),
    );
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([key, requests]) => {
      const [tenantId, day] = key.split('|') as [string, string];
      return { tenantId, day, requests };
    });
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      try {
        await this.upsert(chunk);
      } catch (err) {
        if (!isForeignKeyViolation(err)) {
          this.requeue(rows.slice(i));
          this.logger?.warn({ err }, 'request counts: flush failed; its counts wait for the next one');
          throw err;
        }
        // A tenant deleted since its requests: write the chunk row by row, dropping its rows.
        for (let j = 0; j < chunk.length; j++) {
          try {
            await this.upsert([chunk[j]!]);
          } catch (rowErr) {
            if (isForeignKeyViolation(rowErr)) continue;
            this.requeue([...chunk.slice(j), ...rows.slice(i + ROWS_PER_STATEMENT)]);
            throw rowErr;
          }
        }
      }
    }
  }

  private upsert(rows: { tenantId: string; day: string; requests: number }[]) {
    const now = new Date();
    return this.db
      .insert(requestCounts)
      .values(rows.map((r) => ({ ...r, updatedAt: now })))
      .onConflictDoUpdate({
        target: [requestCounts.tenantId, requestCounts.day],
        set: { requests: sql`${requestCounts.requests} + excluded.requests`, updatedAt: now },
      });
  }

  private requeue(rows: { tenantId: string; day: string; requests: number }[]): void {
    for (const r of rows) {
      const key = `${r.tenantId}|${r.day}`;
      this.pending.set(key, (this.pending.get(key) ?? 0) + r.requests);
    }
  }
}

function isForeignKeyViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '23503') return true;
  }
  return false;
}
