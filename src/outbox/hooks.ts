/** An event a committed unit of work wrote. */
export interface CommittedEvent {
  id: string;
  tenantId: string;
  type: string;
}

/** What a unit of work committed, as its post-commit hooks see it. */
export interface Committed {
  events: readonly CommittedEvent[];
  /** Delivery attempts it scheduled (new deliveries, retries): the delivery worker has work. */
  deliveries: number;
  /** Each counted tenant's executions this cycle after the commit. */
  counts: ReadonlyMap<string, number>;
  /** Jobs it enqueued that are due at once, per queue: this instance's idle workers of it fetch now. */
  dueJobs: ReadonlyMap<string, number>;
  /** Jobs it enqueued that fall due later (epoch ms): an idle worker of the queue fetches then. */
  laterJobs: readonly { queue: string; at: number }[];
}

export type AfterCommit = (committed: Committed) => void;

/**
 * The post-commit hooks of one Services instance: every unit of work calls them after its
 * commit, never after a rollback. Registered at start-up (app.ts) and by the delivery worker
 * when it starts; a hook that throws is logged by the caller's logger and the others still run.
 */
export class OutboxHooks {
  private readonly hooks = new Set<AfterCommit>();

  /** Registers `hook`; returns its removal. */
  afterCommit(hook: AfterCommit): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** Runs the hooks; the errors they threw are returned, not thrown: the commit happened. */
  committed(committed: Committed): unknown[] {
    const { events, deliveries, counts, dueJobs, laterJobs } = committed;
    if (events.length === 0 && deliveries === 0 && counts.size === 0 && dueJobs.size === 0 && laterJobs.length === 0) return [];
    const errors: unknown[] = [];
    for (const hook of this.hooks) {
      try {
        hook(committed);
      } catch (err) {
        errors.push(err);
      }
    }
    return errors;
  }
}
