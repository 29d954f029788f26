import { CERTIFICATION_QUEUE, CERTIFICATION_WEEKLY_CRON, CERTIFICATION_WEEKLY_QUEUE } from '../certification/queue';
import { performRun, requestScheduledRuns } from '../certification/runs';
import type { Services } from '../services';

/**
 * Certification runs as durable pg-boss jobs (any instance's worker takes them, one at a time
 * per instance: a run is bounded and takes turns with tenants' executions for workers), and the
 * weekly cron that queues a run for every public module.
 */
export async function startCertification(svc: Services): Promise<void> {
  await svc.boss.schedule(CERTIFICATION_WEEKLY_QUEUE, CERTIFICATION_WEEKLY_CRON);
  await svc.boss.work<{ runId: string }>(CERTIFICATION_QUEUE, { pollingIntervalSeconds: 2 }, async ([job]) => {
    if (job) await performRun(svc, job.data.runId);
  });
  await svc.boss.work(CERTIFICATION_WEEKLY_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    const queued = await requestScheduledRuns(svc);
    svc.logger.info({ queued }, 'certification: weekly runs queued');
  });
}
