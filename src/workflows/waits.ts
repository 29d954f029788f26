import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Tx } from '../db';
import {
  workflowRuns,
  workflowRunSteps,
  type StepDecision,
  type StepWait,
  type WaitingStepDefinition,
  type WorkflowRunStepRow,
} from '../db/schema';
import { AppError, conflict, invalidRequest, notFound } from '../lib/errors';
import type { Services } from '../services';
import { advance, failRun, isActive, stepContext, stepWhere, withRunLock, type StepError } from './progress';
import { unitOfWork } from '../outbox';
import { enqueueSteps, type StepJob } from './queue';
import { findRun, getRun } from './runs';
import { durationMs } from './schema';
import { evaluateCondition, resolveTemplate, type RunContext } from './templates';

/**
 * The steps that wait (sleep, wait_for_event, approval). A waiting step holds nothing: no worker,
 * no connection, no execution. Its row says what it waits for (`wait`) and until when (`wake_at`);
 * a delayed job on the step queue wakes it then (and a sweep every half minute wakes any that
 * are due, whatever happened to their job). An event or a decision ends the wait earlier. Every
 * end of a wait is one conditional UPDATE from `waiting` under the run's lock, so a decision, a
 * matching event and the timeout racing each other end it exactly once.
 */

type Outcome = { ok: true; output: unknown } | { ok: false; error: StepError };

/** What the step will wait for, from its definition and the run's context; a string is why it cannot. */
function waitOf(def: WaitingStepDefinition, context: RunContext, now: Date): { wait: StepWait; wakeAt: Date } | string {
  const after = (d: string) => new Date(now.getTime() + durationMs(d));
  switch (def.kind) {
    case 'sleep': {
      if (def.for !== undefined) {
        const wakeAt = after(def.for);
        return { wait: { kind: 'sleep', until: wakeAt.toISOString() }, wakeAt };
      }
      const value = resolveTemplate(def.until, context);
      const wakeAt = typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date(NaN);
      if (Number.isNaN(wakeAt.getTime())) return `until resolved to ${JSON.stringify(value ?? null)}, which is not an ISO 8601 time.`;
      return { wait: { kind: 'sleep', until: wakeAt.toISOString() }, wakeAt };
    }
    case 'wait_for_event': {
      const wakeAt = after(def.timeout);
      const wait = {
        kind: 'event' as const,
        event: def.event,
        match: def.match ?? null,
        timeout_at: wakeAt.toISOString(),
        on_timeout: def.on_timeout ?? 'fail',
      };
      return { wait, wakeAt };
    }
    case 'approval': {
      const wakeAt = after(def.timeout);
      const prompt = resolveTemplate(def.prompt, context);
      const wait = {
        kind: 'approval' as const,
        prompt: typeof prompt === 'string' ? prompt : JSON.stringify(prompt ?? null),
        approvers: def.approvers ?? [],
        timeout_at: wakeAt.toISOString(),
      };
      return { wait, wakeAt };
    }
  }
}

/**
 * A waiting step's first job: pending -> waiting, with a delayed job for its wake-up; an approval
 * also records `workflow.waiting` (in the same transaction).
 */
export async function beginWait(svc: Services, job: StepJob, def: WaitingStepDefinition, context: RunContext): Promise<void> {
  const now = new Date();
  const planned = waitOf(def, context, now);
  if (typeof planned === 'string') {
    await endWait(
      svc,
      job.runId,
      job.stepId,
      { status: 'pending', attempts: 0 },
      { ok: false, error: { code: 'invalid_input', message: `Step '${def.id}': ${planned}` } },
      now,
    );
    return;
  }
  const { wait, wakeAt } = planned;
  await withRunLock(svc, job.runId, async (tx, run, out) => {
    if (!isActive(run)) return;
    const [waiting] = await tx
      .update(workflowRunSteps)
      .set({
        status: 'waiting',
        attempts: 1,
        wait,
        waitEvent: wait.kind === 'event' ? wait.event : null,
        wakeAt,
        startedAt: now,
      })
      .where(stepWhere(job, 'pending', 0))
      .returning();
    if (!waiting) return;
    if (run.status === 'queued')
      await tx.update(workflowRuns).set({ status: 'running', startedAt: now, updatedAt: now }).where(eq(workflowRuns.id, run.id));
    await enqueueSteps(svc, out, run, [
      { runId: job.runId, stepId: job.stepId, attempt: 1, delayMs: Math.max(0, wakeAt.getTime() - now.getTime()) },
    ]);
    if (wait.kind === 'approval') {
      await out.emit(run.tenantId, 'workflow.waiting', {
        workflow_id: run.workflowId,
        run_id: run.id,
        workflow_version: run.workflowVersion,
        step: def.id,
        kind: 'approval',
        prompt: wait.prompt,
        approvers: wait.approvers,
        timeout_at: wait.timeout_at,
        run_url: `/api/v1/workflows/${run.workflowId}/runs/${run.id}`,
        approve_url: `/api/v1/workflows/${run.workflowId}/runs/${run.id}/steps/${def.id}/approve`,
        reject_url: `/api/v1/workflows/${run.workflowId}/runs/${run.id}/steps/${def.id}/reject`,
      });
    }
  });
}

/** What a wait that reached its `wake_at` ends with: a sleep succeeds, a wait times out. */
function onWake(row: WorkflowRunStepRow): Outcome {
  const wait = row.wait!;
  if (wait.kind === 'sleep') return { ok: true, output: { slept_until: wait.until } };
  if (wait.kind === 'event' && wait.on_timeout === 'continue') return { ok: true, output: null };
  const what = wait.kind === 'event' ? `No matching ${wait.event} event` : 'No decision';
  return { ok: false, error: { code: 'timeout', message: `${what} before ${wait.timeout_at}.` } };
}

/**
 * The wake-up job of a waiting step (or the sweep): ends the wait when it is due by `now`; a job
 * that came early (the database's clock ahead of ours) is put off to the remaining time.
 */
export async function wakeStep(
  svc: Services,
  job: StepJob,
  run: { tenantId: string; priority: number },
  row: WorkflowRunStepRow,
  now = new Date(),
): Promise<void> {
  if (!row.wakeAt || !row.wait) return;
  const wakeAt = row.wakeAt;
  if (wakeAt.getTime() > now.getTime()) {
    await unitOfWork(svc, (_tx, out) => enqueueSteps(svc, out, run, [{ ...job, delayMs: wakeAt.getTime() - now.getTime() }]));
    return;
  }
  await endWait(svc, job.runId, job.stepId, { status: 'waiting', attempts: row.attempts }, onWake(row), now);
}

/** Wakes every waiting step whose `wake_at` has passed by `now` (at most `limit`); how many it ended. */
export async function wakeDueSteps(svc: Services, now = new Date(), limit = 200): Promise<number> {
  const s = workflowRunSteps;
  const due = await svc.db
    .select()
    .from(s)
    .where(and(eq(s.status, 'waiting'), lte(s.wakeAt, now)))
    .orderBy(asc(s.wakeAt))
    .limit(limit);
  let ended = 0;
  for (const row of due) {
    if (await endWait(svc, row.runId, row.stepId, { status: 'waiting', attempts: row.attempts }, onWake(row), now)) ended++;
  }
  return ended;
}

/**
 * Ends a wait (or a wait that could not begin): the step succeeds or fails, the run's deadline
 * moves by the time it waited (waiting does not use the run's wall time), and the run goes on
 * or fails, all under the run's lock. `also` writes in the same transaction (an audit row).
 * False when the step was no longer in `from` (another ending won) or the run has ended.
 */
async function endWait(
  svc: Services,
  runId: string,
  stepId: string,
  from: { status: 'pending' | 'waiting'; attempts: number },
  outcome: Outcome,
  now: Date,
  extra: { decision?: StepDecision; also?: (tx: Tx) => Promise<void> } = {},
): Promise<boolean> {
  const ended = await withRunLock(svc, runId, async (tx, run, out) => {
    if (!isActive(run)) return false;
    const [step] = await tx
      .update(workflowRunSteps)
      .set({
        status: outcome.ok ? 'succeeded' : 'failed',
        attempts: Math.max(from.attempts, 1),
        output: outcome.ok ? (outcome.output ?? null) : null,
        error: outcome.ok ? null : outcome.error,
        decision: extra.decision ?? null,
        startedAt: sql`coalesce(${workflowRunSteps.startedAt}, ${now})`,
        finishedAt: now,
      })
      .where(stepWhere({ runId, stepId }, from.status, from.attempts))
      .returning();
    if (!step) return false;
    const waited = step.startedAt ? Math.max(0, now.getTime() - step.startedAt.getTime()) : 0;
    const deadlineAt = new Date(run.deadlineAt.getTime() + waited);
    await tx.update(workflowRuns).set({ deadlineAt, updatedAt: now }).where(eq(workflowRuns.id, run.id));
    await extra.also?.(tx);
    if (outcome.ok) await advance(svc, tx, out, { ...run, deadlineAt });
    else await failRun(tx, out, run, stepId, outcome.error);
    return true;
  });
  return ended === true;
}

/** The tenant's run's step, with its definition; 404 for any of them missing. */
async function findStep(svc: Services, tenantId: string, workflowId: string, runId: string, stepId: string) {
  const run = await findRun(svc.db, tenantId, workflowId, runId);
  const def = run.steps.find((s) => s.id === stepId);
  const [row] = def
    ? await svc.db
        .select()
        .from(workflowRunSteps)
        .where(and(eq(workflowRunSteps.runId, runId), eq(workflowRunSteps.stepId, stepId)))
    : [];
  if (!def || !row) throw notFound('step');
  return { run, def, row };
}

/** Whether the principal is one of the step's approvers (any caller with the scope when it names none). */
function mayDecide(principal: Principal, approvers: string[]): boolean {
  if (approvers.length === 0) return true;
  const member = principal.member;
  if (!member) return false;
  return approvers.some((a) => (a.includes('@') ? a.toLowerCase() === member.email.toLowerCase() : a === member.role));
}

/**
 * POST .../runs/{run_id}/steps/{step}/approve|reject: decides an approval step that is waiting.
 * Approved, the step succeeds with the decision as its output and the run goes on; rejected, the
 * step fails with `rejected` and the run with it. 409 once the step is no longer waiting
 * (decided, timed out, or the run ended); 403 `forbidden` for a caller who is not an approver.
 */
export async function decideApproval(
  svc: Services,
  principal: Principal,
  input: { id: string; run_id: string; step: string; comment?: string },
  decision: StepDecision['decision'],
) {
  const { def, row } = await findStep(svc, principal.tenantId, input.id, input.run_id, input.step);
  if (def.kind !== 'approval')
    throw invalidRequest(`Step '${def.id}' is not an approval step.`, [{ path: 'step', message: 'not an approval step' }]);
  if (row.status !== 'waiting' || row.wait?.kind !== 'approval')
    throw conflict(`Step '${def.id}' is not waiting for a decision (${row.status}).`);
  if (!mayDecide(principal, row.wait.approvers)) {
    throw new AppError('forbidden', `Only ${row.wait.approvers.join(', ')} may decide step '${def.id}'.`, {
      reason: 'not_an_approver',
      approvers: row.wait.approvers,
    });
  }
  const now = new Date();
  const comment = input.comment?.trim() ? input.comment.trim() : null;
  const by = principal.member
    ? { type: 'user', id: principal.member.userId, email: principal.member.email }
    : { type: 'api_key', id: principal.keyId ?? null };
  const record: StepDecision = { decision, comment, by, decided_at: now.toISOString() };
  const outcome: Outcome =
    decision === 'approved'
      ? { ok: true, output: { approved: true, comment, by, decided_at: record.decided_at } }
      : {
          ok: false,
          error: { code: 'rejected', message: `Rejected by ${'email' in by ? by.email : 'an API key'}${comment ? `: ${comment}` : '.'}` },
        };
  const ended = await endWait(svc, input.run_id, def.id, { status: 'waiting', attempts: row.attempts }, outcome, now, {
    decision: record,
    also: (tx) =>
      recordAudit(tx, principal.tenantId, {
        action: decision === 'approved' ? 'workflow.step_approved' : 'workflow.step_rejected',
        target: { type: 'workflow_run', id: input.run_id },
        changes: { workflow_id: input.id, step: def.id, comment },
      }),
  });
  if (!ended) throw conflict(`Step '${def.id}' is no longer waiting for a decision.`);
  return getRun(svc, principal, input.id, input.run_id);
}

/** The approval steps of a run (as getRun presents it) that wait for a decision. */
export function pendingApprovals(steps: { id: string; status: string; wait: StepWait | null }[]) {
  return steps.flatMap((s) =>
    s.status === 'waiting' && s.wait?.kind === 'approval'
      ? [{ step: s.id, prompt: s.wait.prompt, approvers: s.wait.approvers, timeout_at: s.wait.timeout_at }]
      : [],
  );
}

/**
 * Resumes the steps waiting for this event: each of the tenant's waiting steps for its kind, that
 * began waiting before it and whose `match` accepts it, succeeds with the event as its output.
 * A `match` that fails to evaluate fails its step (it would otherwise wait on silently).
 */
export async function resumeWaitingSteps(
  svc: Services,
  event: { id: string; tenantId: string; type: string; data: unknown; createdAt: Date },
): Promise<number> {
  const s = workflowRunSteps;
  const waiting = await svc.db
    .select()
    .from(s)
    .where(and(eq(s.tenantId, event.tenantId), eq(s.waitEvent, event.type), eq(s.status, 'waiting'), lte(s.startedAt, event.createdAt)));
  const payload = { id: event.id, type: event.type, data: event.data, created_at: event.createdAt.toISOString() };
  let resumed = 0;
  for (const row of waiting) {
    const wait = row.wait;
    if (wait?.kind !== 'event') continue;
    let outcome: Outcome | undefined = { ok: true, output: payload };
    if (wait.match) {
      const [run] = await svc.db.select().from(workflowRuns).where(eq(workflowRuns.id, row.runId));
      if (!run) continue;
      const rows = await svc.db.select().from(s).where(eq(s.runId, run.id));
      try {
        const context = { ...stepContext(run, rows, row.stepId), event: payload };
        if (!(await evaluateCondition(svc, event.tenantId, wait.match, context))) outcome = undefined;
      } catch (err) {
        outcome = { ok: false, error: { code: 'invalid_input', message: `Step '${row.stepId}' match: ${(err as Error).message}` } };
      }
    }
    if (outcome && (await endWait(svc, row.runId, row.stepId, { status: 'waiting', attempts: row.attempts }, outcome, new Date())))
      resumed++;
  }
  return resumed;
}
