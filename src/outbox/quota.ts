import { queryRows, type Executor } from '../db';
import { sqlWithParams } from './statement';

/** A tenant's terms as the quota statements take them (metering/usage.ts `quotaOf`; the billing marks of billing/thresholds.ts). */
export interface TenantTerms {
  tenantId: string;
  /** null = unlimited */
  quota: number | null;
  /** Refused past the quota (else counted as overage). */
  pauses: boolean;
  /** The count at which `billing.limit_approaching` fires (null without a quota). */
  approaching: number | null;
}

/** Per tenant: its terms and the executions to count; the counting statements' JSON parameter. */
export function countParam(groups: { terms: TenantTerms; n: number }[]): string {
  return JSON.stringify(
    groups.map(({ terms: t, n }) => ({ tenant_id: t.tenantId, n, quota: t.quota, pauses: t.pauses, approaching: t.approaching })),
  );
}

/**
 * The quota part of a statement: per tenant of `req` (countParam; in tenant order, so concurrent
 * statements lock counters in the same order), the counter of the cycle starting `cycle` moves by
 * the tenant's `n`, or not at all when they do not all fit in a pausing quota. `counted` holds
 * the tenants it moved, with their count after. The one place the execution counter moves.
 *
 * `quiet` (a statement that is its own transaction): it moves only the counters of tenants for
 * which the statement is the whole transaction: no billing mark crossed by the move, and, with
 * `withoutSubscriptions` (noSubscription of the deliveries), no active webhook subscription. The
 * others it leaves untouched.
 */
export function countCtes(req: string, cycle: string, quiet?: { withoutSubscriptions?: (tenant: string) => string }): string {
  const pool = quiet?.withoutSubscriptions ? 'quiet' : 'req';
  const quietCte = quiet?.withoutSubscriptions ? `quiet as (select * from req r where ${quiet.withoutSubscriptions('r.tenant_id')}),` : '';
  const crossesNoMark = (before: string, after: string) =>
    quiet
      ? ` and (r.quota is null or not ((${before} < r.approaching and ${after} >= r.approaching) or (${before} < r.quota and ${after} >= r.quota)))`
      : '';
  return `req as (
  select * from jsonb_to_recordset(${req}::jsonb) as r(tenant_id uuid, n int, quota int, pauses boolean, approaching int)
),${quietCte}
counted as (
  insert into usage_counters as u (tenant_id, cycle_start, executions, overage, updated_at)
  select r.tenant_id, ${cycle}::date, r.n, greatest(0, r.n - r.quota), now() from ${pool} r
  where (not r.pauses or r.n <= r.quota)${crossesNoMark('0', 'r.n')}
  order by r.tenant_id
  on conflict (tenant_id, cycle_start) do update set
    executions = u.executions + excluded.executions,
    overage = u.overage + (select greatest(0, u.executions + excluded.executions - r.quota) - greatest(0, u.executions - r.quota) from req r where r.tenant_id = u.tenant_id),
    updated_at = excluded.updated_at
  where (select (not r.pauses or u.executions + excluded.executions <= r.quota)${crossesNoMark('u.executions', 'u.executions + excluded.executions')} from req r where r.tenant_id = u.tenant_id)
  returning u.tenant_id, u.executions
)`;
}

/**
 * The CTE `locked`: locks (creating at 0 when missing) the execution counters of the cycle
 * starting `cycle` of the tenants `tenants` (a query of a `tenant_id` column), in the order every
 * counting statement takes them. A statement that locks another counter after the tenants' (a
 * key's, keys/caps.ts) reads `locked` before it, so that two transactions never wait for each other.
 */
export function lockedCountersCte(tenants: string, cycle: string): string {
  return `locked as (
  insert into usage_counters as u (tenant_id, cycle_start, executions, overage, updated_at)
  select distinct t.tenant_id, ${cycle}::date, 0, 0, now() from (${tenants}) t order by t.tenant_id
  on conflict (tenant_id, cycle_start) do update set updated_at = u.updated_at
  returning u.tenant_id
)`;
}

const COUNT_SQL = `with ${countCtes('$1', '$2')}
select executions from counted`;

/**
 * Counts `n` executions of one tenant in the cycle starting `cycle` (YYYY-MM-DD): its count
 * after, or null when a pausing quota refused them (nothing moved).
 */
export async function countExecutions(db: Executor, terms: TenantTerms, n: number, cycle: string): Promise<number | null> {
  const [row] = await queryRows<{ executions: number }>(db, sqlWithParams(COUNT_SQL, [countParam([{ terms, n }]), cycle]));
  return row ? Number(row.executions) : null;
}
