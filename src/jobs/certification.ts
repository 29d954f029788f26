import { CERTIFICATION_QUEUE, CERTIFICATION_WEEKLY_CRON, CERTIFICATION_WEEKLY_QUEUE } from '../certification/queue';
import { performRun, requestScheduledRuns } from '../certification/runs';
import type { Services } from '../services';
import { idlePollSeconds, pendingDueTimes, wakeAt } from './boss';

/**
 * Certification runs as durable pg-boss jobs (any instance's worker takes them, one at a time
 * per instance: a run is bounded and takes turns with tenants' executions for workers), and the
 * weekly cron that queues a run for every public module.
 */
export async function startCertification(svc: Services): Promise<void> {
  if (svc.database.kind === 'pglite') await retryOrphanedRuns(svc);
  await svc.boss.schedule(CERTIFICATION_WEEKLY_QUEUE, CERTIFICATION_WEEKLY_CRON);
  // A requested run starts at once on the embedded database (the queue notifies, src/jobs/boss.ts),
  // within half a second on PostgreSQL; one delayed after a publish, within a poll of its time.
  // After a run the worker looks for the next one at once, so queued runs follow each other
  // instead of waiting out the interval between them.
  const worker: { id?: string } = {};
  const poll = idlePollSeconds(svc.database);
  const options = { pollingIntervalSeconds: Math.min(poll, 0.5), notifyPollingIntervalSeconds: poll };
  worker.id = await svc.boss.work<{ runId: string }>(CERTIFICATION_QUEUE, options, async ([job]) => {
    if (!job) return;
    try {
      await performRun(svc, job.data.runId);
    } finally {
      if (worker.id) svc.boss.notifyWorker(worker.id);
    }
  });
  // Embedded: runs an earlier run of this process queued with a delay (after a publish) start on time.
  if (svc.database.kind === 'pglite') {
    for (const at of await pendingDueTimes(svc.boss, CERTIFICATION_QUEUE)) wakeAt(at, () => worker.id && svc.boss.notifyWorker(worker.id));
  }
  await svc.boss.work(CERTIFICATION_WEEKLY_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    const queued = await requestScheduledRuns(svc);
    svc.logger.info({ queued }, 'certification: weekly runs queued');
  });
}

/**
 * Embedded mode only (this process is the database's only user): a run left `active` by a
 * process that stopped mid-run is failed at once, so pg-boss retries it after its retry delay
 * instead of after the job's expiry. (On PostgreSQL other instances may be running theirs.)
 */
async function retryOrphanedRuns(svc: Services): Promise<void> {
  const { rows } = await svc.boss
    .getDb()
    .executeSql(`select id from pgboss.job where name = $1 and state = 'active'`, [CERTIFICATION_QUEUE]);
  const ids = rows.map((r: { id: string }) => r.id);
  if (ids.length > 0) await svc.boss.fail(CERTIFICATION_QUEUE, ids);
}
