/**
 * Certification runs (docs/trust.md "Certification"): starting one (the publisher, an operator,
 * a publish, the weekly schedule), performing it (the pg-boss job), and completing it: the run,
 * the module's tier, its trust score and the events commit together.
 */
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { findVisibleModule } from '../catalog/queries';
import type { Executor } from '../db';
import {
  certificationRuns,
  moduleActions,
  modules,
  type CertificationRunRow,
  type CertificationRunStatus,
  type CertificationTier,
  type ModuleRow,
} from '../db/schema';
import { AppError, notFound } from '../lib/errors';
import { beforeCursor, decodeCursor, toPage } from '../lib/pagination';
import { unitOfWork } from '../outbox';
import { recordAudit } from '../audit/record';
import type { Services } from '../services';
import { moduleAudience } from '../trust/audience';
import { recomputeTrustScore } from '../trust/score';
import { CertificationDeadlineError, runChecks, type CheckResults } from './checks';
import { requestRun, type RunRequest } from './queue';
import { LATENCY_BUDGET_MS, RUN_DEADLINE_MS, TIER_RULE, tierFor, tierRank } from './rule';

// ---------------------------------------------------------------------------------------------
// Starting a run
// ---------------------------------------------------------------------------------------------

/**
 * POST /api/v1/certification/{module}/run: the publisher certifies its own module (202). A
 * module the tenant cannot see is 404; one it can see but does not publish (another tenant's
 * public module, a built-in) is 403.
 */
export async function startRunAsPublisher(svc: Services, principal: Principal, name: string) {
  const found = await findVisibleModule(svc.db, principal.tenantId, name);
  if (!found) throw notFound('module');
  if (found.module.ownerTenantId !== principal.tenantId) {
    throw new AppError('forbidden', `Only the publisher of '${name}' (or an operator) may start its certification.`);
  }
  return startRun(svc, { moduleName: name, version: found.module.version, trigger: 'manual', tenantId: principal.tenantId });
}

/** POST /api/v1/admin/certification/{module}/run: an operator certifies any module. */
export async function startRunAsOperator(svc: Services, name: string) {
  const [module] = await svc.db
    .select({ version: modules.version, owner: modules.ownerTenantId })
    .from(modules)
    .where(eq(modules.name, name))
    .limit(1);
  if (!module) throw notFound('module');
  return startRun(svc, { moduleName: name, version: module.version, trigger: 'manual', tenantId: null }, module.owner);
}

/** A manual start; a new run (not one shared with a run already queued) is in the audit log of `auditTenantId`, the module's owner. */
async function startRun(svc: Services, request: RunRequest, auditTenantId: string | null = request.tenantId) {
  const { run, created } = await svc.db.transaction(async (tx) => {
    const result = await requestRun(svc, tx, request);
    if (result.created)
      await recordAudit(tx, auditTenantId, {
        action: 'certification.started',
        target: { type: 'module', id: request.moduleName },
        changes: { run_id: result.run.id, version: request.version },
      });
    return result;
  });
  return { ...presentRun(svc, run), shared: !created };
}

/**
 * Inside the publish or update transaction: its run, started after CERTIFICATION_PUBLISH_DELAY_MS
 * (an edit within it shares the run, which certifies what is there when it starts).
 */
export async function requestRunAfterPublish(
  svc: Services,
  tx: Executor,
  moduleName: string,
  version: string,
  tenantId: string,
): Promise<void> {
  await requestRun(svc, tx, { moduleName, version, trigger: 'publish', tenantId, delayMs: svc.config.certificationPublishDelayMs });
}

/** The weekly schedule: a run for every public module (one already queued or running is shared). */
export async function requestScheduledRuns(svc: Services): Promise<number> {
  const rows = await svc.db.select({ name: modules.name, version: modules.version }).from(modules).where(eq(modules.visibility, 'public'));
  let created = 0;
  for (const row of rows) {
    const result = await svc.db.transaction((tx) =>
      requestRun(svc, tx, { moduleName: row.name, version: row.version, trigger: 'schedule', tenantId: null }),
    );
    if (result.created) created++;
  }
  return created;
}

// ---------------------------------------------------------------------------------------------
// Performing a run (the pg-boss job)
// ---------------------------------------------------------------------------------------------

export async function performRun(svc: Services, runId: string): Promise<void> {
  const [run] = await svc.db.select().from(certificationRuns).where(eq(certificationRuns.id, runId)).limit(1);
  if (!run || run.status === 'completed' || run.status === 'failed') return;
  // Read fresh (a publish on another instance may not have reached this one's module cache), and
  // before the run shows `running`: an update from then on is caught by completeRun.
  const [module] = await svc.db.select().from(modules).where(eq(modules.name, run.moduleName)).limit(1);
  if (!module) return failRun(svc, runId, 'The module no longer exists.');
  // The module moved to another version after this run was requested (an update within the
  // publish delay): the update requested a run of that version, which certifies what is there.
  // Running this one would certify the new definition under the old version's name (and tell
  // the module's audience twice).
  if (module.version !== run.version) {
    return failRun(svc, runId, `Superseded: the module is now at version ${module.version}, which is certified by a run of its own.`);
  }
  const actions = await svc.db
    .select()
    .from(moduleActions)
    .where(eq(moduleActions.moduleName, module.name))
    .orderBy(asc(moduleActions.position));
  const startedAt = new Date();
  await svc.db.update(certificationRuns).set({ status: 'running', startedAt }).where(eq(certificationRuns.id, runId));
  let results: CheckResults;
  try {
    results = await runChecks(svc, module, actions, startedAt.getTime() + RUN_DEADLINE_MS);
  } catch (err) {
    if (err instanceof CertificationDeadlineError)
      return failRun(svc, runId, `The run did not finish within its deadline of ${RUN_DEADLINE_MS / 1000} s.`);
    throw err;
  }
  await completeRun(svc, run, module, results);
}

async function failRun(svc: Services, runId: string, error: string): Promise<void> {
  await svc.db.update(certificationRuns).set({ status: 'failed', error, finishedAt: new Date() }).where(eq(certificationRuns.id, runId));
}

/**
 * One transaction: the run's results, the module's tier, its trust score (and any
 * `trust.score_changed`), `certification.completed` to the module's audience and, when the tier
 * moved, `certification.tier_changed`. Events wake delivery and the module cache is dropped after
 * the commit.
 */
async function completeRun(svc: Services, run: CertificationRunRow, certified: ModuleRow, results: CheckResults): Promise<void> {
  const tier = tierFor(results.checks, results.crashed);
  const checksPassed = results.checks.filter((c) => c.passed).length;
  await unitOfWork(svc, async (tx, out) => {
    const [module] = await tx
      .select({ tier: modules.certificationTier, version: modules.version, updatedAt: modules.updatedAt })
      .from(modules)
      .where(eq(modules.name, run.moduleName))
      .for('no key update');
    if (!module) return;
    const previousTier = module.tier as CertificationTier;
    const [completed] = await tx
      .update(certificationRuns)
      .set({
        status: 'completed',
        tier,
        previousTier,
        checks: results.checks,
        checksPassed,
        checksTotal: results.checks.length,
        p95Ms: results.p95Ms,
        finishedAt: new Date(),
      })
      .where(and(eq(certificationRuns.id, run.id), eq(certificationRuns.status, 'running')))
      .returning({ id: certificationRuns.id });
    // Another attempt of the same job completed it already.
    if (!completed) return;
    await tx.update(modules).set({ certificationTier: tier }).where(eq(modules.name, run.moduleName));
    // Updated while this run was under way (the update shared it): certify what is there now too.
    if (module.updatedAt.getTime() !== certified.updatedAt.getTime()) {
      await requestRun(svc, tx, {
        moduleName: run.moduleName,
        version: module.version,
        trigger: 'publish',
        tenantId: run.requestedByTenantId,
      });
    }
    const trust = await recomputeTrustScore(tx, out, run.moduleName, 'certification');
    const completedData = {
      module: run.moduleName,
      tier,
      previous_tier: previousTier,
      trust_score: trust.score,
      checks_passed: checksPassed,
      checks_total: results.checks.length,
      // The event carries the path of the report endpoint, as workflow and invoice events give theirs (docs/trust.md).
      report_url: reportPath(run.moduleName),
    };
    const direction = tierRank(tier) > tierRank(previousTier) ? 'upgrade' : 'downgrade';
    for (const tenantId of await moduleAudience(tx, run.moduleName)) {
      await out.emit(tenantId, 'certification.completed', completedData);
      if (tier !== previousTier) {
        await out.emit(tenantId, 'certification.tier_changed', { module: run.moduleName, tier, previous_tier: previousTier, direction });
      }
    }
  });
  svc.moduleCache.invalidate(run.moduleName);
  svc.logger.info(
    { module: run.moduleName, version: run.version, tier, checks_passed: checksPassed, checks_total: results.checks.length },
    'certification: run completed',
  );
}

// ---------------------------------------------------------------------------------------------
// Reading runs
// ---------------------------------------------------------------------------------------------

export function reportPath(moduleName: string): string {
  return `/api/v1/certification/${moduleName}/report`;
}

export function reportUrl(svc: Services, moduleName: string): string {
  return `${svc.config.publicBaseUrl}${reportPath(moduleName)}`;
}

export function presentRun(svc: Services, run: CertificationRunRow) {
  return {
    id: run.id,
    module: run.moduleName,
    version: run.version,
    status: run.status,
    trigger: run.trigger,
    tier: run.tier,
    previous_tier: run.previousTier,
    checks_passed: run.checksPassed,
    checks_total: run.checksTotal,
    checks: run.checks,
    p95_ms: run.p95Ms,
    error: run.error,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
    report_url: reportUrl(svc, run.moduleName),
  };
}

/**
 * GET /api/v1/certification/{module}/report: the latest completed run of a module the tenant can
 * see, with the rule that turned its checks into its tier, and the run under way if any. A module
 * never certified answers tier `none`, no checks and `ran_at: null`.
 */
export async function getReport(svc: Services, principal: Principal, name: string) {
  const found = await findVisibleModule(svc.db, principal.tenantId, name);
  if (!found) throw notFound('module');
  const latest = (statuses: CertificationRunStatus[]) =>
    svc.db
      .select()
      .from(certificationRuns)
      .where(and(eq(certificationRuns.moduleName, name), inArray(certificationRuns.status, statuses)))
      .orderBy(desc(certificationRuns.createdAt), desc(certificationRuns.id))
      .limit(1);
  const [[last], [pending]] = await Promise.all([latest(['completed']), latest(['queued', 'running'])]);
  return {
    module: name,
    version: last?.version ?? found.module.version,
    tier: last?.tier ?? 'none',
    previous_tier: last?.previousTier ?? 'none',
    trust_score: found.module.trustScore,
    checks_passed: last?.checksPassed ?? 0,
    checks_total: last?.checksTotal ?? 0,
    checks: last?.checks ?? [],
    ran_at: last?.finishedAt?.toISOString() ?? null,
    run_id: last?.id ?? null,
    p95_ms: last?.p95Ms ?? null,
    latency_budget_ms: LATENCY_BUDGET_MS,
    rule: TIER_RULE,
    pending_run: pending ? presentRun(svc, pending) : null,
  };
}

/** GET /api/v1/certification/{module}/runs: every run of the module, newest first, paginated. */
export async function listRuns(svc: Services, principal: Principal, input: { module: string; limit: number; cursor?: string }) {
  const cursor = decodeCursor(input.cursor);
  const found = await findVisibleModule(svc.db, principal.tenantId, input.module, svc.moduleCache);
  if (!found) throw notFound('module');
  const rows = await svc.db
    .select()
    .from(certificationRuns)
    .where(and(eq(certificationRuns.moduleName, input.module), beforeCursor(certificationRuns.createdAt, certificationRuns.id, cursor)))
    .orderBy(desc(certificationRuns.createdAt), desc(certificationRuns.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, (r) => presentRun(svc, r));
}
