import { jobsDb } from '../db/job-tx';
import type { Outbox } from '../outbox';
import type { Services } from '../services';

/** The pg-boss queue of step attempts: one job per attempt of one step of one run. */
export const WORKFLOW_STEP_QUEUE = 'workflow-step';

export interface StepJob {
  runId: string;
  stepId: string;
  /** 1-based attempt this job makes; the claim only succeeds from attempt - 1. */
  attempt: number;
}

/**
 * A job that fails on our side (database gone) runs again. A worker refreshes its job's heartbeat
 * every 5 s; a job whose worker died (its heartbeat older than STEP_HEARTBEAT_SECONDS) is failed
 * by pg-boss's monitor and runs again on any instance, which finds the step `running` and
 * recovers it (src/workflows/scheduler.ts). The expiry bounds an attempt whose worker lives on
 * but hangs (longer than any attempt: action deadline plus admission).
 */
export const STEP_HEARTBEAT_SECONDS = 10;

export const WORKFLOW_QUEUE_OPTIONS = { retryLimit: 20, retryDelay: 2, retryBackoff: true, expireInSeconds: 300 };

/**
 * Enqueues step attempts of `run` in the transaction of `out`, so they exist exactly when the
 * state that needs them commits, and notes when each falls due, so that this instance's idle
 * workers fetch it then (src/jobs/workflows.ts) rather than at their next poll. Each job carries
 * its run's priority (higher first) and its tenant as its group: a worker pool gives one tenant
 * at most half its workers, so a tenant's burst of runs never keeps another tenant's steps
 * waiting for a worker.
 */
export async function enqueueSteps(
  svc: Services,
  out: Outbox,
  run: { tenantId: string; priority: number },
  jobs: (StepJob & { delayMs?: number })[],
): Promise<void> {
  if (jobs.length === 0) return;
  const tx = out.tx;
  const now = Date.now();
  const ids = await svc.boss.insert(
    WORKFLOW_STEP_QUEUE,
    jobs.map(({ delayMs, ...data }) => ({
      data,
      priority: run.priority,
      group: { id: run.tenantId },
      heartbeatSeconds: STEP_HEARTBEAT_SECONDS,
      ...(delayMs ? { startAfter: new Date(now + delayMs) } : {}),
    })),
    { db: jobsDb(tx), returnId: true },
  );
  if (ids?.length !== jobs.length) throw new Error(`pg-boss did not create jobs on queue ${WORKFLOW_STEP_QUEUE}`);
  const dueNow = jobs.filter((j) => !j.delayMs).length;
  if (dueNow > 0) out.jobsDue(WORKFLOW_STEP_QUEUE, dueNow);
  for (const { delayMs } of jobs) if (delayMs) out.jobDueAt(WORKFLOW_STEP_QUEUE, now + delayMs);
}

/**
 * Embedded mode only (one process owns the database): step jobs left `active` by a process that
 * died are failed at once, so pg-boss retries them now instead of when they expire.
 */
export async function retryOrphanedSteps(svc: Services): Promise<number> {
  const { rows } = await svc.boss
    .getDb()
    .executeSql(`select id from pgboss.job where name = $1 and state = 'active'`, [WORKFLOW_STEP_QUEUE]);
  const ids = rows.map((r: { id: string }) => r.id);
  if (ids.length > 0) await svc.boss.fail(WORKFLOW_STEP_QUEUE, ids);
  return ids.length;
}
