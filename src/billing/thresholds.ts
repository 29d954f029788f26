import type { EventType } from '../contract/events';
import { quotaOf, type Reservation, type TenantPlan } from '../metering/usage';
import type { Outbox, TenantTerms } from '../outbox';

/** Share of the monthly quota at which `billing.limit_approaching` fires. */
export const APPROACHING_SHARE = 0.8;

/** The counts at which a quota of `limit` fires its events: `billing.limit_approaching` and `billing.limit_exceeded`. */
export function thresholdMarks(limit: number): { approaching: number; exceeded: number } {
  return { approaching: Math.ceil(limit * APPROACHING_SHARE), exceeded: limit };
}

export interface ThresholdEvent {
  type: Extract<EventType, 'billing.limit_approaching' | 'billing.limit_exceeded'>;
  data: Record<string, unknown>;
}

/**
 * The billing events a committed reservation of `n` executions causes. Decided from the count
 * the reservation returned, with no extra read: the counter only grows within a cycle and each
 * reservation moves it under the row lock, so exactly one reservation per cycle takes it across
 * 80% of the quota (`billing.limit_approaching`) and exactly one across 100%
 * (`billing.limit_exceeded`: free pauses from here, pro/business go on as overage). The quota is
 * the tenant's effective one, which the reservation carries: an enterprise tenant an operator
 * gave a quota gets both events, and overage past it.
 */
export function thresholdEvents(tenant: TenantPlan, reservation: Reservation, n: number): ThresholdEvent[] {
  const limit = reservation.limit;
  if (limit === null) return [];
  const before = reservation.used - n;
  const crossed = (mark: number) => before < mark && reservation.used >= mark;
  const common = {
    tenant_id: tenant.tenantId,
    plan: tenant.plan,
    used: reservation.used,
    limit,
    period_end: reservation.resetAt.toISOString(),
  };
  const out: ThresholdEvent[] = [];
  const marks = thresholdMarks(limit);
  if (crossed(marks.approaching)) {
    out.push({ type: 'billing.limit_approaching', data: { ...common, percent: Math.floor((reservation.used * 100) / limit) } });
  }
  if (crossed(marks.exceeded)) {
    out.push({ type: 'billing.limit_exceeded', data: { ...common, overage: !quotaOf(tenant).pausesAtQuota } });
  }
  return out;
}

/** The tenant's terms as the outbox counts executions under them (src/outbox/quota.ts). */
export function countTerms(tenant: TenantPlan): TenantTerms & { plan: string } {
  const { quota, pausesAtQuota } = quotaOf(tenant);
  return {
    tenantId: tenant.tenantId,
    plan: tenant.plan,
    quota,
    pauses: pausesAtQuota,
    approaching: quota === null ? null : thresholdMarks(quota).approaching,
  };
}

/**
 * Emits the billing events of `n` executions counted together that took the tenant's count to
 * `usedAfter`: each gets its own count, as if they had been counted one after the other, so a
 * threshold is crossed by exactly one of them.
 */
export async function emitThresholds(out: Outbox, tenant: TenantPlan, usedAfter: number, n: number, resetAt: Date): Promise<void> {
  const { quota } = quotaOf(tenant);
  if (quota === null) return;
  for (let i = 0; i < n; i++) {
    const reservation = { used: usedAfter - n + 1 + i, limit: quota, remaining: null, overage: 0, resetAt };
    for (const crossed of thresholdEvents(tenant, reservation, 1)) await out.emit(tenant.tenantId, crossed.type, crossed.data);
  }
}
