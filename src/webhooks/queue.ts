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

/**
 * Queue options: a job whose worker died mid-attempt expires (receiver deadline + 10 s) and runs
 * again (at-least-once; pg-boss checks for expired jobs every superviseIntervalSeconds).
 */
export function deliveryQueueOptions(timeoutMs: number) {
  return { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: Math.ceil(timeoutMs / 1000) + 10 };
}

/**
 * Embedded mode only (one process owns the database): attempts left `active` by a process that
 * died are orphaned, so they are failed at once (pg-boss retries them) instead of waiting to expire.
 */
export async function retryOrphanedAttempts(svc: Services): Promise<number> {
  const { rows } = await svc.boss.getDb().executeSql(`select id from pgboss.job where name = $1 and state = 'active'`, [DELIVERY_QUEUE]);
  const ids = rows.map((r: { id: string }) => r.id);
  if (ids.length > 0) await svc.boss.fail(DELIVERY_QUEUE, ids);
  return ids.length;
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
