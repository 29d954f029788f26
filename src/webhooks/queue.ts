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

/** An attempt to schedule: its job's data, when, and its subscription (the job's pg-boss group, which the worker's fetches can skip). */
export interface ScheduledAttempt extends DeliveryJob {
  delayMs: number;
  subscriptionId?: string;
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
export async function scheduleAttempts(svc: Services, tx: Executor, jobs: ScheduledAttempt[]): Promise<void> {
  if (jobs.length === 0) return;
  const now = Date.now();
  const db = jobsDb(tx);
  for (let i = 0; i < jobs.length; i += 1000) {
    const ids = await svc.boss.insert(
      DELIVERY_QUEUE,
      jobs.slice(i, i + 1000).map((j) => ({
        data: { deliveryId: j.deliveryId, attempt: j.attempt },
        ...(j.delayMs > 0 ? { startAfter: new Date(now + j.delayMs) } : {}),
        ...(j.subscriptionId ? { group: { id: j.subscriptionId } } : {}),
      })),
      { db, returnId: true },
    );
    if (ids?.length !== Math.min(1000, jobs.length - i)) throw new Error(`pg-boss did not create jobs on queue ${DELIVERY_QUEUE}`);
  }
}

/**
 * Puts fetched attempts back in the queue unmade: each job is completed and the same attempt
 * (same number, nothing counted) gets a new job due in `delayMs`, in one transaction. For attempts
 * the worker could not send in time (src/jobs/webhooks.ts): the new job queues behind those
 * created meanwhile, and the old one never runs again.
 */
export async function deferAttempts(svc: Services, attempts: { jobId: string; deliveryId: string; attempt: number; subscriptionId: string }[], delayMs: number): Promise<void> {
  if (attempts.length === 0) return;
  await svc.db.transaction(async (tx) => {
    await scheduleAttempts(svc, tx, attempts.map((a) => ({ deliveryId: a.deliveryId, attempt: a.attempt, subscriptionId: a.subscriptionId, delayMs })));
    await svc.boss.complete(DELIVERY_QUEUE, attempts.map((a) => a.jobId), null, { db: jobsDb(tx) });
  });
}
