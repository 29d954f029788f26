import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db';
import { usageCounters } from '../db/schema';
import { AppError } from '../lib/errors';
import { countExecutions, Outbox } from '../outbox';
import { effectiveTerms, type Plan, type TermOverrides } from '../tenants/plans';
import { cycleStart, nextCycleStart } from './cycle';

/** A tenant's plan and per-tenant terms (a `Principal` fits); absent overrides = the plan's. */
export interface TenantPlan extends TermOverrides {
  tenantId: string;
  plan: Plan;
}

/** The monthly quota the tenant is held to (null = unlimited) and whether it pauses there. */
export function quotaOf(tenant: TenantPlan): { quota: number | null; pausesAtQuota: boolean } {
  const terms = effectiveTerms(tenant.plan, tenant);
  return { quota: terms.executionsPerMonth, pausesAtQuota: terms.executionsPerMonth !== null && terms.pausesAtQuota };
}

export interface Reservation {
  /** Executions counted this cycle, including this reservation. */
  used: number;
  /** null = unlimited */
  limit: number | null;
  /** null = unlimited */
  remaining: number | null;
  /** Executions of this reservation past the quota (billed as overage). */
  overage: number;
  resetAt: Date;
}

/**
 * Checks and counts `n` executions (the outbox's countCtes, src/outbox/quota.ts), so that under
 * any concurrency, on any number of instances, a tenant never starts more executions than its
 * quota allows. Pass the unit of work that creates the execution rows (its count then reaches
 * `svc.usage` after the commit): usage then always equals recorded executions.
 * The quota is the tenant's effective one (its override, else its plan's).
 * Free plan: refused past the quota with 429 `quota_exceeded` (paused until the next cycle).
 * Pro/business: admitted, the excess counted as overage. Enterprise: unlimited, unless an
 * operator set a quota: then metered past it like pro/business.
 */
export async function reserveExecutions(via: Executor | Outbox, tenant: TenantPlan, n = 1, now = new Date()): Promise<Reservation> {
  if (!Number.isInteger(n) || n < 1) throw new Error('reserveExecutions: n must be a positive integer');
  const { quota, pausesAtQuota } = quotaOf(tenant);
  const resetAt = nextCycleStart(now);
  if (pausesAtQuota && quota !== null && n > quota) throw quotaExceeded(quota, resetAt, now);
  const terms = { tenantId: tenant.tenantId, quota, pauses: pausesAtQuota, approaching: null };
  const used = via instanceof Outbox ? await via.count(terms, n, cycleStart(now)) : await countExecutions(via, terms, n, cycleStart(now));
  if (used === null) throw quotaExceeded(quota!, resetAt, now);
  return {
    used,
    limit: quota,
    remaining: quota === null ? null : Math.max(0, quota - used),
    overage: quota === null ? 0 : Math.max(0, used - quota) - Math.max(0, used - n - quota),
    resetAt,
  };
}

/** Executions used this cycle (0 when none yet). */
export async function executionsUsed(db: Executor, tenantId: string, now = new Date()): Promise<number> {
  const [row] = await db
    .select({ executions: usageCounters.executions })
    .from(usageCounters)
    .where(and(eq(usageCounters.tenantId, tenantId), eq(usageCounters.cycleStart, cycleStart(now))))
    .limit(1);
  return row?.executions ?? 0;
}

export function quotaExceeded(limit: number, resetAt: Date, now = new Date()) {
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return new AppError(
    'quota_exceeded',
    'The monthly execution quota of the plan is exhausted; executions resume at the start of the next billing cycle.',
    { limit, reset_at: resetAt.toISOString(), retry_after: retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
}

/**
 * Executions used per tenant, cached for the X-Execution-Remaining header so that ordinary
 * requests do not read the counter each time. Entries live one second (other instances'
 * reservations show up by then); this instance's reservations update them at once.
 */
export class UsageCache {
  private entries = new Map<string, { used: number; at: number; cycle: string }>();

  constructor(private readonly ttlMs = 1000) {}

  async used(db: Executor, tenantId: string): Promise<number> {
    const now = Date.now();
    const cycle = cycleStart();
    const hit = this.entries.get(tenantId);
    if (hit && hit.cycle === cycle && now - hit.at < this.ttlMs) return hit.used;
    const used = await executionsUsed(db, tenantId);
    if (this.entries.size > 100_000) this.entries.clear();
    this.entries.set(tenantId, { used, at: now, cycle });
    return used;
  }

  /** Records a committed reservation's result. */
  note(tenantId: string, used: number): void {
    this.entries.set(tenantId, { used, at: Date.now(), cycle: cycleStart() });
  }
}

/** The X-Execution-Remaining value: executions left this cycle, or `unlimited`. */
export async function executionsRemaining(db: Executor, tenant: TenantPlan, cache?: UsageCache): Promise<string> {
  const { quota } = quotaOf(tenant);
  if (quota === null) return 'unlimited';
  const used = cache ? await cache.used(db, tenant.tenantId) : await executionsUsed(db, tenant.tenantId);
  return String(Math.max(0, quota - used));
}
