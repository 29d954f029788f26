import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { executions, planChanges, requestCounts, tenants, usageCounters, type PlanChangeRow } from '../db/schema';
import { invalidRequest, notFound } from '../lib/errors';
import { utcDay } from '../metering/request-counts';
import type { Services } from '../services';
import { draftInvoice } from './close';
import { formatUnitUsd, formatUsd } from './money';
import { snapshotTerms, termsSnapshot } from './terms';
import type { UsageInput, UsageView } from './schema';

const DAY_MS = 86_400_000;

/** `YYYY-MM` of the cycle an instant falls in. */
export function cycleOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The half-open window [start, end) of a cycle `YYYY-MM` (a calendar month in UTC). */
export function cycleWindow(cycle: string): { start: Date; end: Date } {
  const [year, month] = cycle.split('-').map(Number) as [number, number];
  const start = new Date(0);
  start.setUTCFullYear(year, month - 1, 1);
  const end = new Date(0);
  end.setUTCFullYear(year, month, 1);
  return { start, end };
}

/**
 * The cycle's executions per UTC day and module: one index range scan of
 * `executions_tenant_created_idx` (tenant_id, created_at) over the half-open window [start, end).
 */
export function executionsByDayAndModule(db: Executor, tenantId: string, start: Date, end: Date) {
  return db
    .select({
      day: sql<string>`to_char(${executions.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      module: executions.module,
      executions: sql<number>`count(*)::int`,
      failures: sql<number>`(count(*) filter (where ${executions.status} = 'failed'))::int`,
    })
    .from(executions)
    .where(and(eq(executions.tenantId, tenantId), gte(executions.createdAt, start), lt(executions.createdAt, end)))
    .groupBy(sql`1`, sql`2`);
}

/**
 * GET /api/v1/billing/usage: a cycle's usage, cost so far and projected invoice total. Execution
 * numbers are counts of the execution records in the cycle's window (each execution has one row,
 * whatever transport started it); requests per day come from `request_counts` (this instance's
 * counts are flushed first). The current cycle is priced at the tenant's current terms; a past
 * one at the terms in force at its end. `cycle` in the future, or before the month the tenant
 * registered, is 400 `invalid_request`.
 */
export async function getUsage(svc: Services, tenantId: string, input: UsageInput = {}, now = new Date()): Promise<UsageView> {
  const [tenant] = await svc.db.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  if (!tenant) throw notFound('tenant');

  const current = cycleOf(now);
  const first = cycleOf(tenant.createdAt);
  const cycle = input.cycle ?? current;
  if (cycle > current) {
    throw invalidRequest(`The billing cycle ${cycle} has not begun; the current one is ${current}.`, [
      { path: 'cycle', message: `Not later than ${current}` },
    ]);
  }
  if (cycle < first) {
    throw invalidRequest(`The tenant was registered in ${first}; there is no usage for ${cycle}.`, [
      { path: 'cycle', message: `Not earlier than ${first}` },
    ]);
  }
  const isCurrent = cycle === current;
  const { start, end } = cycleWindow(cycle);

  // This instance's request counts reach the table before it is read (best effort: a flush that
  // fails leaves them for the next one, and the answer lags by them).
  if (isCurrent) await svc.requestCounts.flush().catch(() => {});

  const [grouped, requests, changes, counter] = await Promise.all([
    executionsByDayAndModule(svc.db, tenantId, start, end),
    svc.db
      .select({ day: requestCounts.day, requests: requestCounts.requests })
      .from(requestCounts)
      .where(and(eq(requestCounts.tenantId, tenantId), gte(requestCounts.day, utcDay(start)), lt(requestCounts.day, utcDay(end)))),
    svc.db
      .select()
      .from(planChanges)
      .where(and(eq(planChanges.tenantId, tenantId), gte(planChanges.changedAt, start), lt(planChanges.changedAt, end)))
      .orderBy(asc(planChanges.changedAt), asc(planChanges.id)),
    svc.db
      .select({ executions: usageCounters.executions, overage: usageCounters.overage })
      .from(usageCounters)
      .where(and(eq(usageCounters.tenantId, tenantId), eq(usageCounters.cycleStart, utcDay(start))))
      .limit(1),
  ]);

  // The terms in force when the cycle began and at its end (now, for the current cycle).
  const nowTerms = termsSnapshot(tenant);
  const startTerms =
    changes[0]?.fromTerms ?? (isCurrent ? nowTerms : ((await firstChangeFrom(svc.db, tenantId, end))?.fromTerms ?? nowTerms));
  const endTerms = isCurrent ? nowTerms : (changes.at(-1)?.toTerms ?? startTerms);
  const terms = snapshotTerms(endTerms);

  // Execution counts from the records.
  const perDay = new Map<string, { executions: number; failures: number }>();
  const perModule = new Map<string, { executions: number; failures: number }>();
  let used = 0;
  let failed = 0;
  for (const g of grouped) {
    used += g.executions;
    failed += g.failures;
    for (const [map, key] of [
      [perDay, g.day],
      [perModule, g.module],
    ] as const) {
      const entry = map.get(key) ?? { executions: 0, failures: 0 };
      entry.executions += g.executions;
      entry.failures += g.failures;
      map.set(key, entry);
    }
  }
  const counted = counter[0]?.executions ?? 0;
  if (counted !== used) {
    // Reserving and recording are one transaction, so they agree; a difference is worth a look.
    svc.logger.warn({ tenantId, cycle, recorded: used, counter: counted }, 'usage: execution records and the usage counter differ');
  }
  const requestsPerDay = new Map(requests.map((r) => [r.day, Number(r.requests)]));

  const lastDay = isCurrent ? Math.floor(now.getTime() / DAY_MS) * DAY_MS : end.getTime() - DAY_MS;
  const daily: UsageView['daily'] = [];
  for (let t = start.getTime(); t <= lastDay; t += DAY_MS) {
    const date = utcDay(new Date(t));
    const d = perDay.get(date);
    daily.push({ date, executions: d?.executions ?? 0, failures: d?.failures ?? 0, requests: requestsPerDay.get(date) ?? 0 });
  }
  const byModule = [...perModule]
    .map(([module, m]) => ({ module, executions: m.executions, failures: m.failures }))
    .sort((a, b) => b.executions - a.executions || a.module.localeCompare(b.module));

  const limit = terms.executionsPerMonth;
  // The overage the invoice bills: the counter's (executions that ran past the quota in force
  // when they ran). It is max(0, used - limit) unless the quota changed during the cycle.
  const overage = counter[0]?.overage ?? (limit === null ? 0 : Math.max(0, used - limit));
  // Priced exactly as the cycle's invoice will be (src/billing/close.ts): prorated fee lines and
  // the overage line, each rounded to the cent.
  const draft = (n: number) =>
    draftInvoice({ currentTerms: startTerms, changes, overage: n, cycleStart: start, cycleEnd: end }).totalMicroUsd;
  const fees = draft(0);
  const total = overage > 0 ? draft(overage) : fees;

  return {
    tenant_id: tenantId,
    cycle,
    cycle_start: start.toISOString(),
    cycle_end: end.toISOString(),
    is_current: isCurrent,
    plan: terms.plan,
    terms: {
      executions_per_month: limit,
      overage_unit_usd: formatUnitUsd(terms.overageUnitMicroUsd),
      monthly_fee_usd: formatUsd(terms.monthlyFeeMicroUsd),
      requests_per_minute: terms.requestsPerMinute,
    },
    executions: { used, limit, remaining: limit === null ? null : Math.max(0, limit - used), overage, failed },
    overage_cost_usd: formatUsd(total - fees),
    projected_total_usd: formatUsd(total),
    plan_changes: changes.map(presentChange),
    daily,
    by_module: byModule,
  };
}

/** The tenant's first change of terms at or after `at` (its `from_terms` were in force before it). */
async function firstChangeFrom(db: Executor, tenantId: string, at: Date): Promise<PlanChangeRow | undefined> {
  const [row] = await db
    .select()
    .from(planChanges)
    .where(and(eq(planChanges.tenantId, tenantId), gte(planChanges.changedAt, at)))
    .orderBy(asc(planChanges.changedAt), asc(planChanges.id))
    .limit(1);
  return row;
}

function presentChange(row: PlanChangeRow) {
  return { from_plan: row.fromTerms.plan, to_plan: row.toTerms.plan, changed_at: row.changedAt.toISOString(), actor: row.actor };
}
