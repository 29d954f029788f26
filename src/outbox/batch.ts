import type { EventType } from '../contract/events';
import type { Tx } from '../db';
import { statementRows } from '../db/statements';
import { DatabaseDeadlineExceeded, isDatabaseUnreachable } from '../db/unreachable';
import type { OutboxServices } from './context';
import { deliveryTargets, noSubscription, subscribedCte, WEBHOOK_PLANS, type NewDelivery, type Subscription } from './deliveries';
import { GroupCommit, type Pending } from './group-commit';
import type { CommittedEvent } from './hooks';
import { listenedCte } from './events';
import { countCtes, countParam, type TenantTerms } from './quota';
import { afterCommit, unitOfWork, type Outbox } from './unit';

/** A row a batched unit writes: its JSON record (`v`) and, for an evented kind, its event. */
export interface BatchRow {
  id: string;
  tenantId: string;
  values: Record<string, unknown>;
  event?: { id: string; type: EventType; data: unknown };
}

/** A tenant's calls in one flush, under one set of terms. */
export interface TenantGroup<I> {
  terms: (TenantTerms & { plan: string }) | null;
  entries: { item: I; pending: Pending<I, unknown>; row: BatchRow }[];
}

type Entry<I> = TenantGroup<I>['entries'][number];

/**
 * What a flush reserved for its calls besides their tenants' quota (BatchSpec `reserve`), in its
 * transaction, before its statement.
 */
export interface FlushReservation<I> {
  /** Calls refused, with their errors: not written. */
  refused: Map<Entry<I>, unknown>;
  /** Calls to be written one by one after the flush, each decided as if alone. */
  alone: Set<Entry<I>>;
  /** After the statement, in the transaction: `admitted` tells whether the quota took a group. */
  settle(admitted: (group: TenantGroup<I>) => boolean): Promise<void>;
}

/**
 * A kind of row written by group commit: many concurrent calls' rows, their events (and the
 * events' deliveries) and their execution counts by one statement per flush.
 */
export interface BatchSpec<I, R> {
  /** Names the flush statements (prepared once per connection). */
  name: string;
  /** The columns of `v`, the rows' JSON records (`name type, ...`; `id text` and `tenant_id uuid` among them). */
  columns: string;
  /** The CTE `written`: writes the rows of `v` and returns their `id` and what `settle` reads. */
  written: string;
  /** `written` updates rows, which may be missing (their events are then not written); else it inserts every row of `v`. */
  updates?: boolean;
  /** Each row has its event. */
  evented: boolean;
  tenantId(item: I): string;
  row(item: I): BatchRow;
  /** The quota terms of the call's tenant when its rows are counted (each row one execution). */
  terms?(item: I): TenantTerms & { plan: string };
  /** The counted cycle at `now` (YYYY-MM-DD of its start). */
  cycle?(now: Date): string;
  /** What a written call gets; `answer` is its row of `written`, when the statement answered it. */
  settle(item: I, row: BatchRow, answer: Record<string, unknown> | undefined): R;
  /** The statement alone answers each row of `written` (else only each counted tenant's count). */
  quietAnswersRows: boolean;
  /** In the flush's transaction, for a counted group: what its count (after the flush) causes. */
  afterCount?(out: Outbox, group: TenantGroup<I>, usedAfter: number, now: Date): Promise<void>;
  /** The error of a call its tenant's pausing quota refused. */
  refused?(item: I, now: Date): unknown;
  /** The call on its own, when its transaction failed (else that failure is the call's). */
  alone?(item: I): Promise<R>;
  /**
   * Reserves what the groups' calls need beyond the quota (a key's caps), before the statement
   * and after locking the tenants' counters it counts against. The calls `reserves` names are
   * written only in a transaction, never by the one-statement flush.
   */
  reserve?(tx: Tx, out: Outbox, groups: TenantGroup<I>[], now: Date): Promise<FlushReservation<I>>;
  reserves?(item: I): boolean;
}

/**
 * How long a tenant a one-statement write left to the transaction goes straight to the
 * transaction: a tenant with webhook subscriptions would otherwise pay both on every flush.
 */
const LOUD_MS = 10_000;

/** Tenants whose calls a failed flush retries at once, each tenant's calls in order (a connection each). */
const RETRY_LANES = 4;

/**
 * The unit of work's batching strategy (group commit, src/outbox/group-commit.ts). A flush first
 * writes, in one statement that is its own transaction (one round trip instead of the three of
 * BEGIN, statement, COMMIT), the calls of the tenants needing nothing else: no webhook
 * subscription to create deliveries for, no billing mark crossed (countCtes `quiet`). The others
 * (and those of tenants it left within LOUD_MS) are written by one statement in a unit of work
 * that also writes what they need; each call's promise settles only after that commit. A tenant
 * whose group does not fit in its pausing quota, and every call of a transaction that failed,
 * are then written one call per unit of work, so the quota is decided per call as unbatched.
 *
 * On PostgreSQL a call is written only within the statement timeout of its submission (the
 * database's deadlines bound each attempt): a call a stalled flush kept waiting past it fails as
 * unavailable instead of being recorded after its client gave up. A failed flush retries its
 * calls tenant by tenant, so a tenant whose rows are locked by a stalled transaction fails alone.
 */
export class BatchedUnits<I extends object, R> {
  private readonly commit: GroupCommit<I, R>;
  /** Tenants a one-statement write left to the transaction, until when (epoch ms). */
  private readonly loud = new Map<string, number>();
  private readonly quiet: Statement;
  private readonly transactional: Statement;
  /** When each call stops being written (epoch ms), on a database with a statement timeout. */
  private readonly due = new WeakMap<I, number>();
  private readonly writeDeadlineMs: number;

  constructor(
    private readonly svc: OutboxServices,
    private readonly spec: BatchSpec<I, R>,
    maxBatch: number,
  ) {
    // PGlite runs one transaction at a time: a second flush in flight would only queue behind it.
    const maxInFlight = svc.database.kind === 'postgres' ? 4 : 1;
    this.commit = new GroupCommit((batch) => this.flush(batch), { maxBatch, maxInFlight });
    this.quiet = flushStatement(spec, true);
    this.transactional = flushStatement(spec, false);
    this.writeDeadlineMs = svc.database.deadlines?.statementTimeoutMs ?? 0;
  }

  /** Settles after the call's commit. */
  submit(item: I): Promise<R> {
    if (this.writeDeadlineMs > 0) this.due.set(item, Date.now() + this.writeDeadlineMs);
    return this.commit.submit(item);
  }

  private async flush(batch: Pending<I, R>[]): Promise<void> {
    const live = this.withinDeadline(batch);
    let rest: Pending<I, R>[];
    try {
      rest = await this.writeQuietly(live);
    } catch (err) {
      // Past a deadline: the same flush in a transaction would wait as long again.
      await this.retryByTenant(live, err);
      return;
    }
    if (rest.length > 0) await this.writeInTransaction(this.withinDeadline(rest));
  }

  /** The calls still to be written; those past their deadline fail as unavailable. */
  private withinDeadline(batch: Pending<I, R>[], failure: unknown = new DatabaseDeadlineExceeded()): Pending<I, R>[] {
    if (this.writeDeadlineMs === 0) return batch;
    const now = Date.now();
    const live: Pending<I, R>[] = [];
    for (const p of batch) {
      if ((this.due.get(p.item) ?? Infinity) > now) live.push(p);
      else p.reject(failure);
    }
    return live;
  }

  /**
   * Writes what the one-statement flush can of the batch; returns the calls it left. Throws,
   * answering none, when the database is unreachable or past a deadline.
   */
  private async writeQuietly(batch: Pending<I, R>[]): Promise<Pending<I, R>[]> {
    const now = new Date();
    const candidates: Pending<I, R>[] = [];
    const rest: Pending<I, R>[] = [];
    for (const p of batch) {
      const until = this.loud.get(this.spec.tenantId(p.item));
      const quiet = (until === undefined || until <= now.getTime()) && !this.spec.reserves?.(p.item);
      (quiet ? candidates : rest).push(p);
    }
    if (candidates.length === 0) return rest;
    const { groups, alone } = this.groupByTenant(candidates);
    rest.push(...alone);
    let answer: Answer;
    try {
      answer = await this.run(this.quiet, groups, now);
    } catch (err) {
      if (isDatabaseUnreachable(err)) throw err;
      this.svc.logger.debug(
        { err: String(err), calls: candidates.length },
        `${this.spec.name}: one-statement flush failed; writing in a transaction`,
      );
      return batch;
    }
    const settled: TenantGroup<I>['entries'][] = [];
    const committed = {
      events: [] as CommittedEvent[],
      deliveries: 0,
      counts: new Map<string, number>(),
      dueJobs: new Map<string, number>(),
      laterJobs: [],
    };
    for (const g of groups) {
      const used = answer.used.get(g);
      const entries = g.terms ? (used === undefined ? [] : g.entries) : g.entries.filter((e) => answer.rows.has(e.row.id));
      if (entries.length < g.entries.length) {
        this.markLoud(g.entries[0]!.row.tenantId, now);
        for (const e of g.entries) if (!entries.includes(e)) rest.push(e.pending as Pending<I, R>);
      }
      if (entries.length === 0) continue;
      if (used !== undefined) committed.counts.set(g.entries[0]!.row.tenantId, used);
      for (const { row } of entries)
        if (row.event) committed.events.push({ id: row.event.id, tenantId: row.tenantId, type: row.event.type });
      settled.push(entries);
    }
    afterCommit(this.svc, committed);
    for (const entries of settled)
      for (const { item, pending, row } of entries) pending.resolve(this.spec.settle(item, row, answer.rows.get(row.id)));
    return rest;
  }

  /**
   * Writes the calls in one unit of work with what they need; the quota decides each tenant's
   * group. Answers the error of a single call's write that failed.
   */
  private async writeInTransaction(batch: Pending<I, R>[]): Promise<unknown> {
    const now = new Date();
    const grouped = this.groupByTenant(batch);
    const alone = grouped.alone;
    let groups = grouped.groups;
    let answer: Answer;
    let reserved: FlushReservation<I> | undefined;
    try {
      answer = await unitOfWork(this.svc, async (tx, out) => {
        reserved = await this.spec.reserve?.(tx, out, groups, now);
        if (reserved) groups = withoutSetAside(groups, reserved);
        const answer = groups.length === 0 ? emptyAnswer() : await this.run(this.transactional, groups, now, tx);
        const deliveries: NewDelivery[] = [];
        for (const g of groups) {
          const used = answer.used.get(g);
          if (g.terms && used === undefined) continue;
          for (const { row } of g.entries) {
            if (!answer.rows.has(row.id)) throw new Error(`${this.spec.name}: not every row of the flush was written`);
            if (!row.event) continue;
            const event = { id: row.event.id, tenantId: row.tenantId, type: row.event.type };
            out.emitted([event]);
            const subscriptions = answer.subscriptions.get(g);
            if (subscriptions) deliveryTargets({ ...event, data: row.event.data }, subscriptions, deliveries);
          }
          if (used === undefined) continue;
          out.counted(g.entries[0]!.row.tenantId, used);
          await this.spec.afterCount?.(out, g, used, now);
        }
        await out.deliver(deliveries, 'event');
        await reserved?.settle((g) => !g.terms || answer.used.has(g));
        return answer;
      });
    } catch (err) {
      if (batch.length === 1) return this.writeAlone(batch[0]!, err);
      this.svc.logger.warn({ err: String(err), calls: batch.length }, `${this.spec.name}: flush failed; writing each call on its own`);
      await this.retryByTenant(batch, err);
      return undefined;
    }
    for (const [entry, error] of reserved?.refused ?? []) entry.pending.reject(error);
    for (const entry of reserved?.alone ?? []) alone.push(entry.pending as Pending<I, R>);
    for (const g of groups) {
      if (!g.terms || answer.used.has(g)) {
        for (const { item, pending, row } of g.entries) pending.resolve(this.spec.settle(item, row, answer.rows.get(row.id)));
      } else if (g.entries.length === 1) {
        g.entries[0]!.pending.reject(this.spec.refused!(g.entries[0]!.item, now));
      } else {
        // Not all of the group fits in the quota: each call is decided on its own, in order.
        alone.push(...g.entries.map((e) => e.pending as Pending<I, R>));
      }
    }
    for (const p of this.withinDeadline(alone)) await this.writeInTransaction([p]);
    return undefined;
  }

  /** The call on its own after its flush failed with `err` (or that failure, without `alone`). */
  private async writeAlone(only: Pending<I, R>, err: unknown): Promise<unknown> {
    if (!this.spec.alone) {
      only.reject(err);
      return err;
    }
    try {
      only.resolve(await this.spec.alone(only.item));
      return undefined;
    } catch (failure) {
      only.reject(failure);
      return failure;
    }
  }

  /**
   * Each call of a failed flush on its own: tenants side by side (RETRY_LANES at once), each
   * tenant's calls in order. Once one of a tenant's calls fails past a deadline (or unreachable),
   * the tenant's calls after it fail with its error: what failed it (a row lock a stalled
   * transaction holds, a database not answering) would make each of them wait as long.
   */
  private async retryByTenant(batch: Pending<I, R>[], err: unknown): Promise<void> {
    const byTenant = new Map<string, Pending<I, R>[]>();
    for (const p of batch) {
      const tenant = this.spec.tenantId(p.item);
      const calls = byTenant.get(tenant);
      if (calls) calls.push(p);
      else byTenant.set(tenant, [p]);
    }
    const lanes = [...byTenant.values()];
    const next = async (): Promise<void> => {
      for (let calls = lanes.shift(); calls; calls = lanes.shift()) {
        let failure: unknown;
        for (const p of calls) {
          if (failure !== undefined) p.reject(failure);
          else if (this.withinDeadline([p], err).length > 0) {
            const error = await this.writeInTransaction([p]);
            if (error !== undefined && isDatabaseUnreachable(error)) failure = error;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RETRY_LANES, lanes.length) }, next));
  }

  /** Runs a flush statement over the groups, in `tx` or as its own transaction. */
  private async run(statement: Statement, groups: TenantGroup<I>[], now: Date, tx = this.svc.db): Promise<Answer> {
    const values = statement.params.map((param) => (param === 'cycle' ? this.spec.cycle!(now) : paramValue(param, groups)));
    const rows = await statementRows<Record<string, unknown>>(this.svc.database, tx, statement.name, statement.text, values);
    // PostgreSQL answers a uuid in its canonical (lower-case) text; the groups are keyed as the callers spell it.
    const byTenant = new Map(groups.map((g) => [g.entries[0]!.row.tenantId.toLowerCase(), g]));
    const answer = emptyAnswer();
    for (const r of rows) {
      const group = byTenant.get(String(r.tenant_id).toLowerCase());
      if (!group) continue;
      if (r.id !== undefined) answer.rows.set(String(r.id), r);
      if (r.executions !== undefined && r.executions !== null) answer.used.set(group, Number(r.executions));
      if (r.subscriptions) answer.subscriptions.set(group, r.subscriptions as Subscription[]);
    }
    return answer;
  }

  /**
   * One group per tenant, in tenant order. Calls of a tenant under other terms than its first
   * (a plan change while they were in flight) are written alone, as are calls that could never
   * fit in a pausing quota together.
   */
  private groupByTenant(batch: Pending<I, R>[]): { groups: TenantGroup<I>[]; alone: Pending<I, R>[] } {
    const byTenant = new Map<string, TenantGroup<I>>();
    const alone: Pending<I, R>[] = [];
    for (const pending of batch) {
      const row = this.spec.row(pending.item);
      const terms = this.spec.terms?.(pending.item) ?? null;
      const group = byTenant.get(row.tenantId);
      const entry = { item: pending.item, pending: pending as Pending<I, unknown>, row };
      if (!group) byTenant.set(row.tenantId, { terms, entries: [entry] });
      else if (sameTerms(group.terms, terms)) group.entries.push(entry);
      else alone.push(pending);
    }
    const groups = [...byTenant.values()].sort((a, b) => (a.entries[0]!.row.tenantId < b.entries[0]!.row.tenantId ? -1 : 1));
    return { groups, alone };
  }

  private markLoud(tenantId: string, now: Date): void {
    if (this.loud.size >= 10_000) for (const [tenant, until] of this.loud) if (until <= now.getTime()) this.loud.delete(tenant);
    this.loud.set(tenantId, now.getTime() + LOUD_MS);
  }
}

/** The groups (the same objects) without the calls a reservation refused or set aside; a group left empty is dropped. */
function withoutSetAside<I>(groups: TenantGroup<I>[], reserved: FlushReservation<I>): TenantGroup<I>[] {
  if (reserved.refused.size === 0 && reserved.alone.size === 0) return groups;
  for (const g of groups) g.entries = g.entries.filter((e) => !reserved.refused.has(e) && !reserved.alone.has(e));
  return groups.filter((g) => g.entries.length > 0);
}

const emptyAnswer = (): Answer => ({ rows: new Map(), used: new Map(), subscriptions: new Map() });

interface Answer {
  /** The statement's row per written row (by id). */
  rows: Map<string, Record<string, unknown>>;
  /** Each counted group's count after the flush. */
  used: Map<TenantGroup<unknown>, number>;
  subscriptions: Map<TenantGroup<unknown>, Subscription[]>;
}

function sameTerms(a: TenantGroup<unknown>['terms'], b: TenantGroup<unknown>['terms']): boolean {
  return a === b || (!!a && !!b && a.plan === b.plan && a.quota === b.quota && a.pauses === b.pauses && a.approaching === b.approaching);
}

type Param = 'counts' | 'rows' | 'cycle' | 'plans';

interface Statement {
  name: string;
  text: string;
  params: Param[];
}

function paramValue(param: Exclude<Param, 'cycle'>, groups: TenantGroup<unknown>[]): string {
  switch (param) {
    case 'counts':
      return countParam(groups.map((g) => ({ terms: g.terms!, n: g.entries.length })));
    case 'rows':
      return JSON.stringify(
        groups.flatMap((g) =>
          g.entries.map(({ row }) =>
            row.event ? { ...row.values, event_id: row.event.id, event_type: row.event.type, event_data: row.event.data } : row.values,
          ),
        ),
      );
    case 'plans':
      return JSON.stringify(WEBHOOK_PLANS);
  }
}

/**
 * A flush statement of the spec. `quiet`: its own transaction, for the tenants needing nothing
 * else (the others are left untouched and unanswered). Else, in the flush's transaction: it also
 * answers each written row's tenant's active subscriptions, to create deliveries for.
 */
function flushStatement(spec: BatchSpec<unknown, unknown>, quiet: boolean): Statement {
  const params: Param[] = [];
  const $ = (param: Param) => {
    if (!params.includes(param)) params.push(param);
    return `$${params.indexOf(param) + 1}`;
  };
  const counted = spec.terms !== undefined;
  const ctes: string[] = [];
  if (counted)
    ctes.push(
      countCtes(
        $('counts'),
        $('cycle'),
        quiet ? { withoutSubscriptions: spec.evented ? (t) => noSubscription(t, $('plans')) : undefined } : undefined,
      ),
    );
  const columns = spec.evented ? `${spec.columns}, event_id text, event_type text, event_data jsonb` : spec.columns;
  const filter = counted
    ? 'join counted c on c.tenant_id = v.tenant_id'
    : quiet && spec.evented
      ? `where ${noSubscription('v.tenant_id', $('plans'))}`
      : '';
  ctes.push(`v as (select v.* from jsonb_to_recordset(${$('rows')}::jsonb) as v(${columns}) ${filter})`, spec.written);
  if (spec.evented) {
    const from = `from v${spec.updates ? ' join written w on w.id = v.id' : ''}`;
    ctes.push(
      `evented as (insert into events (id, tenant_id, type, data) select v.event_id, v.tenant_id, v.event_type, v.event_data ${from})`,
    );
    ctes.push(listenedCte(`select v.event_id, v.tenant_id, v.event_type ${from}`));
  }
  if (spec.evented && !quiet) ctes.push(subscribedCte('select v.tenant_id from v', $('plans')));
  let select: string;
  if (quiet && !spec.quietAnswersRows) {
    // The writes in WITH run to completion whether or not the query reads them; a row per call only costs both threads.
    select = 'select c.tenant_id, c.executions from counted c';
  } else {
    const joins = [
      counted ? 'join counted c on c.tenant_id = v.tenant_id' : '',
      spec.evented && !quiet ? 'left join subscribed on subscribed.tenant_id = v.tenant_id' : '',
    ].join(' ');
    select = `select w.*, v.tenant_id${counted ? ', c.executions' : ''}${spec.evented && !quiet ? ', subscribed.subscriptions' : ''} from written w join v on v.id = w.id ${joins}`;
  }
  const name = `amp_${spec.name}${quiet ? '_quiet' : ''}`;
  return { name, text: `with ${ctes.join(',\n')}\n${select}`, params };
}
