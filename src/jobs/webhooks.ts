import type { Services } from '../services';
import { prepareAttempts, recordAttempts, type FetchedJob, type MadeAttempt } from '../webhooks/deliver';
import { DELIVERY_QUEUE, type DeliveryJob } from '../webhooks/queue';
import { postToReceiver } from '../webhooks/send';

export interface DeliveryWorkerOptions {
  /** Attempts being prepared or sent at once on this instance. */
  maxInFlight: number;
  /** Record transactions at once (1 on a single-connection database). */
  maxRecorders: number;
  /** Idle poll for due attempts (other instances' retries; wake() covers this instance's). */
  pollMs: number;
}

/**
 * Attempts being prepared or sent at once per instance (beyond the 32 sockets per receiver
 * origin, src/net/ssrf.ts, they wait for a socket within their deadline). With 32 (PGlite) and
 * 64 (PostgreSQL) a burst of 10,000 executions outran its deliveries on PGlite (p99 event to
 * first attempt 3.0-3.6 s); at 128, with fetches of up to 100, 96-103 ms, and the delivery
 * pipeline alone went from 1,651 to 2,789-3,058/s (PostgreSQL 3,142 to 3,666-3,759/s).
 */
export const DELIVERIES_IN_FLIGHT = 128;
const FETCH_BATCH = 100;
const WAKE_COALESCE_MS = 3;
const RECORD_BATCH = 200;
/**
 * Attempts fetched and not yet recorded, at most: fetching pauses above it. It keeps the time
 * from a job's fetch to its completion far below the job's expiry (a job that expires runs
 * again), and bounds what a crash can send twice (attempts sent and not yet recorded run again).
 * 256 did as well as 1,000 in the bench's burst (p99 97-108 against 107-128 ms).
 */
const MAX_UNRECORDED = 256;

/**
 * The delivery worker loop (Svix-style: a loop over durable rows). It fetches due attempt jobs
 * from pg-boss while it has free slots, loads them in one query, and sends each on its own, so a
 * slow receiver holds one slot for up to WEBHOOK_TIMEOUT_MS, not a batch. A slot frees when its
 * request ends: made attempts are recorded in groups (recordAttempts, which also completes their
 * jobs) by up to `maxRecorders` recorders, so the groups grow when recording is the slower
 * part instead of holding the slots (issue #16: with slots held until recorded, deliveries
 * waited on one recorder's round trips and fell behind bursts of executions). pg-boss polls at
 * most every 0.5 s, so whoever commits new deliveries calls `wake()`, and a failed attempt wakes
 * the loop when its retry falls due.
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

  constructor(private readonly options: DeliveryWorkerOptions) {}

  start(svc: Services): void {
    this.svc = svc;
    this.running = this.loop(svc);
  }

  /** Fetch due attempts now instead of at the next poll. Cheap; call after commits. */
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

  /** Stops fetching, lets attempts in flight finish (bounded) and records them. */
  async stop(timeoutMs = 5000): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    const deadline = Date.now() + timeoutMs;
    while (this.active > 0 && Date.now() < deadline) await this.sleep(50);
    while (this.recorders.size > 0) await Promise.all(this.recorders);
  }

  /** Attempts fetched and not yet recorded or completed. */
  private get unfinished(): number {
    return this.active + this.made.length + this.recordingCount;
  }

  private async loop(svc: Services): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const free = Math.min(this.options.maxInFlight - this.active, MAX_UNRECORDED - this.unfinished);
      if (free <= 0) {
        await this.sleep(1000); // woken as soon as a slot frees
        continue;
      }
      this.woken = false;
      const want = Math.min(free, FETCH_BATCH);
      let jobs: FetchedJob[];
      try {
        jobs = await svc.boss.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: want });
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
      // A full batch means more may be due: fetch again at once.
      if (jobs.length < want && !this.woken) await this.sleep(this.options.pollMs);
    }
  }

  private async dispatch(svc: Services, jobs: FetchedJob[]): Promise<void> {
    let prepared: Awaited<ReturnType<typeof prepareAttempts>>;
    try {
      prepared = await prepareAttempts(svc, jobs);
    } catch (err) {
      svc.logger.warn({ err: String(err) }, 'webhook attempts could not be loaded; they will run again');
      await this.release(svc, jobs.map((j) => j.id), 'fail');
      return;
    }
    for (const attempt of prepared.ready) {
      void postToReceiver(svc, attempt.url, attempt.body, attempt.headers)
        .catch((err: unknown) => ({ success: false, statusCode: null, latencyMs: 0, error: `The request failed: ${String(err)}`, responseBody: null }))
        .then((outcome) => this.record(svc, { prepared: attempt, outcome }));
    }
    for (const made of prepared.unsendable) this.record(svc, made);
    if (prepared.idle.length > 0) await this.release(svc, prepared.idle, 'complete');
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
          this.wakeUp?.();
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
      await this.settleJobs(svc, group.map((m) => m.prepared.jobId), 'fail');
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
    this.wakeUp?.();
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
