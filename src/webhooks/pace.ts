import type { Tx } from '../db';
import { webhookDeliveries, type DeliveryKind } from '../db/schema';
import { jobsDb } from '../db/job-tx';
import { newTimeOrderedId } from '../lib/ids';
import { withFallback } from '../metering/concurrency';
import type { RedisLike } from '../metering/redis';
import { DELIVERY_QUEUE, scheduleAttempts, type NewDelivery, type Outbox } from '../outbox';
import type { Services } from '../services';

/**
 * Pacing of a subscription's deliveries (`rate_limit_per_second`, docs/webhooks.md "Rate
 * limit"). Every attempt to a paced receiver takes a turn from the receiver's schedule before
 * it is sent: turns are 1/rate seconds apart, handed out in the order asked (GCRA's virtual
 * schedule without a burst). The schedule is one number per receiver, the time of its next free
 * turn, kept where every instance sees it: in Redis when REDIS_URL (or Upstash) is set, else in
 * this process (the embedded default is one process). An attempt whose turn is within HOLD_MS
 * waits for it in memory (a timer, never a busy wait); a later turn puts the job back in the
 * queue (pg-boss `startAfter`) due LEAD_MS before its turn, keeping the turn, so a queue of
 * thousands waits in the database, not in memory, and no attempt is dropped.
 */
export interface PaceStore {
  /**
   * Takes `n` consecutive turns of `key` at `perSecond`, the first no sooner than `notBeforeMs`
   * from now: answers in how many ms the first one is (≥ 0); the others follow every
   * 1000 / perSecond ms.
   */
  reserve(key: string, perSecond: number, n: number, notBeforeMs?: number): Promise<number>;
}

/** A turn this close (ms) is waited for in memory; a later one goes back to the queue. */
export const HOLD_MS = 1000;
/** A job put back in the queue is due this long (ms) before its turn, so it is fetched and held in time. */
export const LEAD_MS = 750;
/**
 * Turns taken for deliveries being created (replay) start no sooner than this (ms): the jobs are
 * fetched after the transaction commits, and turns that passed meanwhile would go out at once.
 */
const CREATED_TURNS_AFTER_MS = 1000;

export class MemoryPaceStore implements PaceStore {
  private next = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async reserve(key: string, perSecond: number, n: number, notBeforeMs = 0): Promise<number> {
    const now = this.clock();
    this.sweep(now);
    const first = Math.max(this.next.get(key) ?? 0, now + notBeforeMs);
    this.next.set(key, first + (n * 1000) / perSecond);
    return first - now;
  }

  /** Forgets receivers whose next turn has passed (a past turn and none are the same). */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [key, at] of this.next) if (at < now) this.next.delete(key);
  }
}

/**
 * The schedule in Redis, on Redis's clock (the instances' clocks need not agree): one key per
 * receiver holding its next free turn (epoch ms, fractional), expiring once that turn has passed.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local first = tonumber(redis.call('GET', KEYS[1]) or '0')
if first < now + tonumber(ARGV[3]) then first = now + tonumber(ARGV[3]) end
local after = first + n * interval
redis.call('SET', KEYS[1], string.format('%.3f', after), 'PX', math.ceil(after - now) + 1000)
return string.format('%.3f', first - now)
`;

export class RedisPaceStore implements PaceStore {
  constructor(
    private readonly redis: RedisLike,
    private readonly prefix = 'amp:pace',
  ) {}

  async reserve(key: string, perSecond: number, n: number, notBeforeMs = 0): Promise<number> {
    // Each call is its own turn-taking: calls of one event-loop turn run in sequence in one script run.
    const reply = await this.redis.eval(RESERVE, [`${this.prefix}:${key}`], [1000 / perSecond, n, notBeforeMs], 'sequence');
    const waitMs = Number(reply);
    if (!Number.isFinite(waitMs)) throw new Error(`pace: Redis answered ${String(reply)}`);
    return waitMs;
  }
}

const stores = new WeakMap<Services['outbox'], PaceStore>();

/**
 * The services' schedule of turns (one per Services instance, shared by the delivery worker and
 * replay): Redis when configured (this instance's own schedule while it is unreachable), else
 * in-process.
 */
export function paceStore(svc: Pick<Services, 'outbox' | 'redis' | 'logger'>): PaceStore {
  let store = stores.get(svc.outbox);
  if (!store) {
    store = svc.redis
      ? withFallback<PaceStore>(new RedisPaceStore(svc.redis), new MemoryPaceStore(), svc.logger, 'webhook pace')
      : new MemoryPaceStore();
    stores.set(svc.outbox, store);
  }
  return store;
}

/**
 * Deliveries of recorded events (replay, recover) to one subscription, in `tx`. To a paced
 * subscription, they take their turns now, in the order given (the events' order), and each first
 * attempt's job is due LEAD_MS before its turn: a batch of thousands keeps its order, which
 * fetching jobs created together (in no defined order among themselves) would not. Answers how
 * many were created.
 */
export async function deliverInTurn(
  svc: Services,
  tx: Tx,
  out: Outbox,
  subscription: { id: string; rateLimitPerSecond: number | null },
  deliveries: NewDelivery[],
  kind: DeliveryKind,
): Promise<number> {
  const perSecond = subscription.rateLimitPerSecond;
  if (perSecond === null || deliveries.length === 0) return out.deliver(deliveries, kind);
  const waitMs = await paceStore(svc).reserve(subscription.id, perSecond, deliveries.length, CREATED_TURNS_AFTER_MS);
  const first = Date.now() + waitMs;
  const rows = deliveries.map((d, i) => {
    const slotAt = first + (i * 1000) / perSecond;
    return { id: newTimeOrderedId('dlv'), ...d, kind, nextAttemptAt: new Date(slotAt) };
  });
  for (let i = 0; i < rows.length; i += 1000) await tx.insert(webhookDeliveries).values(rows.slice(i, i + 1000));
  const now = Date.now();
  await out.retry(
    rows.map((r) => ({
      deliveryId: r.id,
      attempt: 1,
      subscriptionId: subscription.id,
      slotAt: r.nextAttemptAt.getTime(),
      delayMs: Math.max(0, Math.round(r.nextAttemptAt.getTime() - LEAD_MS - now)),
    })),
  );
  return rows.length;
}

/**
 * This instance's own guard under the shared schedule: at most `perSecond` sends to a receiver
 * in any 1000 ms, whatever happened meanwhile. Sends wait for their turns, so they are never
 * early; but a stalled event loop (or an attempt fetched late) would otherwise send the turns it
 * missed at once. Each receiver keeps the times of its last `perSecond` sends.
 */
export class SendWindow {
  private windows = new Map<string, { times: number[]; oldest: number; last: number }>();
  private lastSweep = 0;

  /** The earliest time (epoch ms, ≥ now) the receiver may be sent to. */
  earliest(key: string, perSecond: number, now: number): number {
    const w = this.windows.get(key);
    if (!w || w.times.length < perSecond) return now;
    return Math.max(now, w.times[w.oldest]! + 1000);
  }

  /** Notes a send at `at`. */
  note(key: string, perSecond: number, at: number): void {
    this.sweep(at);
    let w = this.windows.get(key);
    if (!w || w.times.length > perSecond) this.windows.set(key, (w = { times: [], oldest: 0, last: at }));
    w.last = at;
    if (w.times.length < perSecond) {
      w.times.push(at);
      return;
    }
    w.times[w.oldest] = at;
    w.oldest = (w.oldest + 1) % w.times.length;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (w.last + 1000 <= now) this.windows.delete(key);
  }
}

/** A paced attempt put back in the queue: its job, and the turn it keeps. */
export interface PacedJob {
  jobId: string;
  deliveryId: string;
  attempt: number;
  subscriptionId: string;
  final?: boolean;
  slotAt: number;
}

/**
 * Puts paced attempts back in the queue unmade, each due LEAD_MS before its turn and carrying it
 * (`slotAt`), with their jobs completed, in one transaction (as deferAttempts). Answers the delays
 * (ms) at which they fall due.
 */
export async function deferToTurns(svc: Services, jobs: PacedJob[]): Promise<number[]> {
  if (jobs.length === 0) return [];
  const now = Date.now();
  const delays = jobs.map((j) => Math.max(0, Math.round(j.slotAt - LEAD_MS - now)));
  await svc.db.transaction(async (tx) => {
    await scheduleAttempts(
      svc,
      tx,
      jobs.map((j, i) => ({
        deliveryId: j.deliveryId,
        attempt: j.attempt,
        subscriptionId: j.subscriptionId,
        final: j.final,
        slotAt: j.slotAt,
        delayMs: delays[i]!,
      })),
    );
    await svc.boss.complete(
      DELIVERY_QUEUE,
      jobs.map((j) => j.jobId),
      null,
      { db: jobsDb(tx) },
    );
  });
  return delays;
}
