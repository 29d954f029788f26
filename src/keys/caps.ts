/**
 * A key's caps per billing cycle (docs/policies.md): `executions_per_month` and `spend_cap_usd`,
 * reserved in the transaction that starts the execution, under the key's counter row lock, as
 * the tenant's quota is under its own: exact under concurrency, on both backends and across
 * instances. Spend is valued at the tenant's price per execution past its quota (its overage
 * price), whether or not the execution is past the quota.
 *
 * Every transaction that reserves locks its tenants' execution counters before its keys'
 * counters, and its keys' counters in key order, so no two of them wait for each other.
 */
import { principalTerms, type Principal } from '../auth/principal';
import { formatUsd } from '../billing/money';
import { APPROACHING_SHARE } from '../billing/thresholds';
import { queryRows, type Tx } from '../db';
import { AppError } from '../lib/errors';
import { cycleStart, nextCycleStart } from '../metering/cycle';
import { statementRows } from '../db/statements';
import { lockedCountersCte, type FlushReservation, type Outbox, type TenantGroup } from '../outbox';
import { sqlWithParams } from '../outbox/statement';
import type { Services } from '../services';
import { queueKeyAlert } from './alerts';
import type { CapName } from './policy-rules';

export interface KeyCaps {
  executions: number | null;
  spendMicroUsd: number | null;
  priceMicroUsd: number;
}

/** The caps of the caller's key, or undefined when its policy sets none. */
export function keyCapsOf(principal: Principal): KeyCaps | undefined {
  const policy = principal.policy;
  const executions = policy?.stored.executions_per_month;
  if (!principal.keyId || !policy || (executions === undefined && policy.spendCapMicroUsd === undefined)) return undefined;
  return {
    executions: executions ?? null,
    spendMicroUsd: policy.spendCapMicroUsd ?? null,
    priceMicroUsd: principalTerms(principal).overageUnitMicroUsd,
  };
}

/** `n` executions of one key under its caps. */
interface KeyReservation {
  keyId: string;
  tenantId: string;
  caps: KeyCaps;
  n: number;
}

/**
 * Per key of $1 (in key order): its counter of the cycle starting $2 moves by its `n` executions
 * and their price, or not at all when they do not all fit under its caps. Answers the keys it
 * moved. `lockTenants`: first locks the keys' tenants' execution counters (a flush's; a call on its
 * own has counted its tenant's already).
 */
const reserveSql = (lockTenants: boolean) => `with req as (
  select * from jsonb_to_recordset($1::jsonb) as r(key_id text, tenant_id uuid, n int, price bigint, max_executions int, max_spend bigint)
)${lockTenants ? `, ${lockedCountersCte('select tenant_id from req', '$2')}` : ''}
insert into key_usage_counters as k (key_id, tenant_id, cycle_start, executions, spend_micro_usd)
select r.key_id, r.tenant_id, $2::date, r.n, r.n * r.price from req r
where (r.max_executions is null or r.n <= r.max_executions) and (r.max_spend is null or r.n * r.price <= r.max_spend)
  ${lockTenants ? 'and (select count(*) from locked) > 0' : ''}
order by r.key_id
on conflict (key_id, cycle_start) do update set
  executions = k.executions + excluded.executions,
  spend_micro_usd = k.spend_micro_usd + excluded.spend_micro_usd,
  updated_at = now()
where (select (r.max_executions is null or k.executions + excluded.executions <= r.max_executions)
  and (r.max_spend is null or k.spend_micro_usd + excluded.spend_micro_usd <= r.max_spend) from req r where r.key_id = k.key_id)
returning k.key_id, k.executions, k.spend_micro_usd, k.approaching_at, k.exceeded_at`;

const RESERVE_ONE_SQL = reserveSql(false);
const RESERVE_FLUSH_SQL = reserveSql(true);

/** Takes back reservations of $1 (their tenants' quota refused them) in the same transaction. */
const RELEASE_SQL = `update key_usage_counters k set
  executions = k.executions - r.n, spend_micro_usd = k.spend_micro_usd - r.n * r.price, updated_at = now()
from jsonb_to_recordset($1::jsonb) as r(key_id text, n int, price bigint)
where k.key_id = r.key_id and k.cycle_start = $2::date`;

const USED_SQL = `select executions, spend_micro_usd from key_usage_counters where key_id = $1 and cycle_start = $2::date`;

const MARK_SQL = (column: 'approaching_at' | 'exceeded_at') =>
  `update key_usage_counters set ${column} = now() where key_id = $1 and cycle_start = $2::date and ${column} is null returning key_id`;

interface Counter {
  key_id: string;
  executions: number;
  spend_micro_usd: number | string;
  approaching_at: unknown;
  exceeded_at: unknown;
}

function reservationParam(reservations: KeyReservation[]): string {
  return JSON.stringify(
    reservations.map(({ keyId, tenantId, caps, n }) => ({
      key_id: keyId,
      tenant_id: tenantId,
      n,
      price: caps.priceMicroUsd,
      max_executions: caps.executions,
      max_spend: caps.spendMicroUsd,
    })),
  );
}

/** Moves each key's counter by its reservation, or not at all; answers the counters moved, by key. */
async function reserveKeyCounts(
  svc: Services,
  tx: Tx,
  reservations: KeyReservation[],
  cycle: string,
  lockTenants: boolean,
): Promise<Map<string, Counter>> {
  const [name, text] = lockTenants ? ['amp_reserve_flush_key_caps', RESERVE_FLUSH_SQL] : ['amp_reserve_key_caps', RESERVE_ONE_SQL];
  const rows = await statementRows<Counter>(svc.database, tx, name, text, [reservationParam(reservations), cycle]);
  return new Map(rows.map((r) => [r.key_id, r]));
}

/**
 * Counts one execution (and its price) against the key's caps, or throws 429
 * `key_limit_exceeded` (the transaction then rolls back, the tenant's count with it). The call
 * that takes a cap to 80% emits `key.limit_approaching` and the one that reaches it
 * `key.limit_exceeded`, each once per key and cycle, with the owner's alert mail (alerts.ts), in
 * the same transaction. The caller has locked the tenant's execution counter.
 */
export async function reserveKeyUsage(
  svc: Services,
  tx: Tx,
  out: Outbox,
  principal: Principal,
  caps: KeyCaps,
  now = new Date(),
): Promise<void> {
  const cycle = cycleStart(now);
  const reservation = { keyId: principal.keyId!, tenantId: principal.tenantId, caps, n: 1 };
  const counter = (await reserveKeyCounts(svc, tx, [reservation], cycle, false)).get(reservation.keyId);
  if (!counter) throw await capReached(tx, reservation.keyId, caps, cycle, now);
  await noteCrossedMarks(svc, tx, out, reservation, counter, now);
}

interface KeyOfFlush<I> {
  reservation: KeyReservation;
  group: TenantGroup<I>;
  entries: TenantGroup<I>['entries'];
}

/**
 * The caps of the keys of a flush's calls (src/outbox/batch.ts `reserve`): each key's calls are
 * reserved together, all or none. A key whose calls do not all fit has them written one by one
 * after the flush (so each is decided as if alone), or refuses its only call. After the flush's
 * statement, a key whose tenant's quota refused its group gives its reservation back; the others
 * emit the marks they crossed.
 */
export async function reserveFlushKeyCaps<I extends { principal: Principal }>(
  svc: Services,
  tx: Tx,
  out: Outbox,
  groups: TenantGroup<I>[],
  now: Date,
): Promise<FlushReservation<I>> {
  type Entry = TenantGroup<I>['entries'][number];
  const refused = new Map<Entry, unknown>();
  const alone = new Set<Entry>();
  const keys = new Map<string, KeyOfFlush<I>>();
  for (const group of groups)
    for (const entry of group.entries) {
      const caps = keyCapsOf(entry.item.principal);
      if (!caps) continue;
      const keyId = entry.item.principal.keyId!;
      const key = keys.get(keyId);
      if (!key) keys.set(keyId, { reservation: { keyId, tenantId: entry.row.tenantId, caps, n: 1 }, group, entries: [entry] });
      else if (sameCaps(key.reservation.caps, caps)) key.entries.push(entry);
      else alone.add(entry); // its policy changed while the key's other calls were in flight
    }
  if (keys.size === 0) return { refused, alone, settle: async () => {} };

  const cycle = cycleStart(now);
  for (const key of keys.values()) key.reservation.n = key.entries.length;
  const counters = await reserveKeyCounts(
    svc,
    tx,
    [...keys.values()].map((k) => k.reservation),
    cycle,
    true,
  );
  const reserved: (KeyOfFlush<I> & { counter: Counter })[] = [];
  for (const key of keys.values()) {
    const counter = counters.get(key.reservation.keyId);
    if (counter) reserved.push({ ...key, counter });
    else if (key.entries.length === 1)
      refused.set(key.entries[0]!, await capReached(tx, key.reservation.keyId, key.reservation.caps, cycle, now));
    else for (const entry of key.entries) alone.add(entry);
  }
  return {
    refused,
    alone,
    settle: async (admitted) => {
      const givenBack = reserved.filter((k) => !admitted(k.group));
      if (givenBack.length > 0)
        await queryRows(tx, sqlWithParams(RELEASE_SQL, [reservationParam(givenBack.map((k) => k.reservation)), cycle]));
      for (const key of reserved) if (admitted(key.group)) await noteCrossedMarks(svc, tx, out, key.reservation, key.counter, now);
    },
  };
}

function sameCaps(a: KeyCaps, b: KeyCaps): boolean {
  return a.executions === b.executions && a.spendMicroUsd === b.spendMicroUsd && a.priceMicroUsd === b.priceMicroUsd;
}

interface Usage {
  executions: number;
  spend: number;
}

/**
 * The marks (80%, the cap) the reservation's calls crossed, each written once per key and cycle
 * with its event and alert. `used` is the key's count at the call that crossed it, as if the
 * calls had been reserved one by one.
 */
async function noteCrossedMarks(svc: Services, tx: Tx, out: Outbox, reservation: KeyReservation, counter: Counter, now: Date) {
  const { keyId, tenantId, caps, n } = reservation;
  const after: Usage = { executions: Number(counter.executions), spend: Number(counter.spend_micro_usd) };
  const before: Usage = { executions: after.executions - n, spend: after.spend - n * caps.priceMicroUsd };
  for (const [type, column, share] of [
    ['key.limit_approaching', 'approaching_at', APPROACHING_SHARE],
    ['key.limit_exceeded', 'exceeded_at', 1],
  ] as const) {
    if (counter[column] !== null) continue;
    const crossed = crossedMark(caps, before, n, (cap) => (share === 1 ? cap : Math.ceil(cap * share)));
    if (!crossed) continue;
    const [marked] = await queryRows(tx, sqlWithParams(MARK_SQL(column), [keyId, cycleStart(now)]));
    if (!marked) continue;
    const data = limitEventData(keyId, crossed.limit, caps, crossed.used, now);
    await out.emit(tenantId, type, data);
    await queueKeyAlert(svc, tx, {
      kind: type === 'key.limit_approaching' ? 'approaching' : 'exceeded',
      tenantId,
      keyId,
      limit: crossed.limit,
      used: data.used,
      cap: data.cap,
      periodEnd: data.period_end,
    });
  }
}

/**
 * The first of the `n` calls after `before` whose count reaches a cap's mark, and which cap
 * (executions first when one call reaches both).
 */
function crossedMark(caps: KeyCaps, before: Usage, n: number, mark: (cap: number) => number): { limit: CapName; used: Usage } | undefined {
  const price = caps.priceMicroUsd;
  const callsTo = (limit: CapName): number | undefined => {
    if (limit === 'executions_per_month') {
      if (caps.executions === null) return undefined;
      return Math.max(1, mark(caps.executions) - before.executions);
    }
    if (caps.spendMicroUsd === null || caps.spendMicroUsd <= 0) return undefined;
    const short = mark(caps.spendMicroUsd) - before.spend;
    if (short <= 0) return 1;
    return price > 0 ? Math.ceil(short / price) : undefined;
  };
  let first: { limit: CapName; call: number } | undefined;
  for (const limit of ['executions_per_month', 'spend_cap_usd'] as const) {
    const call = callsTo(limit);
    if (call !== undefined && call <= n && (!first || call < first.call)) first = { limit, call };
  }
  if (!first) return undefined;
  return { limit: first.limit, used: { executions: before.executions + first.call, spend: before.spend + first.call * price } };
}

function limitEventData(keyId: string, limit: CapName, caps: KeyCaps, used: Usage, now: Date) {
  const spend = limit === 'spend_cap_usd';
  return {
    key_id: keyId,
    limit,
    used: spend ? formatUsd(used.spend) : used.executions,
    cap: spend ? formatUsd(caps.spendMicroUsd!) : caps.executions!,
    period_end: nextCycleStart(now).toISOString(),
  };
}

/** The 429 of a call a cap refused, naming the cap it would pass. */
async function capReached(tx: Tx, keyId: string, caps: KeyCaps, cycle: string, now: Date): Promise<AppError> {
  const [row] = await queryRows<{ executions: number; spend_micro_usd: number | string }>(tx, sqlWithParams(USED_SQL, [keyId, cycle]));
  const executions = Number(row?.executions ?? 0);
  const limit: CapName = caps.executions !== null && executions + 1 > caps.executions ? 'executions_per_month' : 'spend_cap_usd';
  return keyLimitExceeded(limit, limit === 'executions_per_month' ? caps.executions! : formatUsd(caps.spendMicroUsd!), now);
}

export function keyLimitExceeded(limit: CapName, cap: number | string, now = new Date()): AppError {
  const resetAt = nextCycleStart(now);
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  const what = limit === 'executions_per_month' ? `${cap} executions` : `${cap} USD of executions`;
  return new AppError(
    'key_limit_exceeded',
    `This API key's policy allows ${what} per billing cycle, and they are used; calls resume at the start of the next cycle.`,
    { limit, cap, reset_at: resetAt.toISOString(), retry_after: retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
}
