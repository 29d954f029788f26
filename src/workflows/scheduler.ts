import { and, eq, inArray, sql } from 'drizzle-orm';
import { tenantPrincipal, type Principal } from '../auth/principal';
import type { Tx } from '../db';
import {
  apiKeys,
  tenants,
  workflowRuns,
  workflowRunSteps,
  type WorkflowRunRow,
  type WorkflowRunStepRow,
  type WorkflowStepDefinition,
} from '../db/schema';
import { MAX_OUTPUT_BYTES } from '../executions/engine';
import { executeAction } from '../executions/execute';
import { compilePolicy, expiryRefusal } from '../keys/policy-rules';
import { AppError } from '../lib/errors';
import { unitOfWork, type Outbox } from '../outbox';
import type { Services } from '../services';
import { ancestorsOf } from './definition';
import { enqueueSteps, type StepJob } from './queue';
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

type StepError = { code: string; message: string };
type Attempt = { ok: true; output: unknown; executionId: string } | { ok: false; error: StepError; executionId?: string };

const ACTIVE = ['queued', 'running'] as const;
const isActive = (run: WorkflowRunRow) => (ACTIVE as readonly string[]).includes(run.status);

export async function runStepJob(svc: Services, job: StepJob): Promise<void> {
  const [run] = await svc.db.select().from(workflowRuns).where(eq(workflowRuns.id, job.runId));
  if (!run || !isActive(run)) return;
  const def = run.steps.find((s) => s.id === job.stepId);
  const rows = await svc.db.select().from(workflowRunSteps).where(eq(workflowRunSteps.runId, run.id));
  const row = rows.find((r) => r.stepId === job.stepId);
  if (!def || !row) return;
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

  const context = runContext(run, rows, def.id);
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

export function backoffMs(policy: NonNullable<WorkflowStepDefinition['retry']>, attempt: number): number {
  const ms = policy.backoff === 'fixed' ? policy.backoff_ms : policy.backoff_ms * 2 ** (attempt - 1);
  return Math.min(ms, 3_600_000);
}

/**
 * What a step's templates and expressions read: the run's input and its ancestors' outputs only.
 * Validation on save refuses a reference to any other step, but an expression can reach the
 * context without naming a step (`**`, `$$`, `$eval`, `%`); a sibling's output, present or not
 * depending on timing, is never in it.
 */
function runContext(run: WorkflowRunRow, rows: WorkflowRunStepRow[], stepId: string): RunContext {
  const ancestors = ancestorsOf(run.steps).get(stepId) ?? new Set<string>();
  const steps: RunContext['steps'] = {};
  for (const r of rows) if (r.status === 'succeeded' && ancestors.has(r.stepId)) steps[r.stepId] = { output: r.output };
  return { input: run.input as Record<string, unknown>, steps };
}

async function resolveInput(
  svc: Services,
  tenantId: string,
  def: WorkflowStepDefinition,
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

/** Runs `fn` in a unit of work holding the run row's lock; nothing when the run is gone. */
async function withRunLock<T>(
  svc: Services,
  runId: string,
  fn: (tx: Tx, run: WorkflowRunRow, out: Outbox) => Promise<T>,
): Promise<T | undefined> {
  return unitOfWork(svc, async (tx, out) => {
    const [run] = await tx.select().from(workflowRuns).where(eq(workflowRuns.id, runId)).for('update');
    return run ? fn(tx, run, out) : undefined;
  });
}

const stepWhere = (job: StepJob, status: WorkflowRunStepRow['status'], attempts: number) =>
  and(
    eq(workflowRunSteps.runId, job.runId),
    eq(workflowRunSteps.stepId, job.stepId),
    eq(workflowRunSteps.status, status),
    eq(workflowRunSteps.attempts, attempts),
  );

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
  def: WorkflowStepDefinition,
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
  await withRunLock(svc, job.runId, async (tx, run) => {
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
    if (back && isActive(run)) await enqueueSteps(svc, tx, [{ ...job, delayMs: ADMISSION_RETRY_MS }]);
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
    if (retry) await enqueueSteps(svc, tx, [{ runId: job.runId, stepId: job.stepId, attempt: job.attempt + 1, delayMs: retryInMs }]);
    else await failRun(tx, out, run, job.stepId, error);
  });
}

async function failRun(tx: Tx, out: Outbox, run: WorkflowRunRow, stepId: string, error: StepError): Promise<void> {
  const now = new Date();
  await tx
    .update(workflowRuns)
    .set({ status: 'failed', error: { step: stepId, ...error }, finishedAt: now, updatedAt: now })
    .where(eq(workflowRuns.id, run.id));
  // Steps in flight in other branches finish and record their outcome; nothing new starts.
  await tx
    .update(workflowRunSteps)
    .set({ status: 'cancelled', finishedAt: now })
    .where(and(eq(workflowRunSteps.runId, run.id), eq(workflowRunSteps.status, 'pending')));
  const completed = await tx
    .select({ id: workflowRunSteps.stepId })
    .from(workflowRunSteps)
    .where(and(eq(workflowRunSteps.runId, run.id), eq(workflowRunSteps.status, 'succeeded')));
  await out.emit(run.tenantId, 'workflow.failed', {
    workflow_id: run.workflowId,
    run_id: run.id,
    workflow_version: run.workflowVersion,
    status: 'failed',
    failed_step: stepId,
    error,
    completed_steps: completed.map((c) => c.id),
    failed_at: now.toISOString(),
  });
}

/**
 * After a step succeeded or was skipped (inside the run's lock): skips the steps below a skipped
 * one, enqueues the steps whose dependencies all succeeded (each once: `scheduled_at`), and
 * completes the run when every step is done.
 */
export async function advance(svc: Services, tx: Tx, out: Outbox, run: WorkflowRunRow): Promise<void> {
  const rows = await tx.select().from(workflowRunSteps).where(eq(workflowRunSteps.runId, run.id));
  const status = new Map(rows.map((r) => [r.stepId, r.status]));
  const scheduled = new Set(rows.filter((r) => r.scheduledAt).map((r) => r.stepId));
  const toSkip: string[] = [];
  const toStart: string[] = [];
  for (let changed = true; changed;) {
    changed = false;
    for (const def of run.steps) {
      if (status.get(def.id) !== 'pending' || scheduled.has(def.id)) continue;
      const deps = (def.depends_on ?? []).map((d) => status.get(d));
      if (deps.some((d) => d === 'skipped')) {
        status.set(def.id, 'skipped');
        toSkip.push(def.id);
        changed = true;
      } else if (deps.every((d) => d === 'succeeded')) {
        scheduled.add(def.id);
        toStart.push(def.id);
      }
    }
  }
  const now = new Date();
  if (toSkip.length > 0) {
    await tx
      .update(workflowRunSteps)
      .set({ status: 'skipped', finishedAt: now })
      .where(and(eq(workflowRunSteps.runId, run.id), inArray(workflowRunSteps.stepId, toSkip), eq(workflowRunSteps.status, 'pending')));
  }
  if (toStart.length > 0) {
    await tx
      .update(workflowRunSteps)
      .set({ scheduledAt: now })
      .where(and(eq(workflowRunSteps.runId, run.id), inArray(workflowRunSteps.stepId, toStart)));
    await enqueueSteps(
      svc,
      tx,
      toStart.map((stepId) => ({ runId: run.id, stepId, attempt: 1 })),
    );
  }
  if (![...status.values()].every((s) => s === 'succeeded' || s === 'skipped')) return;
  const dependedOn = new Set(run.steps.flatMap((s) => s.depends_on ?? []));
  const outputs: Record<string, unknown> = {};
  for (const r of rows) if (!dependedOn.has(r.stepId) && status.get(r.stepId) === 'succeeded') outputs[r.stepId] = r.output;
  await tx
    .update(workflowRuns)
    .set({ status: 'completed', output: outputs, finishedAt: now, updatedAt: now })
    .where(eq(workflowRuns.id, run.id));
  await out.emit(run.tenantId, 'workflow.completed', {
    workflow_id: run.workflowId,
    run_id: run.id,
    workflow_version: run.workflowVersion,
    status: 'completed',
    ...eventOutputs(outputs),
    run_url: `/api/v1/workflows/${run.workflowId}/runs/${run.id}`,
    duration_ms: Math.max(0, now.getTime() - run.createdAt.getTime()),
    completed_at: now.toISOString(),
  });
}

/** Outputs travel in the event up to 48 KB (the envelope's cap is 64 KB); larger ones are read from the run. */
const EVENT_OUTPUTS_BYTES = 48 * 1024;
function eventOutputs(outputs: Record<string, unknown>) {
  return Buffer.byteLength(JSON.stringify(outputs)) > EVENT_OUTPUTS_BYTES ? { outputs: {}, outputs_truncated: true } : { outputs };
}
