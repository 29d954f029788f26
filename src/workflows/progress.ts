import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../db';
import { workflowRuns, workflowRunSteps, type WorkflowRunRow, type WorkflowRunStepRow } from '../db/schema';
import { unitOfWork, type Outbox } from '../outbox';
import type { Services } from '../services';
import { ancestorsOf } from './definition';
import { enqueueSteps } from './queue';
import type { RunContext } from './templates';

/**
 * How a run moves forward, whatever kind of step moved it: the run row's lock every transition
 * holds, what a finished step unblocks, and the run's end with its event. The action steps
 * (scheduler.ts) and the waiting steps (waits.ts) both go through here.
 */

export type StepError = { code: string; message: string };

/** A run that has not ended: queued (waiting its turn or its first step) or running. */
export const isActiveStatus = (status: WorkflowRunRow['status']) => status === 'queued' || status === 'running';
export const isActive = (run: WorkflowRunRow) => isActiveStatus(run.status);

/**
 * What a step's templates and expressions read: the run's input and its ancestors' outputs only.
 * Validation on save refuses a reference to any other step, but an expression can reach the
 * context without naming a step (`**`, `$$`, `$eval`, `%`); a sibling's output, present or not
 * depending on timing, is never in it.
 */
export function stepContext(run: WorkflowRunRow, rows: WorkflowRunStepRow[], stepId: string): RunContext {
  const ancestors = ancestorsOf(run.steps).get(stepId) ?? new Set<string>();
  const steps: RunContext['steps'] = {};
  for (const r of rows) if (r.status === 'succeeded' && ancestors.has(r.stepId)) steps[r.stepId] = { output: r.output };
  return { input: run.input as Record<string, unknown>, steps };
}

/** Runs `fn` in a unit of work holding the run row's lock; nothing when the run is gone. */
export async function withRunLock<T>(
  svc: Services,
  runId: string,
  fn: (tx: Tx, run: WorkflowRunRow, out: Outbox) => Promise<T>,
): Promise<T | undefined> {
  return unitOfWork(svc, async (tx, out) => {
    const [run] = await tx.select().from(workflowRuns).where(eq(workflowRuns.id, runId)).for('update');
    return run ? fn(tx, run, out) : undefined;
  });
}

/** The step row of `step` in `status` after `attempts` attempts (the condition of every transition). */
export const stepWhere = (step: { runId: string; stepId: string }, status: WorkflowRunStepRow['status'], attempts: number) =>
  and(
    eq(workflowRunSteps.runId, step.runId),
    eq(workflowRunSteps.stepId, step.stepId),
    eq(workflowRunSteps.status, status),
    eq(workflowRunSteps.attempts, attempts),
  );

export async function failRun(tx: Tx, out: Outbox, run: WorkflowRunRow, stepId: string, error: StepError): Promise<void> {
  const now = new Date();
  await tx
    .update(workflowRuns)
    .set({ status: 'failed', error: { step: stepId, ...error }, finishedAt: now, updatedAt: now })
    .where(eq(workflowRuns.id, run.id));
  // Steps in flight in other branches finish and record their outcome; nothing new starts, and
  // nothing waits on.
  await tx
    .update(workflowRunSteps)
    .set({ status: 'cancelled', finishedAt: now })
    .where(and(eq(workflowRunSteps.runId, run.id), inArray(workflowRunSteps.status, ['pending', 'waiting'])));
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
      out,
      run,
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
