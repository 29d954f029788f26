import type { EventType } from '../contract/events';
import { quotaOf, type Reservation, type TenantPlan } from '../metering/usage';

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
  const common = { tenant_id: tenant.tenantId, plan: tenant.plan, used: reservation.used, limit, period_end: reservation.resetAt.toISOString() };
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
