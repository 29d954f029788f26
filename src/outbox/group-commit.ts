/**
 * Group commit: callers submit items one at a time; items that arrive while earlier flushes are
 * in flight (or within the same event-loop turn) are written together by one flush. So at low
 * load an item is flushed on the next turn (no added delay), and under load each flush carries
 * everything that queued during the previous one: fewer transactions, row locks and round trips
 * per item. A caller's promise settles only when its flush has settled it (after its commit).
 */
export interface Pending<T, R> {
  item: T;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export interface GroupCommitOptions {
  /** Items per flush at most. */
  maxBatch: number;
  /** Flushes running at once at most (1 on a single-connection database). */
  maxInFlight: number;
}

export class GroupCommit<T, R> {
  private queue: Pending<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /** `flush` must settle every entry it is given; an entry it leaves unsettled is rejected with its error. */
  constructor(
    private readonly flush: (batch: Pending<T, R>[]) => Promise<void>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.options.maxBatch) this.pump();
      else this.schedule();
    });
  }

  /** Items waiting for a flush (not counting those being flushed). */
  get waiting(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Gathers what the current turn submits (e.g. a batch request's calls) into one flush.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.run(batch);
    }
  }

  private async run(batch: Pending<T, R>[]): Promise<void> {
    const settled = new Set<Pending<T, R>>();
    const tracked = batch.map((p) => tracking(p, settled));
    try {
      await this.flush(tracked);
      for (const p of batch) if (!settled.has(p)) p.reject(new Error('group commit: flush left an item unsettled'));
    } catch (err) {
      for (const p of batch) if (!settled.has(p)) p.reject(err);
    } finally {
      this.inFlight--;
      // What queued meanwhile goes out now, as one flush.
      if (this.queue.length > 0) this.pump();
    }
  }
}

/**
 * `p` with its settling recorded in `settled`. The closures are returned, not written as
 * `resolve: (v) => ...` in a literal: under tsx (esbuild's keepNames) each named closure costs a
 * defineProperty per item.
 */
function tracking<T, R>(p: Pending<T, R>, settled: Set<Pending<T, R>>): Pending<T, R> {
  return { item: p.item, resolve: settling(p, settled, p.resolve), reject: settling(p, settled, p.reject) };
}

function settling<T, R, A>(p: Pending<T, R>, settled: Set<Pending<T, R>>, settle: (a: A) => void): (a: A) => void {
  return (a) => {
    settled.add(p);
    settle(a);
  };
}
