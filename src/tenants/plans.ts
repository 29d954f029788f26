import { planRequired } from '../lib/errors';

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  /** null = unlimited */
  executionsPerMonth: number | null;
  concurrency: number;
  /** Installed-module limit; null = unlimited. */
  modules: number | null;
  /** What happens past the monthly quota. */
  overage: 'pause' | 'metered' | 'custom';
  /** Overage price per execution in micro-dollars. */
  overageMicroUsd: number;
  priceMicroUsdPerMonth: number;
}

/** Spec §8, one table of data. */
export const PLANS: Record<Plan, PlanLimits> = {
  free: { requestsPerMinute: 60, executionsPerMonth: 1_000, concurrency: 5, modules: 10, overage: 'pause', overageMicroUsd: 0, priceMicroUsdPerMonth: 0 },
  pro: { requestsPerMinute: 300, executionsPerMonth: 50_000, concurrency: 25, modules: 50, overage: 'metered', overageMicroUsd: 1_000, priceMicroUsdPerMonth: 29_000_000 },
  business: { requestsPerMinute: 1_000, executionsPerMonth: 500_000, concurrency: 100, modules: 200, overage: 'metered', overageMicroUsd: 1_000, priceMicroUsdPerMonth: 299_000_000 },
  enterprise: { requestsPerMinute: 5_000, executionsPerMonth: null, concurrency: 500, modules: null, overage: 'custom', overageMicroUsd: 0, priceMicroUsdPerMonth: 0 },
};

/** Whether a tenant may move to or off this plan itself (PUT /api/v1/billing/plan); enterprise is a contract an operator sets. */
export function isSelfServe(plan: Plan): boolean {
  return plan !== 'enterprise';
}

/** Features some plans lack, with the lowest plan that has them (spec §8 rule 8). */
export const PLAN_FEATURES = {
  multiple_keys: { minPlan: 'pro', label: 'Creating additional API keys' },
  webhooks: { minPlan: 'pro', label: 'Webhooks' },
} as const satisfies Record<string, { minPlan: Plan; label: string }>;

export type PlanFeature = keyof typeof PLAN_FEATURES;

export function planAllows(plan: Plan, feature: PlanFeature): boolean {
  return PLAN_NAMES.indexOf(plan) >= PLAN_NAMES.indexOf(PLAN_FEATURES[feature].minPlan);
}

/** Throws 403 `plan_required` when the plan lacks the feature. */
export function assertPlanAllows(plan: Plan, feature: PlanFeature): void {
  if (!planAllows(plan, feature)) {
    const { minPlan, label } = PLAN_FEATURES[feature];
    throw planRequired(minPlan, label);
  }
}

/** The `limits` object of registration and tenant views. */
export function publicLimits(plan: Plan) {
  return { modules: PLANS[plan].modules, executions_per_month: PLANS[plan].executionsPerMonth };
}

/** A tenant's per-tenant overrides (custom contracts); null = the plan's value. */
export interface TermOverrides {
  requestsPerMinute?: number | null;
  executionsPerMonth?: number | null;
  overageUnitMicroUsd?: number | null;
  monthlyFeeMicroUsd?: number | null;
}

/** What a tenant is held to and billed at: its plan's row with the tenant's overrides applied. */
export interface EffectiveTerms {
  plan: Plan;
  requestsPerMinute: number;
  /** null = unlimited */
  executionsPerMonth: number | null;
  concurrency: number;
  modules: number | null;
  /** Past the quota: free pauses; every other plan is metered at `overageUnitMicroUsd`. */
  pausesAtQuota: boolean;
  overageUnitMicroUsd: number;
  monthlyFeeMicroUsd: number;
}

/**
 * The single reading of plan + overrides that metering, usage, invoices, headers and billing
 * events share. Enterprise is unlimited unless an operator sets a quota, and is priced by its
 * overrides (default 0).
 */
export function effectiveTerms(plan: Plan, overrides: TermOverrides = {}): EffectiveTerms {
  const row = PLANS[plan];
  return {
    plan,
    requestsPerMinute: overrides.requestsPerMinute ?? row.requestsPerMinute,
    executionsPerMonth: overrides.executionsPerMonth ?? row.executionsPerMonth,
    concurrency: row.concurrency,
    modules: row.modules,
    pausesAtQuota: row.overage === 'pause',
    overageUnitMicroUsd: overrides.overageUnitMicroUsd ?? row.overageMicroUsd,
    monthlyFeeMicroUsd: overrides.monthlyFeeMicroUsd ?? row.priceMicroUsdPerMonth,
  };
}

const count = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en-US'));
const usd = (micro: number) => (micro / 1_000_000).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** The plan table as Markdown, for the OpenAPI descriptions (generated from PLANS, never restated). */
export function describePlans(): string {
  const rows = PLAN_NAMES.map((name) => {
    const p = PLANS[name];
    const fee = p.overage === 'custom' ? 'custom' : `${usd(p.priceMicroUsdPerMonth)} USD`;
    const past = p.overage === 'pause' ? 'paused until the next cycle' : p.overage === 'custom' ? 'custom price per execution' : `${usd(p.overageMicroUsd)} USD per execution`;
    return `| \`${name}\` | ${fee} | ${count(p.requestsPerMinute)} | ${count(p.executionsPerMonth)} | ${p.concurrency} | ${count(p.modules)} | ${past} |`;
  });
  return ['| Plan | Monthly fee | Requests / minute | Executions / month | Concurrency | Modules | Past the quota |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}
