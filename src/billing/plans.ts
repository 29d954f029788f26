import { isSelfServe, PLAN_FEATURES, PLAN_NAMES, PLANS, planAllows, type PlanFeature } from '../tenants/plans';
import { formatUnitUsd } from './money';
import type { PlanCatalog } from './schema';

/**
 * GET /api/v1/billing/plans: every plan's price, limits, overage and features, read from PLANS
 * and PLAN_FEATURES (the table metering, usage and invoices apply), never restated. Money is USD
 * as the terms of a tenant show it (formatUnitUsd: "29.00", "0.001").
 */
export function listPlans(): PlanCatalog {
  return {
    data: PLAN_NAMES.map((plan) => {
      const row = PLANS[plan];
      const custom = row.overage === 'custom';
      return {
        plan,
        self_serve: isSelfServe(plan),
        custom_pricing: custom,
        monthly_fee_usd: custom ? null : formatUnitUsd(row.priceMicroUsdPerMonth),
        requests_per_minute: row.requestsPerMinute,
        executions_per_month: row.executionsPerMonth,
        concurrency: row.concurrency,
        modules: row.modules,
        overage: row.overage,
        overage_unit_usd: custom ? null : formatUnitUsd(row.overageMicroUsd),
        features: Object.fromEntries((Object.keys(PLAN_FEATURES) as PlanFeature[]).map((f) => [f, planAllows(plan, f)])) as Record<
          PlanFeature,
          boolean
        >,
      };
    }),
  };
}
