import type { Services } from '../services';
import { retryOrphanedSteps, WORKFLOW_STEP_QUEUE, type StepJob } from '../workflows/queue';
import { runStepJob } from '../workflows/scheduler';

export { WORKFLOW_QUEUE_OPTIONS, WORKFLOW_STEP_QUEUE } from '../workflows/queue';

/**
 * The workflow step workers: each takes one step attempt job at a time (src/workflows/scheduler.ts),
 * several per instance so a run's parallel steps run in parallel. Any instance's workers take
 * any run's steps; the scheduler's conditional updates keep each attempt to one of them.
 */
export async function startWorkflowWorkers(svc: Services): Promise<void> {
  // Embedded: this process is the only one, so an active step job belonged to a process that died.
  if (svc.database.kind === 'pglite') await retryOrphanedSteps(svc);
  await svc.boss.work<StepJob>(
    WORKFLOW_STEP_QUEUE,
    { localConcurrency: svc.database.kind === 'pglite' ? 4 : 8, pollingIntervalSeconds: 0.5, batchSize: 1 },
    async ([job]) => {
      if (job) await runStepJob(svc, job.data);
    },
  );
}

/** Stops taking step jobs and waits for the attempts in flight (before the worker pool closes). */
export async function stopWorkflowWorkers(svc: Services): Promise<void> {
  await svc.boss.offWork(WORKFLOW_STEP_QUEUE, { wait: true }).catch(() => {});
}
