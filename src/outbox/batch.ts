import type { EventType } from '../contract/events';
import { statementRows } from '../db/statements';
import type { OutboxServices } from './context';
import { deliveryTargets, noSubscription, subscribedCte, WEBHOOK_PLANS, type NewDelivery, type Subscription } from './deliveries';
import { GroupCommit, type Pending } from './group-commit';
import type { CommittedEvent } from './hooks';
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
}

/**
 * How long a tenant a one-statement write left to the transaction goes straight to the
 * transaction: a tenant with webhook subscriptions would otherwise pay both on every flush.
 */
const LOUD_MS = 10_000;

/**
 * The unit of work's batching strategy (group commit, src/outbox/group-commit.ts). A flush first
 * writes, in one statement that is its own transaction (one round trip instead of the three of
 * BEGIN, statement, COMMIT), the calls of the tenants needing nothing else: no webhook
 * subscription to create deliveries for, no billing mark crossed (countCtes `quiet`). The others
 * (and those of tenants it left within LOUD_MS) are written by one statement in a unit of work
 * that also writes what they need; each call's promise settles only after that commit. A tenant
 * whose group does not fit in its pausing quota, and every call of a transaction that failed,
 * are then written one call per unit of work, so the quota is decided per call as unbatched.
 */
export class BatchedUnits<I, R> {
  private readonly commit: GroupCommit<I, R>;
  /** Tenants a one-statement write left to the transaction, until when (epoch ms). */
  private readonly loud = new Map<string, number>();
  private readonly quiet: Statement;
  private readonly transactional: Statement;

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
  }

  /** Settles after the call's commit. */
  submit(item: I): Promise<R> {
    return this.commit.submit(item);
  }

  private async flush(batch: Pending<I, R>[]): Promise<void> {
    const rest = await this.writeQuietly(batch);
    if (rest.length > 0) await this.writeInTransaction(rest);
  }

  /** Writes what the one-statement flush can of the batch; returns the calls it left. */
  private async writeQuietly(batch: Pending<I, R>[]): Promise<Pending<I, R>[]> {
    const now = new Date();
    const candidates: Pending<I, R>[] = [];
    const rest: Pending<I, R>[] = [];
    for (const p of batch) {
      const until = this.loud.get(this.spec.tenantId(p.item));
      (until === undefined || until <= now.getTime() ? candidates : rest).push(p);
    }
    if (candidates.length === 0) return rest;
    const { groups, alone } = this.groupByTenant(candidates);
    rest.push(...alone);
    let answer: Answer;
    try {
      answer = await this.run(this.quiet, groups, now);
    } catch (err) {
      this.svc.logger.debug(
        { err: String(err), calls: candidates.length },
        `${this.spec.name}: one-statement flush failed; writing in a transaction`,
      );
      return batch;
    }
    const settled: TenantGroup<I>['entries'][] = [];
    const committed = { events: [] as CommittedEvent[], deliveries: 0, counts: new Map<string, number>() };
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

  /** Writes the calls in one unit of work with what they need; the quota decides each tenant's group. */
  private async writeInTransaction(batch: Pending<I, R>[]): Promise<void> {
    const now = new Date();
    const { groups, alone } = this.groupByTenant(batch);
    let answer: Answer;
    try {
      answer = await unitOfWork(this.svc, async (tx, out) => {
        const answer = await this.run(this.transactional, groups, now, tx);
        const deliveries: NewDelivery[] = [];
        for (const g of groups) {
          const used = answer.used.get(g);
          if (g.terms && used === undefined) continue;
          for (const { row } of g.entries) {
            if (!answer.rows.has(row.id)) throw new Error(`${this.spec.name}: not every row of the flush was written`);
            if (!row.event) continue;
            const event = { id: row.event.id, tenantId: row.tenantId, type: row.event.type };
            out.emitted([event]);
            deliveryTargets(event, answer.subscriptions.get(g) ?? null, deliveries);
          }
          if (used === undefined) continue;
          out.counted(g.entries[0]!.row.tenantId, used);
          await this.spec.afterCount?.(out, g, used, now);
        }
        await out.deliver(deliveries, 'event');
        return answer;
      });
    } catch (err) {
      if (batch.length === 1) {
        const only = batch[0]!;
        if (this.spec.alone) await this.spec.alone(only.item).then(only.resolve, only.reject);
        else only.reject(err);
        return;
      }
      this.svc.logger.warn({ err: String(err), calls: batch.length }, `${this.spec.name}: flush failed; writing each call on its own`);
      for (const p of batch) await this.writeInTransaction([p]);
      return;
    }
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
    for (const p of alone) await this.writeInTransaction([p]);
  }

  /** Runs a flush statement over the groups, in `tx` or as its own transaction. */
  private async run(statement: Statement, groups: TenantGroup<I>[], now: Date, tx = this.svc.db): Promise<Answer> {
    const values = statement.params.map((param) => (param === 'cycle' ? this.spec.cycle!(now) : paramValue(param, groups)));
    const rows = await statementRows<Record<string, unknown>>(this.svc.database, tx, statement.name, statement.text, values);
    // PostgreSQL answers a uuid in its canonical (lower-case) text; the groups are keyed as the callers spell it.
    const byTenant = new Map(groups.map((g) => [g.entries[0]!.row.tenantId.toLowerCase(), g]));
    const answer: Answer = { rows: new Map(), used: new Map(), subscriptions: new Map() };
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
  if (spec.evented)
    ctes.push(
      `evented as (insert into events (id, tenant_id, type, data) select v.event_id, v.tenant_id, v.event_type, v.event_data from v${spec.updates ? ' join written w on w.id = v.id' : ''})`,
    );
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
