import type { Job } from 'pg-boss';
import type { Services } from '../services';
import { attemptDelivery } from '../webhooks/deliver';
import { DELIVERY_QUEUE, type DeliveryJob } from '../webhooks/queue';

/**
 * The delivery worker loop (Svix-style: workers over durable rows). pg-boss hands out due
 * attempt jobs; each batch runs its attempts concurrently. pg-boss polls at most every 0.5 s, so
 * whoever commits new deliveries calls `wake()` and the first attempt starts at once.
 */
export class DeliveryWorker {
  private workerIds: string[] = [];
  private stopped = false;

  constructor(private readonly concurrency: { workers: number; batchSize: number }) {}

  private svc?: Services;

  async start(svc: Services): Promise<void> {
    this.svc = svc;
    for (let i = 0; i < this.concurrency.workers; i++) {
      const id = await svc.boss.work<DeliveryJob>(
        DELIVERY_QUEUE,
        { batchSize: this.concurrency.batchSize, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
        (jobs) => runBatch(svc, jobs),
      );
      this.workerIds.push(id);
    }
  }

  /** Fetch due attempts now instead of at the next poll. Cheap; call after commits. */
  wake(): void {
    if (this.stopped || !this.svc) return;
    for (const id of this.workerIds) this.svc.boss.notifyWorker(id);
  }

  /** Wake when a retry falls due, so it is not late by a poll interval (pg-boss polls anyway). */
  wakeIn(delayMs: number): void {
    if (this.stopped) return;
    setTimeout(() => this.wake(), delayMs + 5).unref();
  }

  stop(): void {
    this.stopped = true;
  }
}

/**
 * A failed attempt is recorded, not thrown. Only an error of our own (the database went away
 * mid-record) fails the batch, so pg-boss runs it again; attempts already recorded are skipped.
 */
async function runBatch(svc: Services, jobs: Job<DeliveryJob>[]): Promise<void> {
  const results = await Promise.allSettled(jobs.map((job) => attemptDelivery(svc, job.data)));
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) {
    svc.logger.warn({ err: String(failed[0]!.reason), failed: failed.length }, 'webhook attempts could not be recorded; pg-boss retries them');
    throw new Error(`${failed.length} webhook attempt(s) could not be recorded`);
  }
}
