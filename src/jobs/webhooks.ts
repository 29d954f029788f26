import type { Job } from 'pg-boss';
import type { Services } from '../services';
import { attemptDelivery } from '../webhooks/deliver';
import { DELIVERY_QUEUE, type DeliveryJob } from '../webhooks/queue';

export interface DeliveryWorkerOptions {
  /** Attempts in flight at once on this instance. */
  maxInFlight: number;
  /** Idle poll for due attempts (other instances' retries; wake() covers this instance's). */
  pollMs: number;
}

/**
 * The delivery worker loop (Svix-style: a loop over durable rows). It fetches due attempt jobs
 * from pg-boss while it has free slots and runs each on its own, so a slow receiver holds one
 * slot for up to WEBHOOK_TIMEOUT_MS, not a whole batch. Finished jobs are completed in groups.
 * pg-boss polls at most every 0.5 s, so whoever commits new deliveries calls `wake()`, and a
 * failed attempt wakes the loop when its retry falls due.
 */
export class DeliveryWorker {
  private inFlight = new Set<Promise<void>>();
  private toComplete: string[] = [];
  private completeTimer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
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
    this.woken = true;
    this.wakeUp?.();
  }

  /** Wake when a retry falls due, so it is not late by a poll interval. */
  wakeIn(delayMs: number): void {
    if (this.stopped) return;
    setTimeout(() => this.wake(), delayMs + 5).unref();
  }

  /** Stops fetching, lets attempts in flight finish (bounded), completes their jobs. */
  async stop(timeoutMs = 5000): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    await this.flushCompletions();
  }

  private async loop(svc: Services): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const free = this.options.maxInFlight - this.inFlight.size;
      if (free <= 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      this.woken = false;
      let jobs: Job<DeliveryJob>[];
      try {
        jobs = await svc.boss.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: Math.min(free, 50) });
        failures = 0;
      } catch (err) {
        if (failures++ === 0) svc.logger.warn({ err: String(err) }, 'webhook worker could not fetch jobs; retrying');
        await this.sleep(Math.min(30_000, this.options.pollMs * 2 ** failures));
        continue;
      }
      for (const job of jobs) this.run(svc, job);
      // A full batch means more may be due: fetch again at once.
      if (jobs.length < Math.min(free, 50) && !this.woken) await this.sleep(this.options.pollMs);
    }
  }

  private run(svc: Services, job: Job<DeliveryJob>): void {
    const task = attemptDelivery(svc, job.data).then(
      () => this.complete(svc, job.id),
      async (err: unknown) => {
        // Our own failure (the database went away mid-record): pg-boss runs the job again later;
        // an attempt already recorded is skipped then.
        svc.logger.warn({ err: String(err), deliveryId: job.data.deliveryId }, 'webhook attempt could not be recorded; it will run again');
        await svc.boss.fail(DELIVERY_QUEUE, job.id).catch(() => {});
      },
    );
    this.inFlight.add(task);
    void task.finally(() => {
      this.inFlight.delete(task);
      this.wakeUp?.();
    });
  }

  private complete(svc: Services, jobId: string): void {
    this.toComplete.push(jobId);
    if (this.toComplete.length >= 50) void this.flushCompletions();
    else this.completeTimer ??= setTimeout(() => void this.flushCompletions(), 10);
  }

  private async flushCompletions(): Promise<void> {
    clearTimeout(this.completeTimer);
    this.completeTimer = undefined;
    const ids = this.toComplete.splice(0);
    if (ids.length === 0 || !this.svc) return;
    // If this fails the jobs expire and run again; their attempts are already recorded and skipped.
    await this.svc.boss.complete(DELIVERY_QUEUE, ids).catch((err: unknown) => this.svc!.logger.warn({ err: String(err) }, 'could not complete webhook jobs'));
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
