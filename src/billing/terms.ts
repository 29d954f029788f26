import type { TermsSnapshot } from '../db/schema/billing';
import type { TenantTermsColumns } from '../auth/principal';
import { effectiveTerms, type EffectiveTerms } from '../tenants/plans';

/** A tenant's current terms as recorded in `plan_changes`: its plan and overrides (null = the plan's value). */
export function termsSnapshot(tenant: Omit<TenantTermsColumns, 'id'>): TermsSnapshot {
  return {
    plan: tenant.plan,
    requests_per_minute: tenant.requestsPerMinute,
    executions_per_month: tenant.executionsPerMonth,
    overage_unit_micro_usd: tenant.overageUnitMicroUsd,
    monthly_fee_micro_usd: tenant.monthlyFeeMicroUsd,
  };
}

/** The effective terms a snapshot stands for (its null fields are the plan's values). */
export function snapshotTerms(snapshot: TermsSnapshot): EffectiveTerms {
  return effectiveTerms(snapshot.plan, {
    requestsPerMinute: snapshot.requests_per_minute,
    executionsPerMonth: snapshot.executions_per_month,
    overageUnitMicroUsd: snapshot.overage_unit_micro_usd,
    monthlyFeeMicroUsd: snapshot.monthly_fee_micro_usd,
  });
}

/** Whether two snapshots are the same plan with the same overrides. */
export function sameTerms(a: TermsSnapshot, b: TermsSnapshot): boolean {
  return (
    a.plan === b.plan &&
    a.requests_per_minute === b.requests_per_minute &&
    a.executions_per_month === b.executions_per_month &&
    a.overage_unit_micro_usd === b.overage_unit_micro_usd &&
    a.monthly_fee_micro_usd === b.monthly_fee_micro_usd
  );
}
