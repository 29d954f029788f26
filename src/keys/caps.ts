/**
 * A key's caps per billing cycle (docs/policies.md): `executions_per_month` and `spend_cap_usd`,
 * reserved in the transaction that starts the execution, under the key's counter row lock, as
 * the tenant's quota is under its own: exact under concurrency, on both backends and across
 * instances. Spend is valued at the tenant's price per execution past its quota (its overage
 * price), whether or not the execution is past the quota.
 */
import { principalTerms, type Principal } from '../auth/principal';
import { formatUsd } from '../billing/money';
import { APPROACHING_SHARE } from '../billing/thresholds';
import { queryRows, type Tx } from '../db';
import { AppError } from '../lib/errors';
import { cycleStart, nextCycleStart } from '../metering/cycle';
import type { Outbox } from '../outbox';
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

// $1 key, $2 tenant, $3 cycle, $4 price, $5 executions cap, $6 spend cap
const RESERVE_SQL = `insert into key_usage_counters as k (key_id, tenant_id, cycle_start, executions, spend_micro_usd)
select $1, $2::uuid, $3::date, 1, $4::bigint
where ($5::int is null or 1 <= $5::int) and ($6::bigint is null or $4::bigint <= $6::bigint)
on conflict (key_id, cycle_start) do update set
  executions = k.executions + 1,
  spend_micro_usd = k.spend_micro_usd + excluded.spend_micro_usd,
  updated_at = now()
where ($5::int is null or k.executions + 1 <= $5::int) and ($6::bigint is null or k.spend_micro_usd + excluded.spend_micro_usd <= $6::bigint)
returning executions, spend_micro_usd, approaching_at, exceeded_at`;

const USED_SQL = `select executions, spend_micro_usd from key_usage_counters where key_id = $1 and cycle_start = $2::date`;

const MARK_SQL = (column: 'approaching_at' | 'exceeded_at') =>
  `update key_usage_counters set ${column} = now() where key_id = $1 and cycle_start = $2::date and ${column} is null returning key_id`;

interface Counter {
  executions: number;
  spend_micro_usd: number | string;
  approaching_at: unknown;
  exceeded_at: unknown;
}

/**
 * Counts one execution (and its price) against the key's caps, or throws 429
 * `key_limit_exceeded` (the transaction then rolls back, the tenant's count with it). The call
 * that takes a cap to 80% emits `key.limit_approaching` and the one that reaches it
 * `key.limit_exceeded`, each once per key and cycle, with the owner's alert mail (alerts.ts), in
 * the same transaction.
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
  const keyId = principal.keyId!;
  const params = [keyId, principal.tenantId, cycle, caps.priceMicroUsd, caps.executions, caps.spendMicroUsd];
  const [counter] = await queryRows<Counter>(tx, sqlWithParams(RESERVE_SQL, params));
  if (!counter) throw await capReached(tx, keyId, caps, cycle, now);
  const used = { executions: Number(counter.executions), spend: Number(counter.spend_micro_usd) };
  const crossing = (mark: (cap: number) => number) => crossedCap(caps, used, mark);
  const approaching = counter.approaching_at === null ? crossing((cap) => Math.ceil(cap * APPROACHING_SHARE)) : undefined;
  const exceeded = counter.exceeded_at === null ? crossing((cap) => cap) : undefined;
  for (const [type, column, limit] of [
    ['key.limit_approaching', 'approaching_at', approaching],
    ['key.limit_exceeded', 'exceeded_at', exceeded],
  ] as const) {
    if (!limit) continue;
    const [marked] = await queryRows(tx, sqlWithParams(MARK_SQL(column), [keyId, cycle]));
    if (!marked) continue;
    const data = limitEventData(keyId, limit, caps, used, now);
    await out.emit(principal.tenantId, type, data);
    const kind = type === 'key.limit_approaching' ? 'approaching' : 'exceeded';
    await queueKeyAlert(svc, tx, {
      kind,
      tenantId: principal.tenantId,
      keyId,
      limit,
      used: data.used,
      cap: data.cap,
      periodEnd: data.period_end,
    });
  }
}

/** The cap (executions first) whose mark the counts have reached, if any. */
function crossedCap(caps: KeyCaps, used: { executions: number; spend: number }, mark: (cap: number) => number): CapName | undefined {
  if (caps.executions !== null && used.executions >= mark(caps.executions)) return 'executions_per_month';
  if (caps.spendMicroUsd !== null && caps.spendMicroUsd > 0 && used.spend >= mark(caps.spendMicroUsd)) return 'spend_cap_usd';
  return undefined;
}

function limitEventData(keyId: string, limit: CapName, caps: KeyCaps, used: { executions: number; spend: number }, now: Date) {
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
