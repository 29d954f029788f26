import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { cycleOf, cycleWindow } from '../billing/usage';
import { formatUsd } from '../billing/money';
import type { Executor } from '../db';
import { executions, keyRefusals, keyUsageCounters } from '../db/schema';
import { invalidRequest, notFound } from '../lib/errors';
import { utcDay } from '../metering/request-counts';
import type { Services } from '../services';
import { findActiveKey } from './queries';
import type { KeyUsage, KeyUsageInput } from './schema';

const DAY_MS = 86_400_000;

/**
 * GET /api/v1/keys/{key_id}/usage: one key's cycle, from the tenant's own rows only. Executions
 * per UTC day by outcome come from the execution records, spend from the key's usage counter (the
 * figure its spend cap is held to), refusals from `key_refusals`. Another tenant's key is 404; a
 * cycle that has not begun, or one before the key was created, is 400 `invalid_request`.
 */
export async function getKeyUsage(svc: Services, principal: Principal, input: KeyUsageInput, now = new Date()): Promise<KeyUsage> {
  const tenantId = principal.tenantId;
  const key = await findActiveKey(svc.db, tenantId, input.key_id);
  if (!key) throw notFound('key');
  const cycle = checkedCycle(input.cycle, cycleOf(now), cycleOf(key.createdAt));
  const { start, end } = cycleWindow(cycle);
  // This instance's refusals not yet written (refusal-counts.ts) are in the answer too.
  if (cycle === cycleOf(now)) await svc.keyRefusals.flush().catch(() => {});

  const [byDay, refusedByDay, spend] = await Promise.all([
    executionsByDay(svc.db, tenantId, key.id, start, end),
    refusalsByDay(svc.db, tenantId, key.id, start, end),
    spendMicroUsd(svc.db, tenantId, key.id, utcDay(start)),
  ]);

  const refusedPerDay = new Map<string, number>();
  for (const r of refusedByDay) refusedPerDay.set(r.day, (refusedPerDay.get(r.day) ?? 0) + r.count);
  const lastDay = cycle === cycleOf(now) ? Math.floor(now.getTime() / DAY_MS) * DAY_MS : end.getTime() - DAY_MS;
  const days: KeyUsage['days'] = [];
  for (let t = start.getTime(); t <= lastDay; t += DAY_MS) {
    const date = utcDay(new Date(t));
    const d = byDay.get(date);
    days.push({ date, succeeded: d?.succeeded ?? 0, failed: d?.failed ?? 0, refused: refusedPerDay.get(date) ?? 0 });
  }
  const total = [...byDay.values()].reduce(
    (sum, d) => ({ total: sum.total + d.total, succeeded: sum.succeeded + d.succeeded, failed: sum.failed + d.failed }),
    { total: 0, succeeded: 0, failed: 0 },
  );

  return {
    key_id: key.id,
    cycle: { start: start.toISOString(), end: end.toISOString() },
    executions: total,
    spend_usd: formatUsd(spend),
    days,
    refusals: refusalsByReason(refusedByDay),
  };
}

/** The cycle asked for (default the current one), refused when it has not begun or precedes the key. */
function checkedCycle(asked: string | undefined, current: string, first: string): string {
  const cycle = asked ?? current;
  if (cycle > current) {
    throw invalidRequest(`The billing cycle ${cycle} has not begun; the current one is ${current}.`, [
      { path: 'cycle', message: `Not later than ${current}` },
    ]);
  }
  if (cycle < first) {
    throw invalidRequest(`The key was created in ${first}; there is no usage for ${cycle}.`, [
      { path: 'cycle', message: `Not earlier than ${first}` },
    ]);
  }
  return cycle;
}

/** The key's executions per UTC day: a range scan of `executions_tenant_created_idx`, filtered by key. */
async function executionsByDay(db: Executor, tenantId: string, keyId: string, start: Date, end: Date) {
  const rows = await db
    .select({
      day: sql<string>`to_char(${executions.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      total: sql<number>`count(*)::int`,
      succeeded: sql<number>`(count(*) filter (where ${executions.status} = 'success'))::int`,
      failed: sql<number>`(count(*) filter (where ${executions.status} = 'failed'))::int`,
    })
    .from(executions)
    .where(
      and(eq(executions.tenantId, tenantId), gte(executions.createdAt, start), lt(executions.createdAt, end), eq(executions.keyId, keyId)),
    )
    .groupBy(sql`1`);
  return new Map(rows.map((r) => [r.day, r]));
}

function refusalsByDay(db: Executor, tenantId: string, keyId: string, start: Date, end: Date) {
  return db
    .select({ day: keyRefusals.day, reason: keyRefusals.reason, count: keyRefusals.count })
    .from(keyRefusals)
    .where(
      and(
        eq(keyRefusals.tenantId, tenantId),
        eq(keyRefusals.keyId, keyId),
        gte(keyRefusals.day, utcDay(start)),
        lt(keyRefusals.day, utcDay(end)),
      ),
    );
}

async function spendMicroUsd(db: Executor, tenantId: string, keyId: string, cycleStart: string): Promise<number> {
  const [row] = await db
    .select({ spend: keyUsageCounters.spendMicroUsd })
    .from(keyUsageCounters)
    .where(and(eq(keyUsageCounters.tenantId, tenantId), eq(keyUsageCounters.keyId, keyId), eq(keyUsageCounters.cycleStart, cycleStart)))
    .limit(1);
  return row?.spend ?? 0;
}

function refusalsByReason(rows: { reason: string; count: number }[]): KeyUsage['refusals'] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.reason, (counts.get(r.reason) ?? 0) + r.count);
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/**
 * Counts one request the key's policy refused (`reason`: the refusal's reason or the cap that was
 * reached) for today (UTC), in memory, written within seconds (refusal-counts.ts): a key
 * hammering past its own limit costs no write per refusal. A principal without a key (a session)
 * is not counted.
 */
export function recordKeyRefusal(svc: Services, principal: Principal, reason: string): void {
  if (principal.keyId) svc.keyRefusals.count(principal.tenantId, principal.keyId, reason);
}
