/**
 * The books of an execution: what its row is, and the three ways it is written, each
 * group-committed with concurrent calls by the outbox (src/outbox/batch.ts): the start (the quota
 * counted, and the caps of a key that has them, billing threshold events, the `running` row), the finish (the finished row, its event
 * and the event's webhook deliveries), and the record of a call that already ran (both at once).
 * Each caller gets its row only after its commit.
 *
 * A call that installs its module on first use starts alone (startOne: the tenant row lock and
 * the module limit), and the tenant's concurrent first uses of that module wait for it, then
 * start as ordinary calls.
 */
import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { emitThresholds, countTerms } from '../billing/thresholds';
import { installInTx } from '../catalog/install';
import { executions, type ExecutionRow } from '../db/schema';
import { keyCapsOf, reserveFlushKeyCaps, reserveKeyUsage } from '../keys/caps';
import { newTimeOrderedId } from '../lib/ids';
import { storableJson, storableText } from '../lib/storable';
import { cycleStart, nextCycleStart } from '../metering/cycle';
import { quotaExceeded, reserveExecutions } from '../metering/usage';
import { BatchedUnits, unitOfWork, type BatchRow, type BatchSpec } from '../outbox';
import type { Services } from '../services';
import { ALL, columnTypes, FINISHED, insertWritten, rowValues, STARTED } from './columns';
import type { Outcome } from './engine';
import { executionEventData } from './present';

export interface StartRequest {
  principal: Principal;
  call: { module: string; action: string; input: Record<string, unknown> };
  opts: { requestId: string; source?: ExecutionRow['source'] };
}

export interface Finished {
  finished: ExecutionRow;
  /** What the caller gets: the outcome, or a recorded failure when the outcome could not be written. */
  outcome: Outcome;
}

interface FinishRequest {
  row: ExecutionRow;
  outcome: Outcome;
  latencyMs: number;
}

export interface RecordRequest extends StartRequest {
  outcome: Outcome;
  latencyMs: number;
  startedAt: Date;
}

/**
 * Calls per flush at most: 50 connections' batch requests of 10 calls fit in one, so no request's
 * calls wait for a second flush behind a cut (docs/performance.md).
 */
const MAX_BATCH = 512;

/** The calls' executions count against their tenant's quota and, for a key with caps, the key's caps (keys/caps.ts). */
const counted = <I extends StartRequest>(svc: Services) =>
  ({
    terms: (r: I) => countTerms(r.principal),
    cycle: (now: Date) => cycleStart(now),
    refused: (r: I, now: Date) => quotaExceeded(countTerms(r.principal).quota!, nextCycleStart(now), now),
    afterCount: (out, group, usedAfter, now) =>
      emitThresholds(out, group.entries[0]!.item.principal, usedAfter, group.entries.length, nextCycleStart(now)),
    reserves: (r: I) => keyCapsOf(r.principal) !== undefined,
    reserve: (tx, out, groups, now) => reserveFlushKeyCaps(svc, tx, out, groups, now),
  }) satisfies Partial<BatchSpec<I, unknown>>;

function startSpec(svc: Services): BatchSpec<StartRequest & { row: ExecutionRow }, ExecutionRow> {
  return {
    ...counted(svc),
    name: 'start_executions',
    columns: columnTypes(STARTED),
    written: insertWritten(STARTED, 'id, created_at'),
    evented: false,
    quietAnswersRows: true,
    tenantId: ({ principal }) => principal.tenantId,
    row: ({ row }) => ({ id: row.id, tenantId: row.tenantId, values: rowValues(row, STARTED) }),
    settle: ({ row }, _, answer) => ({ ...row, createdAt: new Date(answer!.created_at as string) }),
    alone: ({ principal, call, opts }) => startOne(svc, principal, call, opts, false),
  };
}

function finishSpec(svc: Services): BatchSpec<FinishRequest & { written: FinishedRow }, Finished> {
  const updates = FINISHED.filter((c) => c !== 'id' && c !== 'tenant_id').map((c) => `${c} = v.${c}`);
  return {
    name: 'finish_executions',
    columns: columnTypes(FINISHED),
    written: `written as (update executions e set ${updates.join(', ')} from v where e.id = v.id returning e.id)`,
    updates: true,
    evented: true,
    quietAnswersRows: true,
    tenantId: ({ row }) => row.tenantId,
    row: ({ written: { finished, event } }) => ({
      id: finished.id,
      tenantId: finished.tenantId,
      values: rowValues(finished, FINISHED),
      event,
    }),
    settle: ({ outcome, written }) => ({ finished: written.finished, outcome }),
    alone: ({ row, outcome, latencyMs }) => finishOne(svc, row, outcome, latencyMs),
  };
}

function recordSpec(svc: Services): BatchSpec<RecordRequest & { written: FinishedRow }, Finished> {
  return {
    ...counted(svc),
    name: 'record_executions',
    columns: columnTypes(ALL),
    written: insertWritten(ALL, 'id'),
    evented: true,
    quietAnswersRows: false,
    tenantId: ({ principal }) => principal.tenantId,
    row: ({ written: { finished, event } }) => ({ id: finished.id, tenantId: finished.tenantId, values: rowValues(finished, ALL), event }),
    settle: ({ outcome, written }) => ({ finished: written.finished, outcome }),
  };
}

const writers = new WeakMap<Services['outbox'], ReturnType<typeof newWriters>>();

function newWriters(svc: Services) {
  return {
    starts: new BatchedUnits(svc, startSpec(svc), MAX_BATCH),
    finishes: new BatchedUnits(svc, finishSpec(svc), MAX_BATCH),
    records: new BatchedUnits(svc, recordSpec(svc), MAX_BATCH),
    installs: new Map<string, Promise<ExecutionRow>>(),
  };
}

function writersOf(svc: Services) {
  let w = writers.get(svc.outbox);
  if (!w) writers.set(svc.outbox, (w = newWriters(svc)));
  return w;
}

/**
 * Admits the call: counts one execution of the quota (429 `quota_exceeded` past a pausing
 * quota), records crossed billing thresholds, installs on first use when `install`, and creates
 * the `running` row; all committed before this returns.
 */
export async function startExecution(
  svc: Services,
  principal: Principal,
  call: StartRequest['call'],
  opts: StartRequest['opts'],
  install: boolean,
): Promise<ExecutionRow> {
  const w = writersOf(svc);
  const submit = () => svc.metrics.reserving(w.starts.submit({ principal, call, opts, row: newRunningRow(principal, call, opts) }));
  if (!install) return submit();
  // Concurrent first uses of a module by one tenant: one installs, the others wait for it and
  // then start as ordinary calls (or, should it fail, each tries on its own).
  const key = `${principal.tenantId}/${call.module}`;
  const first = w.installs.get(key);
  if (first && (await succeeds(first))) return submit();
  const started = svc.metrics.reserving(startOne(svc, principal, call, opts, true));
  w.installs.set(key, started);
  const forget = () => w.installs.get(key) === started && w.installs.delete(key);
  void started.then(forget, forget);
  return started;
}

/**
 * Finishes the row and writes its event (and deliveries) in one commit. Everything written is
 * storable text (U+0000 and lone surrogates become U+FFFD in the output, its keys and the error
 * message; the caller still gets the original). Should that write fail all the same, the
 * execution is still finished, as failed with a generic message and its event, and that is what
 * the caller gets.
 */
export function finishExecution(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<Finished> {
  return svc.metrics.executed(writersOf(svc).finishes.submit({ row, outcome, latencyMs, written: finishedRow(row, outcome, latencyMs) }));
}

/**
 * An execution that already ran, recorded in one commit: the quota counted (429
 * `quota_exceeded` past a pausing quota, and then nothing is recorded or counted), billing
 * thresholds, the finished row, its event and the event's deliveries. Only for calls whose action
 * is pure and bounded to microseconds (engine.ts `runsInline`) of a module already installed:
 * running such a call before its reservation is indistinguishable from outside, and it needs one
 * commit instead of two.
 */
export function recordExecution(svc: Services, request: RecordRequest): Promise<Finished> {
  const running = { ...newRunningRow(request.principal, request.call, request.opts), createdAt: request.startedAt };
  return svc.metrics.executed(
    svc.metrics.reserving(writersOf(svc).records.submit({ ...request, written: finishedRow(running, request.outcome, request.latencyMs) })),
  );
}

function newRunningRow(principal: Principal, call: StartRequest['call'], opts: StartRequest['opts']): ExecutionRow {
  return {
    id: newTimeOrderedId('exe'),
    tenantId: principal.tenantId,
    module: call.module,
    action: call.action,
    status: 'running',
    requestId: opts.requestId,
    keyId: principal.keyId ?? null,
    inputBytes: Buffer.byteLength(JSON.stringify(call.input)),
    source: opts.source ?? 'api',
    errorCode: null,
    errorMessage: null,
    output: null,
    latencyMs: null,
    outputBytes: null,
    createdAt: new Date(),
    finishedAt: null,
  };
}

/** One call's start in its own unit of work (first use, and the fallback of a flush). */
function startOne(
  svc: Services,
  principal: Principal,
  call: StartRequest['call'],
  opts: StartRequest['opts'],
  install: boolean,
): Promise<ExecutionRow> {
  return unitOfWork(svc, async (tx, out) => {
    // The quota first: its row lock serialises the tenant's starts, so the install's lock on the
    // tenant row (taken after it) cannot deadlock with another start's foreign-key check.
    const reservation = await reserveExecutions(out, principal, 1);
    // Crossing 80% or 100% of the quota: recorded with the reservation that crossed it.
    await emitThresholds(out, principal, reservation.used, 1, reservation.resetAt);
    // The key's caps after the tenant's quota: every start locks the two counters in that order.
    const caps = keyCapsOf(principal);
    if (caps) await reserveKeyUsage(svc, tx, out, principal, caps);
    // Install on first use only once admitted; refused by the module limit, nothing is counted.
    if (install) await installInTx(tx, out, principal, call.module, 'first_use');
    const { createdAt: _, ...running } = newRunningRow(principal, call, opts);
    const [inserted] = await tx.insert(executions).values(running).returning();
    return inserted!;
  });
}

const succeeds = (p: Promise<unknown>): Promise<boolean> =>
  p.then(
    () => true,
    () => false,
  );

type FinishedRow = ReturnType<typeof finishedRow>;

function finishedRow(row: ExecutionRow, outcome: Outcome, latencyMs: number) {
  const serialized = outcome.ok ? JSON.stringify(outcome.output ?? null) : undefined;
  const finished: ExecutionRow = {
    ...row,
    status: outcome.ok ? 'success' : 'failed',
    output: outcome.ok ? storableJson(outcome.output ?? null, serialized) : null,
    outputBytes: serialized === undefined ? null : Buffer.byteLength(serialized),
    errorCode: outcome.ok ? null : outcome.code,
    errorMessage: outcome.ok ? null : storableText(outcome.message),
    latencyMs,
    finishedAt: new Date(),
  };
  const data = executionEventData(finished, outcome.ok ? outcome.output : undefined);
  const event = {
    id: newTimeOrderedId('evt'),
    type: outcome.ok ? ('execution.completed' as const) : ('execution.failed' as const),
    data: storableJson(data),
  };
  return { finished, event } satisfies { finished: ExecutionRow; event: BatchRow['event'] };
}

/** One call's finish in its own unit of work; a write that fails is recorded as a failed execution. */
async function finishOne(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<Finished> {
  try {
    return { finished: await writeFinish(svc, row, outcome, latencyMs), outcome };
  } catch (err) {
    svc.logger.error({ err: String(err), execution_id: row.id }, 'could not record the execution outcome; recording it as failed');
    const failed: Outcome = { ok: false, code: 'module_error', message: 'The action result could not be recorded.' };
    return { finished: await writeFinish(svc, row, failed, latencyMs), outcome: failed };
  }
}

function writeFinish(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<ExecutionRow> {
  const { finished: values } = finishedRow(row, outcome, latencyMs);
  return unitOfWork(svc, async (tx, out) => {
    const { status, output, outputBytes, errorCode, errorMessage, finishedAt } = values;
    const [finished] = await tx
      .update(executions)
      .set({ status, output, outputBytes, errorCode, errorMessage, latencyMs, finishedAt })
      .where(eq(executions.id, row.id))
      .returning();
    await out.emit(
      row.tenantId,
      outcome.ok ? 'execution.completed' : 'execution.failed',
      executionEventData(finished!, outcome.ok ? outcome.output : undefined),
    );
    return finished!;
  });
}
