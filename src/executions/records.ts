/**
 * The books of an execution, written by group commit (group-commit.ts): the start (quota
 * reservation, billing threshold events, the `running` row) and the finish (the finished row,
 * its event and the event's webhook deliveries) of many concurrent executions are each written
 * by one statement that is its own transaction for the tenants needing nothing else
 * (writeQuietly), and in one transaction of one statement plus the rare threshold events and
 * deliveries for the others; each caller gets its row only after that commit. The usage counter
 * is moved once per tenant per flush, in the statement itself: no lock is held across a round
 * trip of one execution.
 *
 * A call that installs its module on first use starts alone (startOne: the tenant row lock and
 * the module limit), and the tenant's concurrent first uses of that module wait for it, then
 * start as ordinary calls; so does every call of a flush whose transaction failed, and of a tenant
 * whose whole group does not fit in its pausing quota, so the quota is decided per call exactly
 * as unbatched. A finish flush that fails is retried per call (finishOne).
 */
import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { thresholdEvents, thresholdMarks } from '../billing/thresholds';
import { installInTx } from '../catalog/install';
import type { Executor } from '../db';
import { statementRows } from '../db/statements';
import { executions, type ExecutionRow } from '../db/schema';
import { afterEvents, recordEvent, type RecordedEvent } from '../events/record';
import { newTimeOrderedId } from '../lib/ids';
import { storableJson, storableText } from '../lib/storable';
import { cycleStart, nextCycleStart } from '../metering/cycle';
import { quotaExceeded, quotaOf, reserveExecutions } from '../metering/usage';
import type { Services } from '../services';
import { createDeliveries, subscribedTo, WEBHOOK_PLANS, type NewDelivery } from '../webhooks/fanout';
import type { Outcome } from './engine';
import { GroupCommit, type Pending } from './group-commit';
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

/**
 * Calls per flush at most: 50 connections' batch requests of 10 calls fit in one, so no request's
 * calls wait for a second flush behind a cut (PGlite batch p99 over seven alternating pairs: mean
 * 93 vs 102 ms at 256; peak RSS on a fresh server 342-361 vs 336-356 MB).
 */
const MAX_BATCH = 512;

const committers = new WeakMap<
  Services,
  {
    starts: GroupCommit<StartRequest, ExecutionRow>;
    finishes: GroupCommit<FinishRequest, Finished>;
    records: GroupCommit<RecordRequest, Finished>;
    installs: Map<string, Promise<ExecutionRow>>;
    /** Tenants a one-statement write left to the transaction, until when (epoch ms) their flushes go there directly (LOUD_MS). */
    loud: Map<string, number>;
  }
>();

function committersOf(svc: Services) {
  let c = committers.get(svc);
  if (!c) {
    // PGlite runs one transaction at a time: a second flush in flight would only queue behind it.
    // On PostgreSQL 4 beat 2 and 8 (execute load, 3 alternating pairs: 3,249 vs 2,634 req/s on average).
    const maxInFlight = svc.database.kind === 'postgres' ? 4 : 1;
    c = {
      starts: new GroupCommit((batch) => flushStarts(svc, batch), { maxBatch: MAX_BATCH, maxInFlight }),
      finishes: new GroupCommit((batch) => flushFinishes(svc, batch), { maxBatch: MAX_BATCH, maxInFlight }),
      records: new GroupCommit((batch) => flushRecords(svc, batch), { maxBatch: MAX_BATCH, maxInFlight }),
      installs: new Map(),
      loud: new Map(),
    };
    committers.set(svc, c);
  }
  return c;
}

/**
 * Admits the call: reserves one execution of the quota (429 `quota_exceeded` past a pausing
 * quota), records crossed billing thresholds, installs on first use when `install`, and creates
 * the `running` row; all committed before this returns.
 */
export async function startExecution(svc: Services, principal: Principal, call: StartRequest['call'], opts: StartRequest['opts'], install: boolean): Promise<ExecutionRow> {
  if (!install) return committersOf(svc).starts.submit({ principal, call, opts });
  // Concurrent first uses of a module by one tenant: one installs, the others wait for it and
  // then start as ordinary calls (or, should it fail, each tries on its own).
  const installs = committersOf(svc).installs;
  const key = `${principal.tenantId}/${call.module}`;
  const first = installs.get(key);
  if (first && (await first.then(() => true, () => false))) return committersOf(svc).starts.submit({ principal, call, opts });
  const started = startOne(svc, principal, call, opts, true);
  installs.set(key, started);
  void started.then(
    () => installs.get(key) === started && installs.delete(key),
    () => installs.get(key) === started && installs.delete(key),
  );
  return started;
}

/**
 * Finishes the row and writes its event (and deliveries) in one transaction. Everything written
 * is storable text (U+0000 and lone surrogates become U+FFFD in the output, its keys and the
 * error message; the caller still gets the original). Should that write fail all the same, the
 * execution is still finished, as failed with a generic message and its event, and that is what
 * the caller gets.
 */
export function finishExecution(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<Finished> {
  return committersOf(svc).finishes.submit({ row, outcome, latencyMs });
}

function newRunningRow(principal: Principal, call: StartRequest['call'], opts: StartRequest['opts']) {
  return {
    id: newTimeOrderedId('exe'),
    tenantId: principal.tenantId,
    module: call.module,
    action: call.action,
    status: 'running' as const,
    requestId: opts.requestId,
    keyId: principal.keyId ?? null,
    inputBytes: Buffer.byteLength(JSON.stringify(call.input)),
    source: opts.source ?? 'api',
  };
}

/** One call's start in its own transaction (first use, and the fallback of a flush). */
async function startOne(svc: Services, principal: Principal, call: StartRequest['call'], opts: StartRequest['opts'], install: boolean): Promise<ExecutionRow> {
  const { row, used, installed, billing } = await svc.db.transaction(async (tx) => {
    // The quota first: its row lock serialises the tenant's starts, so the install's lock on the
    // tenant row (taken after it) cannot deadlock with another start's foreign-key check.
    const reservation = await reserveExecutions(tx, principal, 1);
    // Crossing 80% or 100% of the quota: recorded with the reservation that crossed it.
    const billing = [];
    for (const crossed of thresholdEvents(principal, reservation, 1)) billing.push(await recordEvent(svc, tx, principal.tenantId, crossed.type, crossed.data));
    // Install on first use only once admitted; refused by the module limit, nothing is counted.
    const installed = install ? await installInTx(svc, tx, principal, call.module, 'first_use') : undefined;
    const [inserted] = await tx.insert(executions).values(newRunningRow(principal, call, opts)).returning();
    return { row: inserted!, used: reservation.used, installed, billing };
  });
  afterEvents(svc, installed?.event, ...billing);
  svc.usage.note(principal.tenantId, used);
  return row;
}

/**
 * The quota part of a flush: per tenant (in tenant order, so concurrent flushes lock counters in
 * the same order), the counter moves by the tenant's number of calls, or not at all when they do
 * not all fit in a pausing quota. `counted` holds the tenants it moved, with their count after.
 *
 * `quiet` (the one-statement flush, see writeQuietly): it moves only the counters of tenants
 * for which the statement is the whole transaction: no billing threshold crossed by the move, and,
 * with `subscriptionsOfPlans` (the parameter listing the webhook plans), no active webhook
 * subscription (which would need deliveries and their jobs). The others it leaves untouched.
 */
function countCtes(quiet?: { subscriptionsOfPlans?: string }): string {
  const pool = quiet?.subscriptionsOfPlans ? 'quiet' : 'req';
  const quietCte = quiet?.subscriptionsOfPlans ? `quiet as (select * from req r where ${noSubscription('r.tenant_id', quiet.subscriptionsOfPlans)}),` : '';
  const crossesNoMark = (before: string, after: string) =>
    quiet ? ` and (r.quota is null or not ((${before} < r.approaching and ${after} >= r.approaching) or (${before} < r.quota and ${after} >= r.quota)))` : '';
  return `with req as (
  select * from jsonb_to_recordset($1::jsonb) as r(tenant_id uuid, n int, quota int, pauses boolean, approaching int)
),${quietCte}
counted as (
  insert into usage_counters as u (tenant_id, cycle_start, executions, overage, updated_at)
  select r.tenant_id, $3::date, r.n, greatest(0, r.n - r.quota), now() from ${pool} r
  where (not r.pauses or r.n <= r.quota)${crossesNoMark('0', 'r.n')}
  order by r.tenant_id
  on conflict (tenant_id, cycle_start) do update set
    executions = u.executions + excluded.executions,
    overage = u.overage + (select greatest(0, u.executions + excluded.executions - r.quota) - greatest(0, u.executions - r.quota) from req r where r.tenant_id = u.tenant_id),
    updated_at = excluded.updated_at
  where (select (not r.pauses or u.executions + excluded.executions <= r.quota)${crossesNoMark('u.executions', 'u.executions + excluded.executions')} from req r where r.tenant_id = u.tenant_id)
  returning u.tenant_id, u.executions
),`;
}

/** True for a tenant without an active webhook subscription on a plan that `plans` (a JSON array parameter) lists. */
function noSubscription(tenant: string, plans: string): string {
  return `not exists (
    select 1 from webhook_subscriptions s join tenants t on t.id = s.tenant_id
    where s.tenant_id = ${tenant} and s.status = 'active' and s.suspended_at is null
      and t.plan in (select jsonb_array_elements_text(${plans}::jsonb)))`;
}

/** The counting statements' first parameter: per tenant group, its calls and its quota's terms. */
function countParam(groups: TenantGroup<unknown, unknown>[]): string {
  return JSON.stringify(
    groups.map((g) => ({ tenant_id: g.principal.tenantId, n: g.entries.length, quota: g.quota, pauses: g.pauses, approaching: g.quota === null ? null : thresholdMarks(g.quota).approaching })),
  );
}

/** The `running` rows of the tenants `counted` moved. One row per started execution, with its tenant's count after the flush. */
const START_WRITES = `started as (
  insert into executions (id, tenant_id, module, action, status, request_id, key_id, input_bytes, source)
  select e.id, e.tenant_id, e.module, e.action, 'running', e.request_id, e.key_id, e.input_bytes, e.source
  from jsonb_to_recordset($2::jsonb) as e(id text, tenant_id uuid, module text, action text, request_id text, key_id text, input_bytes int, source text)
  join counted c on c.tenant_id = e.tenant_id
  order by e.tenant_id
  returning id, tenant_id, created_at
)
select s.id, s.created_at, c.executions from started s join counted c on c.tenant_id = s.tenant_id`;

/** One statement for the whole flush: the counter moves (countCtes), and the `running` rows of the tenants it moved are inserted. */
const START_SQL = `
${countCtes()}
${START_WRITES}`;

/** START_SQL for the tenants whose flush is this statement alone: no billing threshold crossed. */
const START_QUIET_SQL = `
${countCtes({})}
${START_WRITES}`;

interface TenantGroup<P, R> {
  principal: Principal;
  quota: number | null;
  pauses: boolean;
  entries: { pending: P; row: R }[];
}

type StartGroup = TenantGroup<Pending<StartRequest, ExecutionRow>, ReturnType<typeof newRunningRow>>;

/** The `running` rows of a flush as START_SQL's second parameter takes them. */
function startValues(groups: StartGroup[]): string {
  return JSON.stringify(groups.flatMap((g) => g.entries.map(({ row: r }) => ({ id: r.id, tenant_id: r.tenantId, module: r.module, action: r.action, request_id: r.requestId, key_id: r.keyId, input_bytes: r.inputBytes, source: r.source }))));
}

/** What the caller of a start gets: its row as inserted. */
function startedRow(row: ReturnType<typeof newRunningRow>, createdAt: Date): ExecutionRow {
  return { ...row, errorCode: null, errorMessage: null, output: null, latencyMs: null, outputBytes: null, createdAt, finishedAt: null };
}

/** A flush of starts: the one-statement write (START_QUIET_SQL) first, then the rest (a threshold, the quota refusing) in a transaction. */
async function flushStarts(svc: Services, batch: Pending<StartRequest, ExecutionRow>[]): Promise<void> {
  const rest = await writeQuietly(svc, batch, (p) => newRunningRow(p.item.principal, p.item.call, p.item.opts), async (groups, now) => {
    const rows = await statementRows<{ id: string; created_at: string | Date; executions: number }>(svc.database, svc.db, 'amp_start_executions_quiet', START_QUIET_SQL, [
      countParam(groups),
      startValues(groups),
      cycleStart(now),
    ]);
    const started = new Map(rows.map((r) => [r.id, { createdAt: new Date(r.created_at), used: Number(r.executions) }]));
    const used = new Map<string, number>();
    for (const g of groups) {
      const first = started.get(g.entries[0]!.row.id);
      if (first) used.set(g.principal.tenantId, first.used);
    }
    return { used, settle: ({ row }) => startedRow(row, started.get(row.id)!.createdAt) };
  });
  if (rest.length > 0) await startInTransaction(svc, rest);
}

/** Starts calls in one transaction with their threshold events; the quota decides each tenant's group. */
async function startInTransaction(svc: Services, batch: Pending<StartRequest, ExecutionRow>[]): Promise<void> {
  const now = new Date();
  const { groups, alone } = groupByTenant(batch, (p) => newRunningRow(p.item.principal, p.item.call, p.item.opts));
  let written: { started: Map<string, { createdAt: Date; used: number }>; billing: RecordedEvent[] };
  try {
    written = await svc.db.transaction(async (tx) => {
      const rows = await statementRows<{ id: string; created_at: string | Date; executions: number }>(svc.database, tx, 'amp_start_executions', START_SQL, [
        countParam(groups),
        startValues(groups),
        cycleStart(now),
      ]);
      const started = new Map(rows.map((r) => [r.id, { createdAt: new Date(r.created_at), used: Number(r.executions) }]));
      const billing = await recordThresholds(svc, tx, groups, (g) => started.get(g.entries[0]!.row.id)?.used, now);
      return { started, billing };
    });
  } catch (err) {
    svc.logger.warn({ err: String(err), calls: batch.length }, 'execution start flush failed; starting each call on its own');
    await Promise.all(batch.map((p) => settle(p, () => startOne(svc, p.item.principal, p.item.call, p.item.opts, false))));
    return;
  }
  afterEvents(svc, ...written.billing);
  for (const g of groups) {
    const first = written.started.get(g.entries[0]!.row.id);
    if (first) {
      svc.usage.note(g.principal.tenantId, first.used);
      for (const { pending, row } of g.entries) pending.resolve(startedRow(row, written.started.get(row.id)!.createdAt));
    } else if (g.entries.length === 1) {
      g.entries[0]!.pending.reject(quotaExceeded(g.quota!, nextCycleStart(now), now));
    } else {
      // Not all of the group fits in the quota: each call is decided on its own.
      alone.push(...g.entries.map((e) => e.pending));
    }
  }
  await Promise.all(alone.map((p) => settle(p, () => startOne(svc, p.item.principal, p.item.call, p.item.opts, false))));
}

/**
 * One group per tenant, in tenant order. Calls of a tenant under other terms than its first
 * (a plan change while they were in flight) start alone, as do calls that could never fit in a
 * pausing quota together.
 */
function groupByTenant<P extends { item: { principal: Principal } }, R>(batch: P[], rowOf: (pending: P) => R) {
  const byTenant = new Map<string, TenantGroup<P, R>>();
  const alone: P[] = [];
  for (const pending of batch) {
    const { principal } = pending.item;
    const { quota, pausesAtQuota } = quotaOf(principal);
    const group = byTenant.get(principal.tenantId);
    const row = rowOf(pending);
    if (!group) byTenant.set(principal.tenantId, { principal, quota, pauses: pausesAtQuota, entries: [{ pending, row }] });
    else if (group.principal.plan === principal.plan && group.quota === quota && group.pauses === pausesAtQuota) group.entries.push({ pending, row });
    else alone.push(pending);
  }
  const groups = [...byTenant.values()].sort((a, b) => (a.principal.tenantId < b.principal.tenantId ? -1 : 1));
  return { groups, alone };
}

/**
 * The billing threshold events of a flush's counted groups (`usedAfter`: the tenant's count after
 * the flush, undefined when it was not counted). Each call gets its own count, as if they had
 * started one after the other: a threshold is crossed by exactly one of them.
 */
async function recordThresholds<G extends TenantGroup<unknown, unknown>>(
  svc: Services,
  db: Executor,
  groups: G[],
  usedAfter: (group: G) => number | undefined,
  now: Date,
): Promise<RecordedEvent[]> {
  const billing: RecordedEvent[] = [];
  for (const g of groups) {
    const used = usedAfter(g);
    if (used === undefined) continue;
    for (let i = 0; i < g.entries.length; i++) {
      const reservation = { used: used - g.entries.length + 1 + i, limit: g.quota, remaining: null, overage: 0, resetAt: nextCycleStart(now) };
      for (const crossed of thresholdEvents(g.principal, reservation, 1)) billing.push(await recordEvent(svc, db, g.principal.tenantId, crossed.type, crossed.data));
    }
  }
  return billing;
}

/** `subscribed`: the active webhook subscriptions of the tenants `tenants` selects, on plans `plans` (a JSON array) lists. */
function subscribedCte(tenants: string, plans: string): string {
  return `subscribed as (
  select s.tenant_id, json_agg(json_build_object('id', s.id, 'events', s.events)) as subscriptions
  from webhook_subscriptions s join tenants t on t.id = s.tenant_id
  where s.tenant_id in (${tenants}) and s.status = 'active' and s.suspended_at is null
    and t.plan in (select jsonb_array_elements_text(${plans}::jsonb))
  group by s.tenant_id
)`;
}

/** The deliveries to create for recorded events: one per subscription of the event's tenant that takes its type. */
function deliveryTargets(rows: { id: string; subscriptions: { id: string; events: string[] }[] | null }[], events: Map<string, { tenantId: string; type: string }>): NewDelivery[] {
  const targets: NewDelivery[] = [];
  for (const r of rows) {
    const event = events.get(r.id)!;
    for (const sub of r.subscriptions ?? []) {
      if (subscribedTo(sub.events, event.type)) targets.push({ subscriptionId: sub.id, tenantId: event.tenantId, eventId: r.id, eventType: event.type });
    }
  }
  return targets;
}

/** A finish flush's rows (finishedValues) as its statements' first parameter holds them. */
const FINISHED_VALUES = `
  select * from jsonb_to_recordset($1::jsonb) as v(id text, status text, output jsonb, output_bytes int, error_code text, error_message text,
    latency_ms int, finished_at timestamptz, event_id text, tenant_id uuid, event_type text, event_data jsonb)`;

/** The finished rows written over their `running` rows (from `v`). */
const FINISH_UPDATE = `finished as (
  update executions e set status = v.status, output = v.output, output_bytes = v.output_bytes, error_code = v.error_code,
    error_message = v.error_message, latency_ms = v.latency_ms, finished_at = v.finished_at
  from v where e.id = v.id
  returning e.id
)`;

/**
 * One statement for the whole flush: the finished rows, their events, and each event's tenant's
 * active subscriptions, looked up once per tenant (to create deliveries for, in the same
 * transaction).
 */
const FINISH_SQL = `
with v as (${FINISHED_VALUES}),
${FINISH_UPDATE},
recorded as (
  insert into events (id, tenant_id, type, data) select v.event_id, v.tenant_id, v.event_type, v.event_data from v
  returning id, tenant_id
),
${subscribedCte('select v.tenant_id from v', '$2')}
select r.id, (select count(*) from finished)::int as finished, subscribed.subscriptions
from recorded r left join subscribed on subscribed.tenant_id = r.tenant_id`;

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
  const event = { id: newTimeOrderedId('evt'), type: outcome.ok ? 'execution.completed' : 'execution.failed', data: storableJson(data) };
  return { finished, event };
}

/** A finished row and its event as the flush statements' JSON records take them. */
function finishedValues({ finished: f, event }: ReturnType<typeof finishedRow>) {
  return {
    id: f.id,
    tenant_id: f.tenantId,
    status: f.status,
    output: f.output,
    output_bytes: f.outputBytes,
    error_code: f.errorCode,
    error_message: f.errorMessage,
    latency_ms: f.latencyMs,
    finished_at: f.finishedAt!.toISOString(),
    event_id: event.id,
    event_type: event.type,
    event_data: event.data,
  };
}

/**
 * FINISH_SQL for the executions of tenants without an active webhook subscription (on a webhook
 * plan, $2): their finish is this statement alone. One row per execution it finished.
 */
const FINISH_QUIET_SQL = `
with v as (${FINISHED_VALUES}
  where ${noSubscription('v.tenant_id', '$2')}
),
${FINISH_UPDATE},
recorded as (
  insert into events (id, tenant_id, type, data) select v.event_id, v.tenant_id, v.event_type, v.event_data from v join finished f on f.id = v.id
)
select id from finished`;

/** A flush of finishes: the one-statement write (FINISH_QUIET_SQL) first, then the rest (webhook subscriptions) in a transaction. */
async function flushFinishes(svc: Services, batch: Pending<FinishRequest, Finished>[]): Promise<void> {
  const rest = await finishQuietly(svc, batch);
  if (rest.length > 0) await finishInTransaction(svc, rest);
}

async function finishQuietly(svc: Services, batch: Pending<FinishRequest, Finished>[]): Promise<Pending<FinishRequest, Finished>[]> {
  const now = new Date();
  const { candidates, rest } = withoutLoud(svc, batch, now, (p) => p.item.row.tenantId);
  if (candidates.length === 0) return rest;
  const written = candidates.map((p) => finishedRow(p.item.row, p.item.outcome, p.item.latencyMs));
  let finished: Set<string>;
  try {
    const rows = await statementRows<{ id: string }>(svc.database, svc.db, 'amp_finish_executions_quiet', FINISH_QUIET_SQL, [JSON.stringify(written.map(finishedValues)), JSON.stringify(WEBHOOK_PLANS)]);
    finished = new Set(rows.map((r) => r.id));
  } catch (err) {
    svc.logger.debug({ err: String(err), calls: candidates.length }, 'one-statement finish flush failed; finishing in a transaction');
    return batch;
  }
  for (const [i, p] of candidates.entries()) {
    if (finished.has(p.item.row.id)) {
      p.resolve({ finished: written[i]!.finished, outcome: p.item.outcome });
    } else {
      markLoud(svc, p.item.row.tenantId, now);
      rest.push(p);
    }
  }
  return rest;
}

/** Finishes calls in one transaction with their events and deliveries. */
async function finishInTransaction(svc: Services, batch: Pending<FinishRequest, Finished>[]): Promise<void> {
  let deliveries: number;
  const written = batch.map((p) => finishedRow(p.item.row, p.item.outcome, p.item.latencyMs));
  try {
    deliveries = await svc.db.transaction(async (tx) => {
      const values = written.map(finishedValues);
      const rows = await statementRows<{ id: string; finished: number; subscriptions: { id: string; events: string[] }[] | null }>(svc.database, tx, 'amp_finish_executions', FINISH_SQL, [
        JSON.stringify(values),
        JSON.stringify(WEBHOOK_PLANS),
      ]);
      if (rows.length !== batch.length || Number(rows[0]?.finished) !== batch.length) throw new Error('not every execution of the flush was found to finish');
      const targets = deliveryTargets(rows, new Map(written.map((w) => [w.event.id, { tenantId: w.finished.tenantId, type: w.event.type }])));
      await createDeliveries(svc, tx, targets, 'event');
      return targets.length;
    });
  } catch (err) {
    svc.logger.warn({ err: String(err), calls: batch.length }, 'execution finish flush failed; finishing each call on its own');
    await Promise.all(batch.map((p) => settle(p, () => finishOne(svc, p.item.row, p.item.outcome, p.item.latencyMs))));
    return;
  }
  if (deliveries > 0) svc.deliveryWorker.wake();
  for (const [i, p] of batch.entries()) p.resolve({ finished: written[i]!.finished, outcome: p.item.outcome });
}

export interface RecordRequest extends StartRequest {
  outcome: Outcome;
  latencyMs: number;
  startedAt: Date;
}

/**
 * An execution that already ran, recorded in one commit: the quota reservation (429
 * `quota_exceeded` past a pausing quota, and then nothing is recorded or counted), billing
 * thresholds, the finished row, its event and the event's deliveries. Only for calls whose action
 * is pure and bounded to microseconds (engine.ts `runsInline`) of a module already installed:
 * running such a call before its reservation is indistinguishable from outside, and it needs one
 * commit instead of two. Group-committed with concurrent calls like starts and finishes.
 */
export function recordExecution(svc: Services, request: RecordRequest): Promise<Finished> {
  return committersOf(svc).records.submit(request);
}

/** The recorded rows of the tenants `counted` moved, and their events. */
const RECORD_WRITES = `v as (
  select v.* from jsonb_to_recordset($2::jsonb) as v(id text, tenant_id uuid, module text, action text, request_id text, key_id text,
    input_bytes int, source text, status text, output jsonb, output_bytes int, error_code text, error_message text, latency_ms int,
    created_at timestamptz, finished_at timestamptz, event_id text, event_type text, event_data jsonb)
  join counted c on c.tenant_id = v.tenant_id
),
recorded as (
  insert into executions (id, tenant_id, module, action, status, request_id, key_id, input_bytes, source, output, output_bytes,
    error_code, error_message, latency_ms, created_at, finished_at)
  select v.id, v.tenant_id, v.module, v.action, v.status, v.request_id, v.key_id, v.input_bytes, v.source, v.output, v.output_bytes,
    v.error_code, v.error_message, v.latency_ms, v.created_at, v.finished_at
  from v order by v.tenant_id
  returning id
),
evented as (
  insert into events (id, tenant_id, type, data) select v.event_id, v.tenant_id, v.event_type, v.event_data from v
  returning id
)`;

/**
 * countCtes, then for the tenants it moved: the finished rows, their events, and the tenants'
 * active subscriptions. One row per recorded execution, with its tenant's count after the flush.
 */
const RECORD_SQL = `
${countCtes()}
${RECORD_WRITES},
${subscribedCte('select c.tenant_id from counted c', '$4')}
select v.event_id as id, c.executions, subscribed.subscriptions, (select count(*) from recorded)::int as recorded, (select count(*) from evented)::int as evented
from v join counted c on c.tenant_id = v.tenant_id left join subscribed on subscribed.tenant_id = v.tenant_id`;

/**
 * RECORD_SQL for the tenants whose flush is this statement alone (countCtes `quiet`): no
 * subscription to create deliveries for, no threshold event. One row per tenant it moved, with
 * its count after the flush: the writes in WITH run to completion whether or not the query reads
 * them, and a row per execution only cost both threads (a flush of 500 calls answered 500 rows).
 */
const RECORD_QUIET_SQL = `
${countCtes({ subscriptionsOfPlans: '$4' })}
${RECORD_WRITES}
select c.tenant_id, c.executions from counted c`;

function recordedRow(request: RecordRequest) {
  const row: ExecutionRow = {
    ...newRunningRow(request.principal, request.call, request.opts),
    errorCode: null,
    errorMessage: null,
    output: null,
    latencyMs: null,
    outputBytes: null,
    createdAt: request.startedAt,
    finishedAt: null,
  };
  return finishedRow(row, request.outcome, request.latencyMs);
}

/**
 * A flush of records: first the one-statement write (RECORD_QUIET_SQL, its own transaction: one
 * round trip instead of three) for the tenants it can take; the rest (a webhook subscription, a
 * billing threshold, the quota refusing) in a transaction that also writes what they need.
 */
async function flushRecords(svc: Services, batch: Pending<RecordRequest, Finished>[]): Promise<void> {
  const rest = await recordQuietly(svc, batch);
  if (rest.length > 0) await recordInTransaction(svc, rest);
}

/** Writes what RECORD_QUIET_SQL can of the batch; returns the calls it left. */
function recordQuietly(svc: Services, batch: Pending<RecordRequest, Finished>[]): Promise<Pending<RecordRequest, Finished>[]> {
  return writeQuietly(svc, batch, (p) => recordedRow(p.item), async (groups, now) => {
    const rows = await statementRows<{ tenant_id: string; executions: number }>(svc.database, svc.db, 'amp_record_executions_quiet', RECORD_QUIET_SQL, [
      countParam(groups),
      recordValues(groups),
      cycleStart(now),
      JSON.stringify(WEBHOOK_PLANS),
    ]);
    // PostgreSQL answers a uuid in its canonical (lower-case) text; the groups are keyed as the principal spells it.
    const tenantOf = new Map(groups.map((g) => [g.principal.tenantId.toLowerCase(), g.principal.tenantId]));
    const used = new Map<string, number>();
    for (const r of rows) used.set(tenantOf.get(r.tenant_id) ?? r.tenant_id, Number(r.executions));
    return { used, settle: ({ pending, row }) => ({ finished: row.finished, outcome: pending.item.outcome }) };
  });
}

/**
 * How long a tenant a one-statement write left to the transaction goes straight to the
 * transaction: a tenant with webhook subscriptions would otherwise pay both on every flush.
 */
const LOUD_MS = 10_000;

/** The calls of a batch whose tenants were left to the transaction within LOUD_MS (`rest`), and the others. */
function withoutLoud<P>(svc: Services, batch: P[], now: Date, tenantOf: (pending: P) => string): { candidates: P[]; rest: P[] } {
  const { loud } = committersOf(svc);
  const candidates: P[] = [];
  const rest: P[] = [];
  for (const p of batch) {
    const until = loud.get(tenantOf(p));
    (until === undefined || until <= now.getTime() ? candidates : rest).push(p);
  }
  return { candidates, rest };
}

function markLoud(svc: Services, tenantId: string, now: Date): void {
  const { loud } = committersOf(svc);
  if (loud.size >= 10_000) for (const [tenant, until] of loud) if (until <= now.getTime()) loud.delete(tenant);
  loud.set(tenantId, now.getTime() + LOUD_MS);
}

/**
 * The one-statement part of a flush. `statement` writes, in its own transaction (one round trip
 * instead of the three of BEGIN, statement, COMMIT), the groups of the tenants it can take
 * (countCtes `quiet`) and answers each such tenant's count after it, and what each of their calls
 * gets. The calls of the tenants it left, and of those it left within LOUD_MS, are returned for
 * the flush's transaction; so are all of them when the statement fails.
 */
async function writeQuietly<I extends { principal: Principal }, R, W>(
  svc: Services,
  batch: Pending<I, R>[],
  rowOf: (pending: Pending<I, R>) => W,
  statement: (groups: TenantGroup<Pending<I, R>, W>[], now: Date) => Promise<{ used: Map<string, number>; settle(entry: { pending: Pending<I, R>; row: W }): R }>,
): Promise<Pending<I, R>[]> {
  const now = new Date();
  const { candidates, rest } = withoutLoud(svc, batch, now, (p) => p.item.principal.tenantId);
  if (candidates.length === 0) return rest;
  const { groups, alone } = groupByTenant(candidates, rowOf);
  rest.push(...alone);
  let written: Awaited<ReturnType<typeof statement>>;
  try {
    written = await statement(groups, now);
  } catch (err) {
    svc.logger.debug({ err: String(err), calls: candidates.length }, 'one-statement flush failed; writing in a transaction');
    return batch;
  }
  for (const g of groups) {
    const used = written.used.get(g.principal.tenantId);
    if (used === undefined) {
      markLoud(svc, g.principal.tenantId, now);
      rest.push(...g.entries.map((e) => e.pending));
      continue;
    }
    svc.usage.note(g.principal.tenantId, used);
    for (const entry of g.entries) entry.pending.resolve(written.settle(entry));
  }
  return rest;
}

/** The recorded rows of a flush as RECORD_SQL's second parameter takes them. */
function recordValues(groups: TenantGroup<Pending<RecordRequest, Finished>, ReturnType<typeof recordedRow>>[]): string {
  return JSON.stringify(
    groups.flatMap((g) =>
      g.entries.map(({ row }) => ({
        ...finishedValues(row),
        module: row.finished.module,
        action: row.finished.action,
        request_id: row.finished.requestId,
        key_id: row.finished.keyId,
        input_bytes: row.finished.inputBytes,
        source: row.finished.source,
        created_at: row.finished.createdAt.toISOString(),
      })),
    ),
  );
}

/** Records calls in one transaction with their threshold events and deliveries; the quota decides each tenant's group. */
async function recordInTransaction(svc: Services, batch: Pending<RecordRequest, Finished>[]): Promise<void> {
  const now = new Date();
  const { groups, alone } = groupByTenant(batch, (p) => recordedRow(p.item));
  let written: { used: Map<string, number>; billing: RecordedEvent[]; deliveries: number };
  try {
    written = await svc.db.transaction(async (tx) => {
      const rows = await statementRows<{ id: string; executions: number; subscriptions: { id: string; events: string[] }[] | null; recorded: number; evented: number }>(
        svc.database,
        tx,
        'amp_record_executions',
        RECORD_SQL,
        [
          countParam(groups),
          recordValues(groups),
          cycleStart(now),
          JSON.stringify(WEBHOOK_PLANS),
        ],
      );
      if (rows.length > 0 && (Number(rows[0]!.recorded) !== rows.length || Number(rows[0]!.evented) !== rows.length)) throw new Error('not every counted execution of the flush was recorded');
      const events = new Map(groups.flatMap((g) => g.entries.map(({ row: { finished: f, event } }) => [event.id, { tenantId: f.tenantId, type: event.type }] as const)));
      // Each counted tenant's count after the flush (a tenant the quota refused has no rows).
      const used = new Map<string, number>();
      for (const r of rows) used.set(events.get(r.id)!.tenantId, Number(r.executions));
      const billing = await recordThresholds(svc, tx, groups, (g) => used.get(g.principal.tenantId), now);
      const targets = deliveryTargets(rows, events);
      await createDeliveries(svc, tx, targets, 'event');
      return { used, billing, deliveries: targets.length };
    });
  } catch (err) {
    if (batch.length === 1) {
      batch[0]!.reject(err);
      return;
    }
    svc.logger.warn({ err: String(err), calls: batch.length }, 'execution record flush failed; recording each call on its own');
    for (const p of batch) await recordInTransaction(svc, [p]);
    return;
  }
  afterEvents(svc, ...written.billing);
  if (written.deliveries > 0) svc.deliveryWorker.wake();
  for (const g of groups) {
    const used = written.used.get(g.principal.tenantId);
    if (used !== undefined) {
      svc.usage.note(g.principal.tenantId, used);
      for (const { pending, row } of g.entries) pending.resolve({ finished: row.finished, outcome: pending.item.outcome });
    } else if (g.entries.length === 1) {
      g.entries[0]!.pending.reject(quotaExceeded(g.quota!, nextCycleStart(now), now));
    } else {
      // Not all of the group fits in the quota: each call is decided on its own, in order.
      alone.push(...g.entries.map((e) => e.pending));
    }
  }
  for (const p of alone) await recordInTransaction(svc, [p]);
}

/** One call's finish in its own transaction; a write that fails is recorded as a failed execution. */
async function finishOne(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<Finished> {
  try {
    return { finished: await writeFinish(svc, row, outcome, latencyMs), outcome };
  } catch (err) {
    svc.logger.error({ err: String(err), execution_id: row.id }, 'could not record the execution outcome; recording it as failed');
    const failed: Outcome = { ok: false, code: 'module_error', message: 'The action result could not be recorded.' };
    return { finished: await writeFinish(svc, row, failed, latencyMs), outcome: failed };
  }
}

async function writeFinish(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<ExecutionRow> {
  const { finished: values } = finishedRow(row, outcome, latencyMs);
  const { finished, event } = await svc.db.transaction(async (tx) => {
    const [finished] = await tx
      .update(executions)
      .set({
        status: values.status,
        output: values.output,
        outputBytes: values.outputBytes,
        errorCode: values.errorCode,
        errorMessage: values.errorMessage,
        latencyMs,
        finishedAt: values.finishedAt,
      })
      .where(eq(executions.id, row.id))
      .returning();
    const event = await recordEvent(
      svc,
      tx,
      row.tenantId,
      outcome.ok ? 'execution.completed' : 'execution.failed',
      executionEventData(finished!, outcome.ok ? outcome.output : undefined),
    );
    return { finished: finished!, event };
  });
  afterEvents(svc, event);
  return finished;
}

function settle<R>(pending: Pending<unknown, R>, run: () => Promise<R>): Promise<void> {
  return run().then(pending.resolve, pending.reject);
}
