/**
 * Admission to a fixed number of workers, fair across tenants. A task first takes a lease (one
 * free worker) and only then starts: so a task never waits inside the worker pool, and the
 * action's deadline, which starts when its worker picks it up, measures its own run time.
 *
 * When every worker is busy, callers wait in one FIFO queue per tenant, and a freed worker goes
 * to the next tenant in round-robin order among those with waiting tasks: a tenant's burst
 * queues behind itself, not in front of everyone else. A caller that gets no lease within its
 * bounded wait is refused (undefined) and takes nothing.
 *
 * Every operation is O(1) apart from a refusal, which removes the waiter from its tenant's queue
 * (bounded by the tenant's concurrency limit).
 */
export interface Lease {
  /** Which of the `capacity` places this lease holds (0-based), exclusive while it is held. */
  readonly slot: number;
  /** Gives the worker back; calling it again is harmless. */
  release(): void;
}

interface Waiter {
  tenant: string;
  resolve: (lease: Lease | undefined) => void;
  timer: NodeJS.Timeout;
}

export class FairQueue {
  private busy = 0;
  /** Places not leased now. */
  private readonly free: number[];
  /** Tenants with waiting tasks, in round-robin order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Waiter[]>();
  private queued = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('FairQueue: capacity must be a positive integer');
    this.free = Array.from({ length: capacity }, (_, i) => capacity - 1 - i);
  }

  /** Leases held now. */
  get inUse(): number {
    return this.busy;
  }

  /** Tasks waiting for a lease now. */
  get waitingCount(): number {
    return this.queued;
  }

  /**
   * A lease as soon as a worker is free and it is this tenant's turn, or undefined when none
   * came within `maxWaitMs`.
   */
  admit(tenant: string, maxWaitMs: number): Promise<Lease | undefined> {
    if (this.busy < this.capacity && this.queued === 0) {
      this.busy++;
      return Promise.resolve(this.lease());
    }
    if (maxWaitMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = { tenant, resolve, timer: setTimeout(() => this.expire(waiter), maxWaitMs) };
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(waiter);
      else this.waiting.set(tenant, [waiter]);
      this.queued++;
    });
  }

  private lease(): Lease {
    let held = true;
    const slot = this.free.pop()!;
    return {
      slot,
      release: () => {
        if (!held) return;
        held = false;
        this.free.push(slot);
        this.busy--;
        this.dispatch();
      },
    };
  }

  /** Hands free workers to waiting tenants, one task per tenant per turn. */
  private dispatch(): void {
    while (this.busy < this.capacity && this.queued > 0) {
      const [tenant, queue] = this.waiting.entries().next().value as [string, Waiter[]];
      const waiter = queue.shift()!;
      // This tenant goes to the back of the ring (or leaves it when it has nothing left).
      this.waiting.delete(tenant);
      if (queue.length > 0) this.waiting.set(tenant, queue);
      this.queued--;
      clearTimeout(waiter.timer);
      this.busy++;
      waiter.resolve(this.lease());
    }
  }

  private expire(waiter: Waiter): void {
    const queue = this.waiting.get(waiter.tenant);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.waiting.delete(waiter.tenant);
    this.queued--;
    waiter.resolve(undefined);
  }
}
