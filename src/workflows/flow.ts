import { and, asc, count, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../db';
import { workflowRuns, workflows, type WorkflowFlow, type WorkflowRow, type WorkflowRunRow } from '../db/schema';
import type { Services } from '../services';
import { unitOfWork, type Outbox } from '../outbox';
import { advance } from './progress';
import { durationMs } from './schema';
import { checkTemplate } from './definition';
import { resolveTemplate } from './templates';

/**
 * Flow control of a workflow's runs: `concurrency` (runs in progress at once), `throttle` (runs
 * started per sliding period) and `debounce` (a burst of starts becomes one run, with the last
 * input), each counted per key (a template over the run's input). A run the flow holds back is
 * `queued` with no step started (`admitted_at` null); admission, under the workflow row's lock,
 * starts the oldest runs the flow allows: when a run starts, and on every instance's sweep (each
 * second), which also starts the runs freed by a finished run, an elapsed window or a quiet
 * debounce period.
 */

/** The flow a definition asks for (null without one); its key templates may read the input only. */
export function flowOf(input: {
  concurrency?: WorkflowFlow['concurrency'] | null;
  throttle?: WorkflowFlow['throttle'] | null;
  debounce?: WorkflowFlow['debounce'] | null;
}): WorkflowFlow | null {
  const flow: WorkflowFlow = {};
  for (const part of ['concurrency', 'throttle', 'debounce'] as const) {
    const value = input[part];
    if (!value) continue;
    checkTemplate(`${part}.key`, value.key, 'input');
    Object.assign(flow, { [part]: value });
  }
  return Object.keys(flow).length === 0 ? null : flow;
}

const keyOf = (template: string | undefined, input: Record<string, unknown>): string => {
  if (template === undefined) return '';
  const value = resolveTemplate(template, { input, steps: {} });
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
};

/** The run's keys for each part of the flow (null for a part the workflow does not have). */
export function flowKeys(flow: WorkflowFlow | null, input: Record<string, unknown>) {
  return {
    concurrencyKey: flow?.concurrency ? keyOf(flow.concurrency.key, input) : null,
    throttleKey: flow?.throttle ? keyOf(flow.throttle.key, input) : null,
    debounceKey: flow?.debounce ? keyOf(flow.debounce.key, input) : null,
  };
}

/** When a run of a debounced workflow, started (or debounced into) at `now`, may begin; null without debounce. */
export function debounceUntil(flow: WorkflowFlow | null, now: Date): Date | null {
  return flow?.debounce ? new Date(now.getTime() + durationMs(flow.debounce.period)) : null;
}

/**
 * A debounced start (inside the start's transaction, holding the workflow row's lock): the run
 * still waiting out its debounce period for the same key takes the new input and waits the
 * period again. Undefined when there is none (the caller inserts a new run).
 */
export async function debounceInto(tx: Tx, workflow: WorkflowRow, debounceKey: string, input: Record<string, unknown>, now: Date) {
  const r = workflowRuns;
  const [pending] = await tx
    .select()
    .from(r)
    .where(and(eq(r.workflowId, workflow.id), eq(r.status, 'queued'), isNull(r.admittedAt), eq(r.debounceKey, debounceKey)))
    .orderBy(asc(r.createdAt))
    .limit(1);
  if (!pending) return undefined;
  const [updated] = await tx
    .update(r)
    .set({ input, startAfter: debounceUntil(workflow.flow, now), updatedAt: now })
    .where(eq(r.id, pending.id))
    .returning();
  return updated;
}

/**
 * Starts a run: the steps whose dependencies are done (for a new run, those without any; for a
 * replay, those below the steps it reuses) scheduled and their jobs enqueued, in `tx`, so they
 * exist exactly when the run's admission commits; its wall time counted from now.
 */
export async function launchRun(svc: Services, tx: Tx, out: Outbox, run: WorkflowRunRow, now: Date): Promise<void> {
  const deadlineAt = new Date(now.getTime() + svc.config.workflowMaxRunMs);
  await tx.update(workflowRuns).set({ admittedAt: now, deadlineAt }).where(eq(workflowRuns.id, run.id));
  await advance(svc, tx, out, { ...run, admittedAt: now, deadlineAt });
}

/**
 * Admits the workflow's held runs the flow now allows, oldest first (the caller holds the
 * workflow row's lock, so two admissions never count the same free slot). Returns how many.
 */
export async function admitRuns(svc: Services, tx: Tx, out: Outbox, workflow: WorkflowRow, now: Date): Promise<number> {
  const flow = workflow.flow ?? {};
  const r = workflowRuns;
  const held = await tx
    .select()
    .from(r)
    .where(
      and(eq(r.workflowId, workflow.id), eq(r.status, 'queued'), isNull(r.admittedAt), or(isNull(r.startAfter), lte(r.startAfter, now))),
    )
    .orderBy(asc(r.createdAt), asc(r.id))
    .limit(500);
  if (held.length === 0) return 0;
  const inProgress = new Map<string, number>();
  if (flow.concurrency) {
    const rows = await tx
      .select({ key: r.concurrencyKey, n: count() })
      .from(r)
      .where(and(eq(r.workflowId, workflow.id), inArray(r.status, ['queued', 'running']), sql`${r.admittedAt} is not null`))
      .groupBy(r.concurrencyKey);
    for (const row of rows) inProgress.set(row.key ?? '', row.n);
  }
  const recent = new Map<string, number>();
  if (flow.throttle) {
    const since = new Date(now.getTime() - durationMs(flow.throttle.period));
    const rows = await tx
      .select({ key: r.throttleKey, n: count() })
      .from(r)
      .where(and(eq(r.workflowId, workflow.id), gt(r.admittedAt, since)))
      .groupBy(r.throttleKey);
    for (const row of rows) recent.set(row.key ?? '', row.n);
  }
  let admitted = 0;
  for (const run of held) {
    const ck = run.concurrencyKey ?? '';
    const tk = run.throttleKey ?? '';
    if (flow.concurrency && (inProgress.get(ck) ?? 0) >= flow.concurrency.limit) continue;
    if (flow.throttle && (recent.get(tk) ?? 0) >= flow.throttle.limit) continue;
    await launchRun(svc, tx, out, run, now);
    inProgress.set(ck, (inProgress.get(ck) ?? 0) + 1);
    recent.set(tk, (recent.get(tk) ?? 0) + 1);
    admitted++;
  }
  return admitted;
}

/**
 * The sweep: for each workflow with runs waiting their turn (and due, for debounced ones), takes
 * its row's lock and admits what its flow allows. Every instance runs it each second.
 */
export async function admitWaitingRuns(svc: Services, now = new Date(), limit = 50): Promise<number> {
  const r = workflowRuns;
  const waiting = await svc.db
    .selectDistinct({ workflowId: r.workflowId })
    .from(r)
    .where(and(isNull(r.admittedAt), eq(r.status, 'queued'), or(isNull(r.startAfter), lte(r.startAfter, now))))
    .limit(limit);
  let admitted = 0;
  for (const { workflowId } of waiting) admitted += await admitWorkflowRuns(svc, workflowId, now);
  return admitted;
}

/** Admits what the workflow's flow allows of its held runs, in a transaction holding its row's lock. */
export async function admitWorkflowRuns(svc: Services, workflowId: string, now = new Date()): Promise<number> {
  return unitOfWork(svc, async (tx, out) => {
    await waitForTurn(tx);
    const [workflow] = await tx.select().from(workflows).where(eq(workflows.id, workflowId)).for('no key update');
    return workflow?.flow ? admitRuns(svc, tx, out, workflow, now) : 0;
  });
}

/**
 * A flow-controlled workflow's row lock is a queue: its starts and admissions take turns on it, so
 * a burst of starts waits longer than the short lock_timeout meant for unexpected contention
 * (docs/operations.md, Database deadlines). Within this transaction it may wait as long as a
 * statement may run.
 */
export async function waitForTurn(db: Executor): Promise<void> {
  await db.execute(sql`select set_config('lock_timeout', current_setting('statement_timeout'), true)`);
}
