import { and, eq, sql } from 'drizzle-orm';
import { tenantPrincipal, type Principal } from '../auth/principal';
import {
  apiKeys,
  tenants,
  workflowRuns,
  workflowRunSteps,
  type WorkflowRunRow,
  type WorkflowRunStepRow,
  type ActionStepDefinition,
} from '../db/schema';
import { MAX_OUTPUT_BYTES } from '../executions/engine';
import { executeAction } from '../executions/execute';
import { compilePolicy, expiryRefusal } from '../keys/policy-rules';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { isActionStep } from './definition';
import { advance, failRun, isActive, stepContext, stepWhere, withRunLock, type StepError } from './progress';
import { enqueueSteps, type StepJob } from './queue';
import { beginWait, wakeStep } from './waits';
import { evaluateCondition, evaluateExpression, resolveTemplate, type RunContext } from './templates';

/**
 * The step scheduler: one pg-boss job per step attempt (src/jobs/workflows.ts runs them). A step
 * moves pending -> running -> succeeded | failed (or pending again for a retry, skipped, or
 * cancelled) only by conditional UPDATEs (`WHERE status = ... AND attempts = ...`), so two
 * instances handed the same job cannot both run it. Every transition that can start or end
 * something takes the run row's lock first: a step's completion, the jobs of the steps it
 * unblocks and the run's end (with its event) commit together, and two parents finishing at
 * once cannot both miss, or both enqueue, their join.
 */

/** Times a step found abandoned by a dead worker is run again before it fails as `interrupted`. */
export const MAX_INTERRUPTIONS = 3;
const RETRYABLE = new Set(['module_error', 'timeout', 'interrupted', 'internal_error', 'unavailable']);
/** A step refused admission (all the tenant's slots held) waits this long and tries again, uncounted. */
const ADMISSION_RETRY_MS = 1000;

type Attempt = { ok: true; output: unknown; executionId: string } | { ok: false; error: StepError; executionId?: string };

export async function runStepJob(svc: Services, job: StepJob): Promise<void> {
  const [run] = await svc.db.select().from(workflowRuns).where(eq(workflowRuns.id, job.runId));
  if (!run || !isActive(run)) return;
  const def = run.steps.find((s) => s.id === job.stepId);
  const rows = await svc.db.select().from(workflowRunSteps).where(eq(workflowRunSteps.runId, run.id));
  const row = rows.find((r) => r.stepId === job.stepId);
  if (!def || !row) return;
  if (row.status === 'waiting' && row.attempts === job.attempt) return wakeStep(svc, job, run, row);
  const fresh = row.status === 'pending' && row.attempts === job.attempt - 1;
  // The job ran before and its worker died mid-attempt (pg-boss hands an expired job out again).
  const abandoned = row.status === 'running' && row.attempts === job.attempt;
  if (!fresh && !abandoned) return;
  const from = fresh ? 'pending' : 'running';

  if (Date.now() > run.deadlineAt.getTime()) {
    return failStep(
      svc,
      job,
      from,
      { code: 'timeout', message: 'The run exceeded its wall time (WORKFLOW_MAX_RUN_MS).' },
      undefined,
      false,
    );
  }
  if (abandoned && row.interruptions >= MAX_INTERRUPTIONS) {
    return failStep(
      svc,
      job,
      'running',
      { code: 'interrupted', message: 'The service stopped while the step was running, too many times.' },
      undefined,
      false,
    );
  }

  const context = stepContext(run, rows, def.id);
  if (fresh && job.attempt === 1 && def.if !== undefined) {
    let go: boolean;
    try {
      go = await evaluateCondition(svc, run.tenantId, def.if, context);
    } catch (err) {
      return failStep(
        svc,
        job,
        'pending',
        { code: 'invalid_input', message: `Step '${def.id}' if: ${(err as Error).message}` },
        undefined,
        false,
      );
    }
    if (!go) return skipStep(svc, job);
  }
  if (!isActionStep(def)) return fresh ? beginWait(svc, job, def, context) : undefined;
  let input: Record<string, unknown>;
  try {
    input = await resolveInput(svc, run.tenantId, def, context);
  } catch (err) {
    return failStep(svc, job, from, { code: 'invalid_input', message: `Step '${def.id}': ${(err as Error).message}` }, undefined, false);
  }

  const claimed = await claimStep(svc, job, row, input, abandoned);
  if (!claimed) return;
  const attempt = await attemptStep(svc, claimed.run, def, input);
  if (attempt.ok) return completeStep(svc, job, attempt.output, attempt.executionId);
  if (attempt.error.code === 'concurrency_limit_exceeded') return requeueStep(svc, job, attempt.error);
  const policy = def.retry ?? { max_attempts: 1, backoff_ms: 0, backoff: 'fixed' as const };
  const retry = RETRYABLE.has(attempt.error.code) && job.attempt < policy.max_attempts;
  return failStep(svc, job, 'running', attempt.error, attempt.executionId, retry ? backoffMs(policy, job.attempt) : false);
}

export function backoffMs(policy: NonNullable<ActionStepDefinition['retry']>, attempt: number): number {
  const ms = policy.backoff === 'fixed' ? policy.backoff_ms : policy.backoff_ms * 2 ** (attempt - 1);
  return Math.min(ms, 3_600_000);
}

async function resolveInput(
  svc: Services,
  tenantId: string,
  def: ActionStepDefinition,
  context: RunContext,
): Promise<Record<string, unknown>> {
  const resolved = resolveTemplate(def.input, context) as Record<string, unknown>;
  let input = resolved;
  if (def.map !== undefined) {
    const mapped = await evaluateExpression(svc, tenantId, def.map, context);
    if (mapped !== undefined && (typeof mapped !== 'object' || mapped === null || Array.isArray(mapped))) {
      throw new Error('map must produce an object (merged over the input).');
    }
    // jsonata results carry a non-enumerable `sequence` marker; JSON drops it.
    input = { ...resolved, ...(mapped ? (JSON.parse(JSON.stringify(mapped)) as Record<string, unknown>) : {}) };
  }
  if (Buffer.byteLength(JSON.stringify(input)) > MAX_OUTPUT_BYTES) throw new Error('The resolved input exceeds 1 MiB.');
  return input;
}

/** pending -> running (or a running step abandoned by a dead worker, taken over once). */
async function claimStep(svc: Services, job: StepJob, row: WorkflowRunStepRow, input: Record<string, unknown>, abandoned: boolean) {
  return withRunLock(svc, job.runId, async (tx, run) => {
    if (!isActive(run)) return undefined;
    const [claimed] = abandoned
      ? await tx
          .update(workflowRunSteps)
          .set({ interruptions: sql`${workflowRunSteps.interruptions} + 1`, input })
          .where(and(stepWhere(job, 'running', job.attempt), eq(workflowRunSteps.interruptions, row.interruptions)))
          .returning()
      : await tx
          .update(workflowRunSteps)
          .set({
            status: 'running',
            attempts: job.attempt,
            input,
            error: null,
            startedAt: sql`coalesce(${workflowRunSteps.startedAt}, now())`,
          })
          .where(stepWhere(job, 'pending', job.attempt - 1))
          .returning();
    if (!claimed) return undefined;
    if (run.status === 'queued') {
      await tx
        .update(workflowRuns)
        .set({ status: 'running', startedAt: new Date(), updatedAt: new Date() })
        .where(eq(workflowRuns.id, run.id));
    }
    return { run, step: claimed };
  });
}

/**
 * The step's principal: the tenant as it is now (plan, terms), with the scopes of the key that
 * started the run and that key's policy as it is now (docs/policies.md), so narrowing a key also
 * narrows the runs it started.
 */
async function runPrincipal(svc: Services, run: WorkflowRunRow): Promise<Principal | undefined> {
  const [[tenant], [key]] = await Promise.all([
    svc.db.select().from(tenants).where(eq(tenants.id, run.tenantId)),
    run.keyId ? svc.db.select({ policy: apiKeys.policy }).from(apiKeys).where(eq(apiKeys.id, run.keyId)) : [],
  ]);
  if (!tenant) return undefined;
  const principal = tenantPrincipal(tenant, run.scopes, run.keyId ? 'api_key' : 'bearer');
  if (run.keyId) principal.keyId = run.keyId;
  const policy = compilePolicy(key?.policy);
  if (policy) principal.policy = policy;
  return principal;
}

/**
 * One execution through executeAction. The step's timeout_ms is the execution's own deadline:
 * the run is stopped there and the execution fails with `timeout` (recorded, listed in the
 * step's execution_ids), so a retry never overlaps an attempt still running.
 */
async function attemptStep(
  svc: Services,
  run: WorkflowRunRow,
  def: ActionStepDefinition,
  input: Record<string, unknown>,
): Promise<Attempt> {
  const principal = await runPrincipal(svc, run);
  if (!principal) return { ok: false, error: { code: 'not_found', message: 'The tenant no longer exists.' } };
  const expired = expiryRefusal(principal.policy, Date.now());
  if (expired) return { ok: false, error: { code: 'policy_denied', message: expired.message } };
  const options = {
    requestId: run.requestId,
    source: 'workflow' as const,
    ...(def.timeout_ms === undefined ? {} : { deadlineMs: def.timeout_ms }),
  };
  return executeAction(svc, principal, { module: def.module, action: def.action, input }, options).then(
    (done): Attempt => ({ ok: true, output: done.output ?? null, executionId: done.execution_id }),
    (err: unknown): Attempt => {
      if (!(err instanceof AppError)) throw err;
      const record = err.details.execution as { execution_id?: string } | undefined;
      return { ok: false, error: { code: err.code, message: err.message }, executionId: record?.execution_id };
    },
  );
}

const appendExecution = (executionId: string | undefined) =>
  executionId ? sql`array_append(${workflowRunSteps.executionIds}, ${executionId})` : sql`${workflowRunSteps.executionIds}`;

/** running -> succeeded; then what it unblocks, in the same transaction. */
async function completeStep(svc: Services, job: StepJob, output: unknown, executionId: string): Promise<void> {
  await withRunLock(svc, job.runId, async (tx, run, out) => {
    const [done] = await tx
      .update(workflowRunSteps)
      .set({ status: 'succeeded', output: output ?? null, error: null, executionIds: appendExecution(executionId), finishedAt: new Date() })
      .where(stepWhere(job, 'running', job.attempt))
      .returning();
    if (done && isActive(run)) await advance(svc, tx, out, run);
  });
}

/** An `if` that is false: pending -> skipped, and its dependents with it (in advance). */
async function skipStep(svc: Services, job: StepJob): Promise<void> {
  await withRunLock(svc, job.runId, async (tx, run, out) => {
    if (!isActive(run)) return;
    const [skipped] = await tx
      .update(workflowRunSteps)
      .set({ status: 'skipped', finishedAt: new Date() })
      .where(stepWhere(job, 'pending', 0))
      .returning();
    if (skipped) await advance(svc, tx, out, run);
  });
}

/** Refused admission (no free slot): back to pending, the attempt not counted, tried again shortly. */
async function requeueStep(svc: Services, job: StepJob, error: StepError): Promise<void> {
  await withRunLock(svc, job.runId, async (tx, run, out) => {
    const [back] = await tx
      .update(workflowRunSteps)
      .set({
        status: isActive(run) ? 'pending' : 'cancelled',
        attempts: job.attempt - 1,
        error,
        finishedAt: isActive(run) ? null : new Date(),
      })
      .where(stepWhere(job, 'running', job.attempt))
      .returning();
    if (back && isActive(run)) await enqueueSteps(svc, out, run, [{ ...job, delayMs: ADMISSION_RETRY_MS }]);
  });
}

/**
 * A failed attempt: with `retryInMs`, back to pending and the next attempt enqueued after the
 * backoff; otherwise the step fails, and with it the run (`workflow.failed`).
 */
async function failStep(
  svc: Services,
  job: StepJob,
  from: 'pending' | 'running',
  error: StepError,
  executionId: string | undefined,
  retryInMs: number | false,
): Promise<void> {
  await withRunLock(svc, job.runId, async (tx, run, out) => {
    const active = isActive(run);
    const retry = retryInMs !== false && active;
    const [step] = await tx
      .update(workflowRunSteps)
      .set({
        status: retry ? 'pending' : 'failed',
        attempts: job.attempt,
        error,
        executionIds: appendExecution(executionId),
        finishedAt: retry ? null : new Date(),
      })
      .where(stepWhere(job, from, from === 'pending' ? job.attempt - 1 : job.attempt))
      .returning();
    if (!step || !active) return;
    if (retry) await enqueueSteps(svc, out, run, [{ runId: job.runId, stepId: job.stepId, attempt: job.attempt + 1, delayMs: retryInMs }]);
    else await failRun(tx, out, run, job.stepId, error);
  });
}
