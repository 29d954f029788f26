import type { EventType } from '../contract/events';
import type { Tx } from '../db';
import type { DeliveryKind } from '../db/schema';
import type { OutboxServices } from './context';
import { createDeliveries, scheduleAttempts, type NewDelivery, type ScheduledAttempt } from './deliveries';
import { insertEvent, type EmittedEvent } from './events';
import type { Committed, CommittedEvent } from './hooks';
import { countExecutions, type TenantTerms } from './quota';

/**
 * The outbox of one transaction: what it writes besides the caller's rows (events, their webhook
 * deliveries with their first attempts' jobs, execution counts) is written here, in the
 * transaction, and remembered for the post-commit hooks (src/outbox/hooks.ts).
 */
export class Outbox implements Committed {
  readonly events: CommittedEvent[] = [];
  deliveries = 0;
  readonly counts = new Map<string, number>();
  readonly dueJobs = new Map<string, number>();
  readonly laterJobs: { queue: string; at: number }[] = [];

  constructor(
    private readonly svc: OutboxServices,
    readonly tx: Tx,
  ) {}

  /**
   * Writes an event to the log, and one webhook delivery (with its first attempt's job) per
   * subscription that wants it: an event exists exactly when what caused it was committed, and
   * so do its deliveries.
   */
  async emit(tenantId: string, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent> {
    const { event, deliveries } = await insertEvent(this.tx, tenantId, type, data);
    this.events.push(event);
    await this.deliver(deliveries, 'event');
    return event;
  }

  /** Creates deliveries of recorded events (and their first attempts' jobs). */
  async deliver(deliveries: NewDelivery[], kind: DeliveryKind): Promise<number> {
    const created = await createDeliveries(this.svc, this.tx, deliveries, kind);
    this.deliveries += created;
    return created;
  }

  /** Schedules attempts of existing deliveries (their jobs commit with the transaction). */
  async retry(attempts: ScheduledAttempt[]): Promise<void> {
    await scheduleAttempts(this.svc, this.tx, attempts);
    this.deliveries += attempts.length;
  }

  /**
   * Counts `n` executions of the tenant in the cycle starting `cycle` (YYYY-MM-DD): its count
   * after, or null when its pausing quota refused them (nothing moved).
   */
  async count(terms: TenantTerms, n: number, cycle: string): Promise<number | null> {
    const used = await countExecutions(this.tx, terms, n, cycle);
    if (used !== null) this.counted(terms.tenantId, used);
    return used;
  }

  /** Notes events a statement of the caller wrote (a batch's, whose deliveries it creates with `deliver`). */
  emitted(events: CommittedEvent[]): void {
    for (const e of events) this.events.push(e);
  }

  /** Notes `n` jobs the transaction enqueued on `queue`, due at once: idle workers are woken after the commit. */
  jobsDue(queue: string, n: number): void {
    this.dueJobs.set(queue, (this.dueJobs.get(queue) ?? 0) + n);
  }

  /** Notes a job the transaction enqueued on `queue` due at `at` (epoch ms): an idle worker is woken then. */
  jobDueAt(queue: string, at: number): void {
    this.laterJobs.push({ queue, at });
  }

  /** Notes a tenant's count after a statement of the caller moved it (countCtes). */
  counted(tenantId: string, used: number): void {
    this.counts.set(tenantId, used);
  }
}

/**
 * Runs `work` in a transaction with its outbox; after the commit (never after a rollback), the
 * services' post-commit hooks see what the outbox wrote: the delivery worker wakes for new
 * deliveries, caches drop what the events changed, usage notes the counts.
 */
export async function unitOfWork<T>(svc: OutboxServices, work: (tx: Tx, out: Outbox) => Promise<T>): Promise<T> {
  let out: Outbox | undefined;
  const result = await svc.db.transaction((tx) => work(tx, (out = new Outbox(svc, tx))));
  afterCommit(svc, out!);
  return result;
}

/** Runs the post-commit hooks for what a committed transaction (or a statement that was its own) wrote. */
export function afterCommit(svc: Pick<OutboxServices, 'outbox' | 'logger'>, committed: Committed): void {
  for (const err of svc.outbox.committed(committed)) svc.logger.error({ err: String(err) }, 'a post-commit hook failed');
}
