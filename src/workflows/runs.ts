import { and, asc, desc, eq, gte, inArray, lt } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Executor, Tx } from '../db';
import {
  workflowRuns,
  workflowRunSteps,
  type RunOrigin,
  type WorkflowRow,
  type WorkflowRunRow,
  type WorkflowRunStepRow,
} from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import { newId } from '../lib/ids';
import { unitOfWork, type Outbox } from '../outbox';
import { beforeCursor, decodeCursor, toPage } from '../lib/pagination';
import type { Services } from '../services';
import { isActionStep } from './definition';
import { findWorkflow } from './definitions';
import { isActiveStatus } from './progress';
import { admitRuns, admitWorkflowRuns, debounceInto, debounceUntil, flowKeys, launchRun } from './flow';
import type { RUN_STATUSES } from './schema';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentRunSummary(run: WorkflowRunRow) {
  return {
    run_id: run.id,
    workflow_id: run.workflowId,
    workflow_version: run.workflowVersion,
    status: run.status,
    origin: run.origin,
    error: run.error ?? null,
    created_at: run.createdAt.toISOString(),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
  };
}

export function presentRun(run: WorkflowRunRow, rows: WorkflowRunStepRow[]) {
  const byId = new Map(rows.map((r) => [r.stepId, r]));
  return {
    ...presentRunSummary(run),
    input: run.input,
    output: run.output ?? null,
    steps: run.steps.map((def) => {
      const r = byId.get(def.id);
      return {
        id: def.id,
        kind: def.kind ?? 'action',
        module: isActionStep(def) ? def.module : null,
        action: isActionStep(def) ? def.action : null,
        status: r?.status ?? 'pending',
        wait: r?.wait ?? null,
        decision: r?.decision ?? null,
        definition: isActionStep(def) ? { ...def, input: def.input ?? {} } : def,
        attempts: r?.attempts ?? 0,
        input: r?.input ?? null,
        output: r?.output ?? null,
        error: r?.error ?? null,
        execution_ids: r?.executionIds ?? [],
        started_at: iso(r?.startedAt ?? null),
        finished_at: iso(r?.finishedAt ?? null),
      };
    }),
  };
}

/** The tenant's run of that workflow, or 404. */
export async function findRun(db: Executor, tenantId: string, workflowId: string, runId: string): Promise<WorkflowRunRow> {
  const [run] = await db
    .select()
    .from(workflowRuns)
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.tenantId, tenantId), eq(workflowRuns.workflowId, workflowId)));
  if (!run) throw notFound('run');
  return run;
}

async function findByKey(db: Executor, tenantId: string, workflowId: string, key: string) {
  const [run] = await db
    .select()
    .from(workflowRuns)
    .where(and(eq(workflowRuns.tenantId, tenantId), eq(workflowRuns.workflowId, workflowId), eq(workflowRuns.idempotencyKey, key)));
  return run;
}

const started = (run: WorkflowRunRow) => ({
  run_id: run.id,
  workflow_id: run.workflowId,
  workflow_version: run.workflowVersion,
  status: run.status,
});

/**
 * Inserts a run of `workflow` (the caller holds its row's lock when it has flow control) with a
 * row per step (`reuse` gives a step's state carried over from another run), then starts it, or
 * leaves it to its turn when the workflow's flow control says so. Undefined when the idempotency
 * key already has a run.
 */
async function insertRun(
  svc: Services,
  tx: Tx,
  out: Outbox,
  principal: Principal,
  workflow: WorkflowRow,
  now: Date,
  run: Pick<
    typeof workflowRuns.$inferInsert,
    | 'workflowVersion'
    | 'steps'
    | 'input'
    | 'idempotencyKey'
    | 'requestId'
    | 'origin'
    | 'triggerDepth'
    | 'concurrencyKey'
    | 'throttleKey'
    | 'debounceKey'
    | 'startAfter'
  >,
  reuse: (stepId: string) => Partial<typeof workflowRunSteps.$inferInsert> = () => ({}),
): Promise<WorkflowRunRow | undefined> {
  const [inserted] = await tx
    .insert(workflowRuns)
    .values({
      ...run,
      id: newId('run'),
      tenantId: principal.tenantId,
      workflowId: workflow.id,
      scopes: principal.scopes,
      keyId: principal.keyId ?? null,
      priority: workflow.priority,
      deadlineAt: new Date(now.getTime() + svc.config.workflowMaxRunMs),
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted) return undefined;
  await tx
    .insert(workflowRunSteps)
    .values(run.steps.map((s) => ({ ...reuse(s.id), runId: inserted.id, stepId: s.id, tenantId: principal.tenantId })));
  if (workflow.flow) await admitRuns(svc, tx, out, workflow, now);
  else await launchRun(svc, tx, out, inserted, now);
  return inserted;
}

/**
 * POST /api/v1/workflows/{id}/runs: 202. The run (with the steps of the current version and the
 * caller's scopes), its step rows and the jobs of its first steps commit together. The same
 * `idempotency_key` for the same workflow answers the run it started, whatever its state.
 */
export async function startRun(
  svc: Services,
  principal: Principal,
  input: { id: string; input: Record<string, unknown>; idempotency_key?: string },
  requestId: string,
  how: { origin?: RunOrigin; triggerDepth?: number } = {},
) {
  const found = await findWorkflow(svc.db, principal.tenantId, input.id);
  const key = input.idempotency_key;
  if (key) {
    const existing = await findByKey(svc.db, principal.tenantId, found.id, key);
    if (existing) return started(existing);
  }
  const run = await unitOfWork(svc, async (tx, out) => {
    // Read again under a lock: a delete running at the same time either waits for this run (and
    // takes it with it) or has already gone (404), instead of a foreign-key failure (500). A
    // workflow with flow control is locked for its admission: starts of its runs take turns.
    const workflow = await findWorkflow(tx, principal.tenantId, input.id, found.flow ? 'no key update' : 'share');
    const now = new Date();
    const keys = flowKeys(workflow.flow, input.input);
    if (keys.debounceKey !== null) {
      const debounced = await debounceInto(tx, workflow, keys.debounceKey, input.input, now);
      if (debounced) return debounced;
    }
    return insertRun(svc, tx, out, principal, workflow, now, {
      workflowVersion: workflow.version,
      steps: workflow.steps,
      input: input.input,
      idempotencyKey: key ?? null,
      requestId,
      origin: how.origin ?? { type: 'api' },
      triggerDepth: how.triggerDepth ?? 0,
      ...keys,
      startAfter: debounceUntil(workflow.flow, now),
    });
  });
  // Lost a race for the same key: the other request's run.
  return started(run ?? (await findByKey(svc.db, principal.tenantId, found.id, key!))!);
}

/** GET /api/v1/workflows/{id}/runs/{run_id}: the run with every step's state. */
export async function getRun(svc: Services, principal: Principal, workflowId: string, runId: string) {
  return svc.db.transaction(
    async (tx) => {
      const run = await findRun(tx, principal.tenantId, workflowId, runId);
      const rows = await tx.select().from(workflowRunSteps).where(eq(workflowRunSteps.runId, run.id));
      return presentRun(run, rows);
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** GET /api/v1/workflows/{id}/runs: newest first, optionally one status. */
export async function listRuns(
  svc: Services,
  principal: Principal,
  input: { id: string; status?: (typeof RUN_STATUSES)[number]; limit: number; cursor?: string },
) {
  await findWorkflow(svc.db, principal.tenantId, input.id);
  const cursor = decodeCursor(input.cursor);
  const r = workflowRuns;
  const rows = await svc.db
    .select()
    .from(r)
    .where(
      and(
        eq(r.tenantId, principal.tenantId),
        eq(r.workflowId, input.id),
        input.status ? eq(r.status, input.status) : undefined,
        beforeCursor(r.createdAt, r.id, cursor),
      ),
    )
    .orderBy(desc(r.createdAt), desc(r.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, presentRunSummary);
}

/**
 * Cancels one run of the tenant's workflow if it is still queued or running: nothing new starts
 * (pending and waiting steps are cancelled), steps already running finish and record their
 * outcome. Answers the status it found: anything but `queued` or `running` means it had
 * already finished and nothing changed.
 */
async function cancelOne(svc: Services, tenantId: string, workflowId: string, runId: string): Promise<WorkflowRunRow['status']> {
  const found = await svc.db.transaction(async (tx) => {
    const [run] = await tx.select().from(workflowRuns).where(eq(workflowRuns.id, runId)).for('update');
    if (!run || run.tenantId !== tenantId) throw notFound('run');
    if (run.status !== 'queued' && run.status !== 'running') return run.status;
    const now = new Date();
    await tx.update(workflowRuns).set({ status: 'cancelled', finishedAt: now, updatedAt: now }).where(eq(workflowRuns.id, runId));
    await tx
      .update(workflowRunSteps)
      .set({ status: 'cancelled', finishedAt: now })
      .where(and(eq(workflowRunSteps.runId, runId), inArray(workflowRunSteps.status, ['pending', 'waiting'])));
    await recordAudit(tx, tenantId, {
      action: 'workflow.run_cancelled',
      target: { type: 'workflow_run', id: runId },
      changes: { workflow_id: workflowId, status: { from: run.status, to: 'cancelled' } },
    });
    return run.status;
  });
  // A concurrency slot may be free.
  if (isActiveStatus(found)) await admitWorkflowRuns(svc, workflowId);
  return found;
}

/**
 * POST /api/v1/workflows/{id}/runs/{run_id}/cancel: nothing new starts (pending and waiting
 * steps are cancelled), steps already running finish and record their outcome; the run is
 * `cancelled`. A run that has already finished is 409.
 */
export async function cancelRun(svc: Services, principal: Principal, workflowId: string, runId: string) {
  await findRun(svc.db, principal.tenantId, workflowId, runId);
  const found = await cancelOne(svc, principal.tenantId, workflowId, runId);
  if (!isActiveStatus(found)) throw conflict(`The run has already finished (${found}).`);
  return getRun(svc, principal, workflowId, runId);
}

const REPLAYABLE = ['failed', 'cancelled'] as const;

/**
 * A replay of a failed or cancelled run: a new run (origin `replay`) of the same version and
 * input, whose steps that succeeded (or were skipped) are copied with their outputs, not run
 * again; the others start over, from the ones whose dependencies are done. Its idempotency key
 * is `replay:<run id>`: a run is replayed once, however often asked (the replay answers).
 */
async function replayOf(svc: Services, principal: Principal, original: WorkflowRunRow, requestId: string): Promise<WorkflowRunRow> {
  const key = `replay:${original.id}`;
  const existing = await findByKey(svc.db, principal.tenantId, original.workflowId, key);
  if (existing) return existing;
  const rows = await svc.db.select().from(workflowRunSteps).where(eq(workflowRunSteps.runId, original.id));
  const byId = new Map(rows.map((r) => [r.stepId, r]));
  const replay = await unitOfWork(svc, async (tx, out) => {
    const workflow = await findWorkflow(tx, principal.tenantId, original.workflowId, 'no key update');
    const now = new Date();
    const inserted = await insertRun(
      svc,
      tx,
      out,
      principal,
      workflow,
      now,
      {
        workflowVersion: original.workflowVersion,
        steps: original.steps,
        input: original.input,
        idempotencyKey: key,
        requestId,
        origin: { type: 'replay', run_id: original.id },
        ...flowKeys(workflow.flow, original.input as Record<string, unknown>),
        debounceKey: null,
      },
      (stepId) => {
        const r = byId.get(stepId);
        if (!r || (r.status !== 'succeeded' && r.status !== 'skipped')) return {};
        const { status, attempts, input, output, executionIds, wait, decision, startedAt, finishedAt } = r;
        return { status, attempts, scheduledAt: r.scheduledAt ?? now, input, output, executionIds, wait, decision, startedAt, finishedAt };
      },
    );
    if (!inserted) return undefined;
    await recordAudit(tx, principal.tenantId, {
      action: 'workflow.run_replayed',
      target: { type: 'workflow_run', id: inserted.id },
      changes: { workflow_id: workflow.id, replay_of: original.id },
    });
    return inserted;
  });
  return replay ?? (await findByKey(svc.db, principal.tenantId, original.workflowId, key))!;
}

/** POST /api/v1/workflows/{id}/runs/{run_id}/replay: 202 with the replay (409 unless the run failed or was cancelled). */
export async function replayRun(svc: Services, principal: Principal, workflowId: string, runId: string, requestId: string) {
  const original = await findRun(svc.db, principal.tenantId, workflowId, runId);
  if (!(REPLAYABLE as readonly string[]).includes(original.status))
    throw conflict(`Only a failed or cancelled run can be replayed; this one is ${original.status}.`);
  const replay = await replayOf(svc, principal, original, requestId);
  return { ...started(replay), replay_of: original.id };
}

/** At most this many runs per bulk call; `has_more` says when more matched. */
export const BULK_LIMIT = 500;

/** The tenant's runs of the workflow in `statuses`, created in [since, until), oldest first. */
async function runsMatching(
  svc: Services,
  principal: Principal,
  input: { id: string; since?: string; until?: string },
  statuses: readonly string[],
) {
  await findWorkflow(svc.db, principal.tenantId, input.id);
  const r = workflowRuns;
  const rows = await svc.db
    .select()
    .from(r)
    .where(
      and(
        eq(r.tenantId, principal.tenantId),
        eq(r.workflowId, input.id),
        inArray(r.status, [...statuses] as WorkflowRunRow['status'][]),
        input.since ? gte(r.createdAt, new Date(input.since)) : undefined,
        input.until ? lt(r.createdAt, new Date(input.until)) : undefined,
      ),
    )
    .orderBy(asc(r.createdAt), asc(r.id))
    .limit(BULK_LIMIT + 1);
  return { rows: rows.slice(0, BULK_LIMIT), hasMore: rows.length > BULK_LIMIT };
}

/** POST /api/v1/workflows/{id}/runs/cancel: cancels the matching queued and running runs (at most BULK_LIMIT). */
export async function cancelRuns(
  svc: Services,
  principal: Principal,
  input: { id: string; status?: 'queued' | 'running'; since?: string; until?: string },
) {
  const { rows, hasMore } = await runsMatching(svc, principal, input, input.status ? [input.status] : ['queued', 'running']);
  const cancelled: string[] = [];
  for (const run of rows) if (isActiveStatus(await cancelOne(svc, principal.tenantId, input.id, run.id))) cancelled.push(run.id);
  return { cancelled: cancelled.length, run_ids: cancelled, has_more: hasMore };
}

/** POST /api/v1/workflows/{id}/runs/replay: replays the matching failed (or cancelled) runs, each once (at most BULK_LIMIT). */
export async function replayRuns(
  svc: Services,
  principal: Principal,
  input: { id: string; status?: 'failed' | 'cancelled'; since?: string; until?: string },
  requestId: string,
) {
  const { rows, hasMore } = await runsMatching(svc, principal, input, [input.status ?? 'failed']);
  const runs: { run_id: string; replay_of: string; status: WorkflowRunRow['status'] }[] = [];
  for (const original of rows) {
    const replay = await replayOf(svc, principal, original, requestId);
    runs.push({ run_id: replay.id, replay_of: original.id, status: replay.status });
  }
  return { replayed: runs.length, runs, has_more: hasMore };
}
