/**
 * A value loaded from the database and kept in memory until invalidated or older than `maxAgeMs`:
 * - single flight: concurrent readers of a missing value share one load (no stampede);
 * - past its age, the old value is served while one reload runs (stale-while-revalidate);
 * - invalidate() drops the value at once, and a load that started before it does not store what
 *   it read (it may predate the change), so the next reader loads again.
 */
export class Reloadable<T> {
  private value?: { value: T; at: number };
  private inflight?: Promise<T>;
  private generation = 0;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly maxAgeMs: () => number,
  ) {}

  get(): Promise<T> {
    const hit = this.value;
    if (hit) {
      if (Date.now() - hit.at >= this.maxAgeMs()) this.inflight ??= this.reload();
      return Promise.resolve(hit.value);
    }
    return (this.inflight ??= this.reload());
  }

  /** The value held now, without loading (undefined when there is none). */
  peek(): T | undefined {
    return this.value?.value;
  }

  invalidate(): void {
    this.generation++;
    this.value = undefined;
    this.inflight = undefined;
  }

  private reload(): Promise<T> {
    const generation = this.generation;
    const promise = this.load().then(
      (value) => {
        if (generation === this.generation) this.value = { value, at: Date.now() };
        if (this.inflight === promise) this.inflight = undefined;
        return value;
      },
      (err: unknown) => {
        if (this.inflight === promise) this.inflight = undefined;
        throw err;
      },
    );
    // A background reload's failure is reported to whoever awaits it; nobody may (stale serve).
    promise.catch(() => {});
    return promise;
  }
}
