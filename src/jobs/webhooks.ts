import { SOCKETS_PER_ORIGIN } from '../net/ssrf';
import type { Services } from '../services';
import { prepareAttempts, recordAttempts, type FetchedJob, type MadeAttempt, type PreparedAttempt } from '../webhooks/deliver';
import { DELIVERY_QUEUE, type DeliveryJob } from '../outbox';
import { deferToTurns, paceStore, HOLD_MS, SendWindow, type PacedJob, type PaceStore } from '../webhooks/pace';
import { deferAttempts } from '../webhooks/queue';
import { postToReceiver } from '../webhooks/send';

export interface DeliveryWorkerOptions {
  /** Attempts being prepared or sent at once on this instance. */
  maxInFlight: number;
  /** Record transactions at once (1 on a single-connection database). */
  maxRecorders: number;
  /** Idle poll for due attempts (other instances' retries, pg-boss's own; wake() covers this instance's). */
  pollMs: number;
}

/**
 * Attempts being prepared or sent at once per instance (beyond the 32 sockets per receiver
 * origin, src/net/ssrf.ts, they wait for a socket within their deadline). Fewer let a burst of
 * executions outrun its deliveries (docs/performance.md, "Webhook delivery").
 */
export const DELIVERIES_IN_FLIGHT = 128;
/**
 * The delivery worker's idle poll on both backends. Commits that create deliveries, and its own
 * retries' and turns' timers, wake it; a lane that drops below its limit while the loop sleeps
 * does not, so an embedded service polls every half second here too, unlike its other workers
 * (idlePollSeconds, src/jobs/boss.ts).
 */
export const DELIVERY_POLL_MS = 500;
const FETCH_BATCH = 100;
const WAKE_COALESCE_MS = 3;
const RECORD_BATCH = 200;
/**
 * Attempts fetched and not yet recorded, at most: fetching pauses above it. It keeps the time
 * from a job's fetch to its completion far below the job's expiry (a job that expires runs
 * again), and bounds what a crash can send twice (attempts sent and not yet recorded run again).
 * 256 does as well as 1,000 in the bench's burst (docs/performance.md, "Webhook delivery").
 */
const MAX_UNRECORDED = 256;

/**
 * Attempts of one subscription sent at once per instance: as many as its receiver's origin has
 * sockets, since more would only wait for a socket while holding slots of the instance's. The
 * rest wait in the subscription's lane, outside the slots, so a receiver that hangs until the
 * deadline holds 32 of the 128 and other subscriptions' attempts are still fetched and sent.
 */
export const SENDS_PER_SUBSCRIPTION = SOCKETS_PER_ORIGIN;
/**
 * A subscription with this many attempts sending or waiting in its lane is left out of fetches
 * (pg-boss `ignoreGroups`) until they drop below it: enough waiting to cover a fetch and a load
 * while its sends go on. With less, a replay to one fast receiver runs its lane dry between
 * fetches (docs/performance.md, "Webhook delivery").
 */
const HELD_PER_SUBSCRIPTION = 8 * SENDS_PER_SUBSCRIPTION;
/** Attempts waiting in lanes, at most (a few hanging subscriptions' worth): fetching pauses above it. */
const MAX_WAITING = 1024;
/**
 * An attempt that waited this long in its lane goes back to the queue unmade, due DEFER_MS later
 * (deferAttempts). A job expires WEBHOOK_TIMEOUT_MS + 10 s after its fetch and then runs again,
 * so a job must not wait in a lane for more than that, less its request and its recording.
 */
const MAX_WAIT_MS = 5_000;
const DEFER_MS = 1_000;
const WAIT_CHECK_MS = 1_000;

/**
 * A subscription's attempts on this instance: being sent, waiting for one of its sends (oldest
 * first), and, for a paced subscription, waiting for their turns (`paced`, by turn).
 */
interface Lane {
  sending: number;
  waiting: { attempt: PreparedAttempt; since: number }[];
  paced: { attempt: PreparedAttempt; at: number }[];
  pacedTimer?: NodeJS.Timeout;
  /** When its latest paced attempt was released (epoch ms). */
  lastTurnAt?: number;
}

const held = (lane: Lane) => lane.sending + lane.waiting.length + lane.paced.length;

/**
 * A paced lane this far (ms) behind its turns catches up with requests CATCH_UP_GAP_MS apart (a
 * quarter of its interval at high rates), not all at once.
 */
const BEHIND_MS = 20;
const CATCH_UP_GAP_MS = 4;
/** Due times of jobs put back to wait for their turns are rounded up to this (ms) for the wake-ups. */
const PACE_WAKE_MS = 100;

/**
 * The delivery worker loop (Svix-style: a loop over durable rows). It fetches due attempt jobs
 * from pg-boss while it has free slots, loads them in one query, and sends each on its own, so a
 * slow receiver holds one slot for up to WEBHOOK_TIMEOUT_MS, not a batch. Each subscription
 * sends at most SENDS_PER_SUBSCRIPTION at once; its other attempts wait in its lane without a
 * slot, and a subscription with HELD_PER_SUBSCRIPTION attempts held is skipped by fetches, so one
 * tenant's hanging receiver cannot take the slots other tenants' deliveries need. A slot frees when its
 * request ends: made attempts are recorded in groups (recordAttempts, which also completes their
 * jobs) by up to `maxRecorders` recorders, so the groups grow when recording is the slower
 * part instead of holding the slots (with slots held until recorded, deliveries would wait on
 * one recorder's round trips and fall behind bursts of executions). pg-boss polls at
 * most every 0.5 s, so every commit that creates deliveries wakes it (start), and a failed attempt
 * wakes the loop when its retry falls due.
 */
export class DeliveryWorker {
  /** Jobs fetched and not yet sent (or completed, when there was nothing to send). */
  private active = 0;
  /** Made attempts not yet handed to a recorder. */
  private made: MadeAttempt[] = [];
  /** Made attempts a recorder is writing. */
  private recordingCount = 0;
  private recorderCount = 0;
  private recorders = new Set<Promise<void>>();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private svc?: Services;
  private unsubscribe?: () => void;
  private lanes = new Map<string, Lane>();
  private pace?: PaceStore;
  private sendWindow = new SendWindow();
  /** Ends when the latest dispatch has taken its paced attempts' turns: turns are taken in fetch order. */
  private paceTurn: Promise<void> = Promise.resolve();
  /** Attempts waiting in lanes. */
  private waitingCount = 0;
  private waitTimer: NodeJS.Timeout | undefined;
  private deferrals = new Set<Promise<void>>();
  /** The loop sleeps because nothing more was due (not for lack of room): freed room does not wake it. */
  private idle = false;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  /** Runs the loop, woken by every commit that created deliveries (the outbox's post-commit hooks). */
  start(svc: Services): void {
    this.svc = svc;
    this.pace = paceStore(svc);
    this.unsubscribe = svc.outbox.afterCommit((committed) => {
      if (committed.deliveries > 0) this.wake();
    });
    this.running = this.loop(svc);
  }

  /** Fetch due attempts now instead of at the next poll. Cheap. */
  wake(): void {
    // Commits arriving within a few milliseconds share one fetch instead of one each.
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.woken = true;
      this.wakeUp?.();
    }, WAKE_COALESCE_MS);
  }

  /** Wake when a retry falls due, so it is not late by a poll interval. */
  wakeIn(delayMs: number): void {
    if (this.stopped) return;
    setTimeout(() => this.wake(), delayMs + 5).unref();
  }

  /** Stops fetching, lets attempts being sent finish (bounded) and records them; attempts waiting in lanes go back to the queue. */
  async stop(timeoutMs = 5000): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake();
    await this.running;
    const svc = this.svc;
    if (svc) this.deferWaiting(svc, () => true, 0);
    if (svc) this.deferPaced(svc);
    const deadline = Date.now() + timeoutMs;
    while (this.active > 0 && Date.now() < deadline) await this.sleep(50);
    // Those whose loading ended meanwhile.
    if (svc) this.deferWaiting(svc, () => true, 0);
    if (svc) this.deferPaced(svc);
    clearTimeout(this.waitTimer);
    while (this.recorders.size > 0 || this.deferrals.size > 0) await Promise.all([...this.recorders, ...this.deferrals]);
  }

  /** Attempts fetched and not yet recorded or completed. */
  private get unfinished(): number {
    return this.active + this.made.length + this.recordingCount;
  }

  private async loop(svc: Services): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const free = Math.min(this.options.maxInFlight - this.active, MAX_UNRECORDED - this.unfinished, MAX_WAITING - this.waitingCount);
      if (free <= 0) {
        await this.sleep(1000); // woken as soon as a slot frees
        continue;
      }
      this.woken = false;
      const want = Math.min(free, FETCH_BATCH);
      let jobs: FetchedJob[];
      try {
        jobs = await svc.boss.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: want, ignoreGroups: this.fullLanes() });
        failures = 0;
      } catch (err) {
        if (failures++ === 0) svc.logger.warn({ err: String(err) }, 'webhook worker could not fetch jobs; retrying');
        await this.sleep(Math.min(30_000, this.options.pollMs * 2 ** failures));
        continue;
      }
      if (jobs.length > 0) {
        this.active += jobs.length;
        void this.dispatch(svc, jobs);
      }
      // A full batch means more may be due: fetch again at once. Else nothing more is due but in
      // the lanes left out: new deliveries (wake), a lane dropping below its limit or the poll
      // end the wait, not freed slots.
      if (jobs.length < want && !this.woken) {
        this.idle = true;
        await this.sleep(this.options.pollMs);
        this.idle = false;
      }
    }
  }

  /** The subscriptions whose lanes hold HELD_PER_SUBSCRIPTION attempts (null: none). */
  private fullLanes(): string[] | null {
    let full: string[] | null = null;
    for (const [subscriptionId, lane] of this.lanes) if (held(lane) >= HELD_PER_SUBSCRIPTION) (full ??= []).push(subscriptionId);
    return full;
  }

  private async dispatch(svc: Services, jobs: FetchedJob[]): Promise<void> {
    // Paced attempts take their turns after those of earlier fetches (loads may finish out of order).
    const previousTurn = this.paceTurn;
    let endTurn!: () => void;
    this.paceTurn = new Promise((resolve) => (endTurn = resolve));
    let prepared: Awaited<ReturnType<typeof prepareAttempts>>;
    try {
      prepared = await prepareAttempts(svc, jobs);
    } catch (err) {
      void previousTurn.then(endTurn);
      svc.logger.warn({ err: String(err) }, 'webhook attempts could not be loaded; they will run again');
      await this.release(
        svc,
        jobs.map((j) => j.id),
        'fail',
      );
      return;
    }
    const paced: PreparedAttempt[] = [];
    for (const attempt of prepared.ready) {
      if (attempt.pace) paced.push(attempt);
      else this.enqueue(svc, attempt);
    }
    for (const made of prepared.unsendable) this.record(svc, made);
    const pacing = paced.length > 0 ? this.takeTurns(svc, paced, previousTurn).finally(endTurn) : previousTurn.then(endTurn);
    if (prepared.idle.length > 0) await this.release(svc, prepared.idle, 'complete');
    await pacing;
  }

  /**
   * Paced attempts (they hold slots until placed): each takes its turn from its subscription's
   * schedule (src/webhooks/pace.ts; one call per subscription, in the order of their events)
   * unless it holds one already, then waits in its lane for a turn within HOLD_MS or goes
   * back to the queue, due LEAD_MS before its turn.
   */
  private async takeTurns(svc: Services, attempts: PreparedAttempt[], previousTurn: Promise<void>): Promise<void> {
    await previousTurn;
    const bySubscription = new Map<string, PreparedAttempt[]>();
    for (const a of attempts) {
      const list = bySubscription.get(a.subscriptionId);
      if (list) list.push(a);
      else bySubscription.set(a.subscriptionId, [a]);
    }
    const later: PacedJob[] = [];
    await Promise.all(
      [...bySubscription].map(async ([subscriptionId, list]) => {
        const fresh = list
          .filter((a) => a.pace!.slotAt === undefined)
          .sort((a, b) => a.pace!.order - b.pace!.order || a.attempt - b.attempt);
        if (fresh.length > 0) {
          const perSecond = fresh[0]!.pace!.perSecond;
          let waitMs = 0;
          try {
            waitMs = await this.pace!.reserve(subscriptionId, perSecond, fresh.length);
          } catch (err) {
            // Not expected (the Redis store falls back to this instance's schedule): the send window still paces them.
            svc.logger.warn({ err: String(err) }, 'webhook pace: no turn could be taken; pacing on this instance only');
          }
          const first = Date.now() + waitMs;
          fresh.forEach((a, i) => (a.pace!.slotAt = first + (i * 1000) / perSecond));
        }
        const now = Date.now();
        let held: Lane | undefined;
        for (const a of list) {
          if (a.pace!.slotAt! - now <= HOLD_MS && !this.stopped) held = this.holdForTurn(a);
          else
            later.push({
              jobId: a.jobId,
              deliveryId: a.deliveryId,
              attempt: a.attempt,
              subscriptionId,
              final: a.final,
              slotAt: a.pace!.slotAt!,
            });
        }
        // All of the fetch's turns in place first: those already due go out in turn order.
        if (held) this.releaseTurns(svc, subscriptionId, held);
      }),
    );
    if (later.length > 0) await this.putBack(svc, later, true);
  }

  /** Jobs back to the queue to wait for their turns; `holdingSlots`: they hold fetch slots until then. */
  private async putBack(svc: Services, jobs: PacedJob[], holdingSlots: boolean): Promise<void> {
    const deferral: Promise<void> = deferToTurns(svc, jobs)
      .then((delays) => {
        // Wake when they fall due (rounded, so a burst of turns shares a few wake-ups).
        for (const d of new Set(delays.map((ms) => Math.ceil(ms / PACE_WAKE_MS) * PACE_WAKE_MS))) this.wakeIn(d);
      })
      .catch(async (err: unknown) => {
        svc.logger.warn(
          { err: String(err), attempts: jobs.length },
          'paced webhook attempts could not be put back in the queue; they will run again',
        );
        await this.settleJobs(
          svc,
          jobs.map((j) => j.jobId),
          'fail',
        );
      })
      .finally(() => {
        this.deferrals.delete(deferral);
        if (holdingSlots) this.freeSlots(jobs.length);
      });
    this.deferrals.add(deferral);
    await deferral;
  }

  /** The attempt waits in its lane (without a slot) for its turn, kept in turn order (releaseTurns sends it). */
  private holdForTurn(attempt: PreparedAttempt): Lane {
    let lane = this.lanes.get(attempt.subscriptionId);
    if (!lane) this.lanes.set(attempt.subscriptionId, (lane = { sending: 0, waiting: [], paced: [] }));
    const at = attempt.pace!.slotAt!;
    let i = lane.paced.length;
    while (i > 0 && lane.paced[i - 1]!.at > at) i--;
    lane.paced.splice(i, 0, { attempt, at });
    this.waitingCount++;
    this.freeSlots(1);
    return lane;
  }

  /**
   * Sends the lane's paced attempts whose turns have come, no more than the receiver's rate in any
   * second on this instance (SendWindow), and sets a timer for the next turn.
   */
  private releaseTurns(svc: Services, subscriptionId: string, lane: Lane): void {
    clearTimeout(lane.pacedTimer);
    lane.pacedTimer = undefined;
    while (lane.paced.length > 0 && !this.stopped) {
      const { attempt, at } = lane.paced[0]!;
      const now = Date.now();
      const perSecond = attempt.pace!.perSecond;
      // Turns that passed while this process was busy (a stall, a late fetch) go out a few ms
      // apart, not all at once: requests sent together reach the receiver in any order.
      if (now - at > Math.max(1000 / perSecond, BEHIND_MS) && lane.lastTurnAt !== undefined) {
        const next = lane.lastTurnAt + Math.min(CATCH_UP_GAP_MS, 250 / perSecond);
        if (next > now) {
          lane.pacedTimer = setTimeout(() => this.releaseTurns(svc, subscriptionId, lane), Math.ceil(next - now));
          lane.pacedTimer.unref();
          return;
        }
      }
      const when = Math.max(at, this.sendWindow.earliest(subscriptionId, perSecond, now));
      if (when > now) {
        lane.pacedTimer = setTimeout(() => this.releaseTurns(svc, subscriptionId, lane), Math.ceil(when - now));
        lane.pacedTimer.unref();
        return;
      }
      lane.paced.shift();
      this.waitingCount--;
      lane.lastTurnAt = now;
      this.sendWindow.note(subscriptionId, perSecond, now);
      // It takes a slot again (as pumpLane's), and its place among the lane's sends.
      this.active++;
      if (lane.sending < SENDS_PER_SUBSCRIPTION) this.send(svc, lane, attempt);
      else {
        lane.waiting.push({ attempt, since: now });
        this.waitingCount++;
        this.freeSlots(1);
        this.watchWaiting(svc);
      }
    }
  }

  /** On stop: the attempts waiting for their turns go back to the queue, keeping them. */
  private deferPaced(svc: Services): void {
    const back: PacedJob[] = [];
    for (const [subscriptionId, lane] of this.lanes) {
      clearTimeout(lane.pacedTimer);
      lane.pacedTimer = undefined;
      for (const { attempt, at } of lane.paced.splice(0)) {
        back.push({
          jobId: attempt.jobId,
          deliveryId: attempt.deliveryId,
          attempt: attempt.attempt,
          subscriptionId,
          final: attempt.final,
          slotAt: at,
        });
      }
      if (held(lane) === 0) this.lanes.delete(subscriptionId);
    }
    this.waitingCount -= back.length;
    if (back.length > 0) void this.putBack(svc, back, false);
  }

  /** Sends the attempt if its subscription has a send free; else it waits in the subscription's lane, giving up its slot. */
  private enqueue(svc: Services, attempt: PreparedAttempt): void {
    let lane = this.lanes.get(attempt.subscriptionId);
    if (!lane) this.lanes.set(attempt.subscriptionId, (lane = { sending: 0, waiting: [], paced: [] }));
    if (lane.sending < SENDS_PER_SUBSCRIPTION && !this.stopped) {
      this.send(svc, lane, attempt);
      return;
    }
    lane.waiting.push({ attempt, since: Date.now() });
    this.waitingCount++;
    this.freeSlots(1);
    this.watchWaiting(svc);
  }

  private send(svc: Services, lane: Lane, attempt: PreparedAttempt): void {
    lane.sending++;
    void postToReceiver(svc, attempt.url, attempt.body, attempt.headers)
      .catch((err: unknown) => ({
        success: false,
        statusCode: null,
        latencyMs: 0,
        error: `The request failed: ${String(err)}`,
        responseBody: null,
      }))
      .then((outcome) => {
        const wasFull = held(lane) >= HELD_PER_SUBSCRIPTION;
        lane.sending--;
        this.record(svc, { prepared: attempt, outcome });
        this.pumpLane(svc, attempt.subscriptionId, lane);
        if (wasFull && held(lane) < HELD_PER_SUBSCRIPTION) this.wakeUp?.();
      });
  }

  /** Sends the lane's waiting attempts while it has sends free (each takes a slot again); drops the lane once empty. */
  private pumpLane(svc: Services, subscriptionId: string, lane: Lane): void {
    while (lane.sending < SENDS_PER_SUBSCRIPTION && lane.waiting.length > 0 && !this.stopped) {
      const { attempt } = lane.waiting.shift()!;
      this.waitingCount--;
      this.active++;
      this.send(svc, lane, attempt);
    }
    if (held(lane) === 0 && this.lanes.get(subscriptionId) === lane) this.lanes.delete(subscriptionId);
  }

  /** While attempts wait in lanes, checks every WAIT_CHECK_MS for those that waited MAX_WAIT_MS and hands them back. */
  private watchWaiting(svc: Services): void {
    if (this.waitTimer || this.waitingCount === 0 || this.stopped) return;
    this.waitTimer = setTimeout(() => {
      this.waitTimer = undefined;
      const cutoff = Date.now() - MAX_WAIT_MS;
      this.deferWaiting(svc, (since) => since <= cutoff, DEFER_MS);
      this.watchWaiting(svc);
    }, WAIT_CHECK_MS);
    this.waitTimer.unref();
  }

  /** Puts the waiting attempts `due` selects (by when they began to wait) back in the queue unmade (deferAttempts). */
  private deferWaiting(svc: Services, due: (since: number) => boolean, delayMs: number): void {
    const back: PreparedAttempt[] = [];
    for (const [subscriptionId, lane] of this.lanes) {
      while (lane.waiting.length > 0 && due(lane.waiting[0]!.since)) back.push(lane.waiting.shift()!.attempt);
      if (held(lane) === 0) this.lanes.delete(subscriptionId);
    }
    if (back.length === 0) return;
    this.waitingCount -= back.length;
    const deferral: Promise<void> = deferAttempts(svc, back, delayMs)
      .catch(async (err: unknown) => {
        // pg-boss runs them again after its retry delay instead.
        svc.logger.warn(
          { err: String(err), attempts: back.length },
          'webhook attempts could not be put back in the queue; they will run again',
        );
        await this.settleJobs(
          svc,
          back.map((a) => a.jobId),
          'fail',
        );
      })
      .finally(() => {
        this.deferrals.delete(deferral);
        this.wakeUp?.();
        if (delayMs > 0) this.wakeIn(delayMs);
      });
    this.deferrals.add(deferral);
  }

  /** Frees the attempt's slot and queues it for a recorder. */
  private record(svc: Services, made: MadeAttempt): void {
    this.made.push(made);
    this.freeSlots(1);
    if (this.recorderCount < this.options.maxRecorders) {
      this.recorderCount++;
      const recorder: Promise<void> = this.drain(svc).finally(() => this.recorders.delete(recorder));
      this.recorders.add(recorder);
    }
  }

  /** Records queued attempts in groups until none is left; several run at once on PostgreSQL. */
  private async drain(svc: Services): Promise<void> {
    try {
      // Yields first, so the caller's synchronous loop (a fetched batch's unsendable attempts) queues them all.
      await Promise.resolve();
      while (this.made.length > 0) {
        const group = this.made.splice(0, RECORD_BATCH);
        this.recordingCount += group.length;
        try {
          await this.recordGroup(svc, group);
        } finally {
          this.recordingCount -= group.length;
          if (!this.idle) this.wakeUp?.();
        }
      }
    } finally {
      // In the same synchronous step that finds the queue empty: an attempt queued right after starts a new recorder.
      this.recorderCount--;
    }
  }

  private async recordGroup(svc: Services, group: MadeAttempt[]): Promise<void> {
    try {
      const retries = await recordAttempts(svc, group);
      for (const delay of new Set(retries)) this.wakeIn(delay);
    } catch (err) {
      // Our own failure (the database went away): pg-boss runs these jobs again later; an
      // attempt recorded meanwhile is skipped then.
      svc.logger.warn({ err: String(err), attempts: group.length }, 'webhook attempts could not be recorded; they will run again');
      await this.settleJobs(
        svc,
        group.map((m) => m.prepared.jobId),
        'fail',
      );
    }
  }

  /** Completes or fails jobs that hold a slot (nothing was sent for them). */
  private async release(svc: Services, jobIds: string[], how: 'complete' | 'fail'): Promise<void> {
    await this.settleJobs(svc, jobIds, how);
    this.freeSlots(jobIds.length);
  }

  private async settleJobs(svc: Services, jobIds: string[], how: 'complete' | 'fail'): Promise<void> {
    const op = how === 'complete' ? svc.boss.complete(DELIVERY_QUEUE, jobIds) : svc.boss.fail(DELIVERY_QUEUE, jobIds);
    // If this fails too, the jobs expire and run again.
    await op.catch((err: unknown) => svc.logger.warn({ err: String(err) }, `could not ${how} webhook jobs`));
  }

  private freeSlots(n: number): void {
    this.active -= n;
    if (!this.idle) this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}

const workers = new WeakMap<Services['outbox'], DeliveryWorker>();

/** Starts the services' delivery worker (one per Services instance). */
export function startDeliveryWorker(svc: Services, options: DeliveryWorkerOptions): DeliveryWorker {
  const worker = new DeliveryWorker(options);
  workers.set(svc.outbox, worker);
  worker.start(svc);
  return worker;
}

/** Stops the services' delivery worker (see DeliveryWorker.stop); nothing when none runs. */
export async function stopDeliveryWorker(svc: Pick<Services, 'outbox'>): Promise<void> {
  await workers.get(svc.outbox)?.stop();
}
