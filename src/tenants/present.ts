import { formatUnitUsd } from '../billing/money';
import type { TenantRow } from '../db/schema';
import { effectiveTerms, publicLimits, type EffectiveTerms, type Plan, type TermOverrides } from './plans';

/** A tenant row's overrides, as `effectiveTerms` reads them. */
export function rowOverrides(
  row: Pick<TenantRow, 'requestsPerMinute' | 'executionsPerMonth' | 'overageUnitMicroUsd' | 'monthlyFeeMicroUsd'>,
): TermOverrides {
  return {
    requestsPerMinute: row.requestsPerMinute,
    executionsPerMonth: row.executionsPerMonth,
    overageUnitMicroUsd: row.overageUnitMicroUsd,
    monthlyFeeMicroUsd: row.monthlyFeeMicroUsd,
  };
}

/** Effective terms on the wire (money as USD decimal strings). */
export function presentTerms(terms: EffectiveTerms) {
  return {
    requests_per_minute: terms.requestsPerMinute,
    executions_per_month: terms.executionsPerMonth,
    concurrency: terms.concurrency,
    modules: terms.modules,
    overage: terms.pausesAtQuota ? ('pause' as const) : ('metered' as const),
    overage_unit_usd: formatUnitUsd(terms.overageUnitMicroUsd),
    monthly_fee_usd: formatUnitUsd(terms.monthlyFeeMicroUsd),
  };
}

/** The limits object with the tenant's effective quota. */
export function tenantLimits(plan: Plan, terms: EffectiveTerms) {
  return { ...publicLimits(plan), executions_per_month: terms.executionsPerMonth };
}

export function presentTenant(row: TenantRow) {
  const terms = effectiveTerms(row.plan, rowOverrides(row));
  return {
    tenant_id: row.id,
    agent_name: row.agentName,
    owner_email: row.ownerEmail,
    plan: row.plan,
    limits: tenantLimits(row.plan, terms),
    requests_per_minute: terms.requestsPerMinute,
    requests_per_minute_override: row.requestsPerMinute,
    terms: presentTerms(terms),
    overrides: {
      requests_per_minute: row.requestsPerMinute,
      executions_per_month: row.executionsPerMonth,
      overage_unit_usd: row.overageUnitMicroUsd === null ? null : formatUnitUsd(row.overageUnitMicroUsd),
      monthly_fee_usd: row.monthlyFeeMicroUsd === null ? null : formatUnitUsd(row.monthlyFeeMicroUsd),
    },
    created_at: row.createdAt.toISOString(),
  };
}
