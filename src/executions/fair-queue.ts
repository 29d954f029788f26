/**
 * Admission to a fixed number of workers, fair across tenants. A task first takes a lease (one
 * free worker) and only then starts: so a task never waits inside the worker pool, and the
 * action's deadline, which starts when its worker picks it up, measures its own run time.
 *
 * When every worker is busy, callers wait in one FIFO queue per tenant, and a freed worker goes
 * to the waiting tenant that holds the fewest workers (round-robin among equals): a tenant's
 * burst queues behind itself, not in front of everyone else. A caller that gets no lease within
 * its bounded wait is refused (undefined) and takes nothing.
 *
 * With a `TenantShare` (the JavaScript sandbox), a tenant also never holds more than its share
 * of the workers for a task that may outlast the admission wait, even when a worker is free: the
 * rest stay for other tenants, since a running task cannot be interrupted to make room. Only a
 * task whose deadline fits within the admission wait may borrow a free worker past the share
 * (and only when no tenant within its share is waiting for it). A call within its tenant's share
 * (the tenant's held and waiting calls, this one included, are no more than the share) waits up
 * to `withinShareWaitMs` (as long as a running task can hold a worker) instead of the admission
 * wait, and is served before tenants over theirs; only a tenant's excess is refused after the
 * admission wait. Without one (the built-in pool: short actions), a tenant may take every free
 * worker and every caller waits at most the admission wait.
 *
 * Granting scans the tenants waiting now (not the tasks); everything else is O(1) apart from a
 * refusal, which removes the waiter from its tenant's queue (bounded by the tenant's concurrency
 * limit).
 */
export interface Lease {
  /** Which of the `capacity` places this lease holds (0-based), exclusive while it is held. */
  readonly slot: number;
  /** Gives the worker back; calling it again is harmless. */
  release(): void;
}

export interface TenantShare {
  /** Workers one tenant may hold for tasks longer than the admission wait. */
  perTenant: number;
  /** How long a call within its tenant's share may wait for a worker (the longest a task holds one). */
  withinShareWaitMs: number;
}

interface Waiter {
  tenant: string;
  /** Its task may take a worker past the tenant's share (its deadline fits within the admission wait). */
  mayBorrow: boolean;
  resolve: (lease: Lease | undefined) => void;
  timer: NodeJS.Timeout;
}

/** Half the workers, rounded up: what one tenant may hold in a pool of `capacity`. */
export const halfShare = (capacity: number) => Math.max(1, Math.ceil(capacity / 2));

export class FairQueue {
  private busy = 0;
  /** Places not leased now. */
  private readonly free: number[];
  /** Leases held now, per tenant holding any. */
  private readonly held = new Map<string, number>();
  /** Tenants with waiting tasks, in round-robin order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Waiter[]>();
  private queued = 0;
  private readonly share: number;

  constructor(
    readonly capacity: number,
    private readonly tenantShare?: TenantShare,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('FairQueue: capacity must be a positive integer');
    this.free = Array.from({ length: capacity }, (_, i) => capacity - 1 - i);
    this.share = tenantShare ? Math.min(capacity, Math.max(1, tenantShare.perTenant)) : capacity;
  }

  /** Leases held now. */
  get inUse(): number {
    return this.busy;
  }

  /** Tasks waiting for a lease now. */
  get waitingCount(): number {
    return this.queued;
  }

  /** Leases `tenant` holds now. */
  heldBy(tenant: string): number {
    return this.held.get(tenant) ?? 0;
  }

  /** Workers one tenant may hold for a task that may outlast the admission wait. */
  get perTenant(): number {
    return this.share;
  }

  /**
   * A lease as soon as a worker is free and it is this tenant's turn, or undefined when none
   * came within `maxWaitMs` (the admission wait; longer for a call within its tenant's share, see
   * above). `taskMs` is the task's deadline: one within `maxWaitMs` may borrow past the share.
   */
  admit(tenant: string, maxWaitMs: number, taskMs = Infinity): Promise<Lease | undefined> {
    const mayBorrow = taskMs <= maxWaitMs;
    if (this.busy < this.capacity && !this.waiting.has(tenant) && this.mayTake(tenant, mayBorrow)) {
      return Promise.resolve(this.lease(tenant));
    }
    const queue = this.waiting.get(tenant);
    const withinShare = this.tenantShare && this.heldBy(tenant) + (queue?.length ?? 0) < this.share;
    const waitMs = withinShare ? Math.max(maxWaitMs, this.tenantShare!.withinShareWaitMs) : maxWaitMs;
    if (waitMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = { tenant, mayBorrow, resolve, timer: setTimeout(() => this.expire(waiter), waitMs) };
      if (queue) queue.push(waiter);
      else this.waiting.set(tenant, [waiter]);
      this.queued++;
    });
  }

  /** Whether a free worker may go to `tenant` (within its share, or borrowed for a short task). */
  private mayTake(tenant: string, mayBorrow: boolean): boolean {
    return this.heldBy(tenant) < this.share || mayBorrow;
  }

  private lease(tenant: string): Lease {
    let held = true;
    const slot = this.free.pop()!;
    this.busy++;
    this.held.set(tenant, this.heldBy(tenant) + 1);
    return {
      slot,
      release: () => {
        if (!held) return;
        held = false;
        this.free.push(slot);
        this.busy--;
        const left = this.heldBy(tenant) - 1;
        if (left > 0) this.held.set(tenant, left);
        else this.held.delete(tenant);
        this.dispatch();
      },
    };
  }

  /** Hands free workers to waiting tenants, one task per tenant per turn. */
  private dispatch(): void {
    while (this.busy < this.capacity && this.queued > 0) {
      const tenant = this.nextTenant();
      if (tenant === undefined) return;
      const queue = this.waiting.get(tenant)!;
      const waiter = queue.shift()!;
      // This tenant goes to the back of the ring (or leaves it when it has nothing left).
      this.waiting.delete(tenant);
      if (queue.length > 0) this.waiting.set(tenant, queue);
      this.queued--;
      clearTimeout(waiter.timer);
      waiter.resolve(this.lease(tenant));
    }
  }

  /** The waiting tenant whose next task may take a worker and that holds the fewest (the first in the ring among equals). */
  private nextTenant(): string | undefined {
    let best: string | undefined;
    let bestHeld = Infinity;
    for (const [tenant, queue] of this.waiting) {
      const held = this.heldBy(tenant);
      if (held < bestHeld && this.mayTake(tenant, queue[0]!.mayBorrow)) {
        best = tenant;
        bestHeld = held;
        if (held === 0) break;
      }
    }
    return best;
  }

  private expire(waiter: Waiter): void {
    const queue = this.waiting.get(waiter.tenant);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.waiting.delete(waiter.tenant);
    this.queued--;
    waiter.resolve(undefined);
    // The tenant's next task may be one that can borrow a free worker.
    if (at === 0) this.dispatch();
  }
}
