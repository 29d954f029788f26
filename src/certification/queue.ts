/**
 * Requesting a certification run: one `certification_runs` row and its pg-boss job, created in
 * the caller's transaction. At most one run per (module, version) is queued or running (a partial
 * unique index): a request while one is, shares it.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { certificationRuns, type CertificationRunRow, type CertificationTrigger } from '../db/schema';
import { jobsDb } from '../db/job-tx';
import { newId } from '../lib/ids';
import type { Services } from '../services';
import { RUN_DEADLINE_MS } from './rule';

/** The pg-boss queue of runs: one job per run, `{ runId }`. */
export const CERTIFICATION_QUEUE = 'certification-run';
/** The weekly cron: a run for every public module. */
export const CERTIFICATION_WEEKLY_QUEUE = 'certification-weekly';
/** Mondays at 04:00 UTC. */
export const CERTIFICATION_WEEKLY_CRON = '0 4 * * 1';

/**
 * A job whose worker died mid-run expires past the run's deadline and runs again (the run row is
 * picked up where it stands); twice at most.
 */
export const CERTIFICATION_QUEUE_OPTIONS = { retryLimit: 2, retryDelay: 30, expireInSeconds: Math.ceil(RUN_DEADLINE_MS / 1000) + 120 };
export const CERTIFICATION_WEEKLY_OPTIONS = { retryLimit: 1, retryDelay: 300, expireInSeconds: 1800 };

/** A queued run not started within a day, or a running one far past its deadline, was lost: it no longer blocks a new one. */
const QUEUED_STALE_MS = 86_400_000;
const RUNNING_STALE_MS = RUN_DEADLINE_MS + 10 * 60_000;

export interface RunRequest {
  moduleName: string;
  version: string;
  trigger: CertificationTrigger;
  tenantId: string | null;
  /** Start the run this much later (a publish waits, so a quick edit shares it). */
  delayMs?: number;
}

/**
 * The queued or running run of (module, version): a new one with its job, created inside `tx`
 * (`created: true`), or the one already there (`created: false`).
 */
export async function requestRun(
  svc: Services,
  tx: Executor,
  request: RunRequest,
): Promise<{ run: CertificationRunRow; created: boolean }> {
  await failStaleRuns(tx, request.moduleName, request.version);
  const [inserted] = await tx
    .insert(certificationRuns)
    .values({
      id: newId('crt'),
      moduleName: request.moduleName,
      version: request.version,
      status: 'queued',
      trigger: request.trigger,
      requestedByTenantId: request.tenantId,
    })
    .onConflictDoNothing({ target: [certificationRuns.moduleName, certificationRuns.version], where: sql`status in ('queued', 'running')` })
    .returning();
  if (inserted) {
    const startAfter = request.delayMs ? new Date(Date.now() + request.delayMs) : undefined;
    const jobId = await svc.boss.send(CERTIFICATION_QUEUE, { runId: inserted.id }, { db: jobsDb(tx), ...(startAfter && { startAfter }) });
    if (!jobId) throw new Error(`pg-boss did not create a job on queue ${CERTIFICATION_QUEUE}`);
    return { run: inserted, created: true };
  }
  const [active] = await tx
    .select()
    .from(certificationRuns)
    .where(
      and(
        eq(certificationRuns.moduleName, request.moduleName),
        eq(certificationRuns.version, request.version),
        inArray(certificationRuns.status, ['queued', 'running']),
      ),
    )
    .limit(1);
  // The active run finished between the insert and this read: ask again (it inserts this time).
  if (!active) return requestRun(svc, tx, request);
  return { run: active, created: false };
}

async function failStaleRuns(tx: Executor, moduleName: string, version: string): Promise<void> {
  await tx
    .update(certificationRuns)
    .set({ status: 'failed', error: 'The run was lost (its worker stopped) and was replaced by a new one.', finishedAt: new Date() })
    .where(
      and(
        eq(certificationRuns.moduleName, moduleName),
        eq(certificationRuns.version, version),
        sql`((${certificationRuns.status} = 'queued' and ${certificationRuns.createdAt} < now() - make_interval(secs => ${QUEUED_STALE_MS / 1000}))
          or (${certificationRuns.status} = 'running' and ${certificationRuns.startedAt} < now() - make_interval(secs => ${RUNNING_STALE_MS / 1000})))`,
      ),
    );
}
