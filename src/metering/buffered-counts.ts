import type { Logger } from '../logger';

/** Rows per statement of a flush. */
const ROWS_PER_STATEMENT = 500;
/** Past this many pending rows a flush starts at once instead of waiting for the timer. */
const EAGER_FLUSH_AT = 10_000;

/** One pending count: the parts of its row's key (tenant, day, ...) and how many to add. */
export interface CountRow {
  parts: string[];
  n: number;
}

/**
 * Counts that are many and hot (requests per tenant and day, refusals per key), added to their
 * table without a database write per count: they accumulate in this process and `upsert` adds them
 * every few seconds and at shutdown, in one multi-row `INSERT ... ON CONFLICT DO UPDATE SET n = n +
 * excluded.n`, so the counts of any number of instances add up. A flush that fails (database
 * unreachable) keeps its counts for the next one; rows whose owner was deleted meanwhile (a
 * foreign-key violation) are dropped.
 */
export class BufferedCounts {
  private pending = new Map<string, number>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly upsert: (rows: CountRow[]) => Promise<unknown>,
    private readonly logger?: Logger,
    intervalMs = 5_000,
  ) {
    if (intervalMs > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => {}), intervalMs);
      this.timer.unref();
    }
  }

  /** Adds `n` to the count of the row `parts` name (in memory). */
  add(parts: string[], n = 1): void {
    if (!(n > 0)) return;
    const key = parts.join('|');
    this.pending.set(key, (this.pending.get(key) ?? 0) + n);
    if (this.pending.size >= EAGER_FLUSH_AT) void this.flush().catch(() => {});
  }

  /** What is counted here for the row and not yet written (for tests and diagnostics). */
  pendingCount(parts: string[]): number {
    return this.pending.get(parts.join('|')) ?? 0;
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
      this.logger?.warn({ err }, `${this.name}: final flush failed; the counts since the last flush are lost`),
    );
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([key, n]) => ({ parts: key.split('|'), n }));
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      try {
        await this.upsert(chunk);
      } catch (err) {
        if (!isForeignKeyViolation(err)) {
          this.requeue(rows.slice(i));
          this.logger?.warn({ err }, `${this.name}: flush failed; its counts wait for the next one`);
          throw err;
        }
        // An owner deleted since its counts: write the chunk row by row, dropping its rows.
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

  private requeue(rows: CountRow[]): void {
    for (const r of rows) this.add(r.parts, r.n);
  }
}

function isForeignKeyViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '23503') return true;
  }
  return false;
}
