import { planAllows, PLAN_FEATURES, PLAN_NAMES, PLANS, type Plan, type PlanFeature } from '../contract/plans';
import { planRequired } from '../lib/errors';

export {
  isSelfServe,
  PLAN_FEATURES,
  PLAN_NAMES,
  planAllows,
  PLANS,
  publicLimits,
  type Plan,
  type PlanFeature,
  type PlanLimits,
} from '../contract/plans';

/** Throws 403 `plan_required` when the plan lacks the feature. */
export function assertPlanAllows(plan: Plan, feature: PlanFeature): void {
  if (!planAllows(plan, feature)) {
    const { minPlan, label } = PLAN_FEATURES[feature];
    throw planRequired(minPlan, label);
  }
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
    const past =
      p.overage === 'pause'
        ? 'paused until the next cycle'
        : p.overage === 'custom'
          ? 'custom price per execution'
          : `${usd(p.overageMicroUsd)} USD per execution`;
    return `| \`${name}\` | ${fee} | ${count(p.requestsPerMinute)} | ${count(p.executionsPerMonth)} | ${p.concurrency} | ${count(p.modules)} | ${past} |`;
  });
  return [
    '| Plan | Monthly fee | Requests / minute | Executions / month | Concurrency | Modules | Past the quota |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The installed-module limits of the plans that have one, as prose: "free 10, pro 50, business 200". */
export function describeModuleLimits(): string {
  return PLAN_NAMES.flatMap((name) => (PLANS[name].modules === null ? [] : [`${name} ${PLANS[name].modules}`])).join(', ');
}
