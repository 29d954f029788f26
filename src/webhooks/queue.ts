import { jobsDb } from '../db/job-tx';
import { DELIVERY_QUEUE, scheduleAttempts } from '../outbox';
import type { Services } from '../services';

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
 * Puts fetched attempts back in the queue unmade: each job is completed and the same attempt
 * (same number, nothing counted) gets a new job due in `delayMs`, in one transaction. For attempts
 * the worker could not send in time (src/jobs/webhooks.ts): the new job queues behind those
 * created meanwhile, and the old one never runs again.
 */
export async function deferAttempts(
  svc: Services,
  attempts: { jobId: string; deliveryId: string; attempt: number; subscriptionId: string; final?: boolean }[],
  delayMs: number,
): Promise<void> {
  if (attempts.length === 0) return;
  await svc.db.transaction(async (tx) => {
    await scheduleAttempts(
      svc,
      tx,
      attempts.map((a) => ({ deliveryId: a.deliveryId, attempt: a.attempt, subscriptionId: a.subscriptionId, final: a.final, delayMs })),
    );
    await svc.boss.complete(
      DELIVERY_QUEUE,
      attempts.map((a) => a.jobId),
      null,
      { db: jobsDb(tx) },
    );
  });
}
