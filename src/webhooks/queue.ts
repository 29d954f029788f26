import type { Executor } from '../db';
import { jobsDb } from '../jobs/tx';
import type { Services } from '../services';

/** The pg-boss queue of delivery attempts: one job per attempt, `startAfter` its scheduled time. */
export const DELIVERY_QUEUE = 'webhook-delivery';

export interface DeliveryJob {
  deliveryId: string;
  /** 1-based attempt number this job makes. */
  attempt: number;
}

/** Queue options: a job whose worker died mid-attempt expires and runs again (at-least-once). */
export function deliveryQueueOptions(timeoutMs: number) {
  return { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: Math.ceil(timeoutMs / 1000) + 30 };
}

/**
 * Schedules attempts inside `tx`, so a delivery row and its next attempt commit together.
 * (pg-boss answers null for an unknown queue: that is a bug, so it throws.)
 */
export async function scheduleAttempts(svc: Services, tx: Executor, jobs: (DeliveryJob & { delayMs: number })[]): Promise<void> {
  if (jobs.length === 0) return;
  const now = Date.now();
  const db = jobsDb(tx);
  for (let i = 0; i < jobs.length; i += 1000) {
    const ids = await svc.boss.insert(
      DELIVERY_QUEUE,
      jobs.slice(i, i + 1000).map((j) => ({
        data: { deliveryId: j.deliveryId, attempt: j.attempt },
        ...(j.delayMs > 0 ? { startAfter: new Date(now + j.delayMs) } : {}),
      })),
      { db, returnId: true },
    );
    if (ids?.length !== Math.min(1000, jobs.length - i)) throw new Error(`pg-boss did not create jobs on queue ${DELIVERY_QUEUE}`);
  }
}
