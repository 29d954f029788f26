/**
 * The plans and every number that differs between them (docs/billing.md). The server enforces
 * these values and the dashboard shows them; both read them from here.
 */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  /** null = unlimited */
  executionsPerMonth: number | null;
  concurrency: number;
  /** Installed-module limit; null = unlimited. */
  modules: number | null;
  /** Memory entries a tenant may keep (all agents together); null = unlimited. */
  memoryEntries: number | null;
  /** Workflow definitions per tenant (a guard against runaway automation, the same on every plan). */
  workflows: number;
  /** Webhook subscriptions per tenant, on the plans that have webhooks (a guard like `workflows`). */
  webhookSubscriptions: number;
  /** Members a tenant may have, its owner included (pending invitations count); null = unlimited. */
  seats: number | null;
  /** Days the audit log keeps an entry. */
  auditRetentionDays: number;
  /** What happens past the monthly quota. */
  overage: 'pause' | 'metered' | 'custom';
  /** Overage price per execution in micro-dollars. */
  overageMicroUsd: number;
  priceMicroUsdPerMonth: number;
}

export const PLANS: Record<Plan, PlanLimits> = {
  free: {
    requestsPerMinute: 60,
    executionsPerMonth: 1_000,
    concurrency: 5,
    modules: 10,
    memoryEntries: 1_000,
    workflows: 200,
    webhookSubscriptions: 50,
    seats: 1,
    auditRetentionDays: 30,
    overage: 'pause',
    overageMicroUsd: 0,
    priceMicroUsdPerMonth: 0,
  },
  pro: {
    requestsPerMinute: 300,
    executionsPerMonth: 50_000,
    concurrency: 25,
    modules: 50,
    memoryEntries: 50_000,
    workflows: 200,
    webhookSubscriptions: 50,
    seats: 5,
    auditRetentionDays: 90,
    overage: 'metered',
    overageMicroUsd: 1_000,
    priceMicroUsdPerMonth: 29_000_000,
  },
  business: {
    requestsPerMinute: 1_000,
    executionsPerMonth: 500_000,
    concurrency: 100,
    modules: 200,
    memoryEntries: 500_000,
    workflows: 200,
    webhookSubscriptions: 50,
    seats: 25,
    auditRetentionDays: 365,
    overage: 'metered',
    overageMicroUsd: 1_000,
    priceMicroUsdPerMonth: 299_000_000,
  },
  enterprise: {
    requestsPerMinute: 5_000,
    executionsPerMonth: null,
    concurrency: 500,
    modules: null,
    memoryEntries: null,
    workflows: 200,
    webhookSubscriptions: 50,
    seats: null,
    auditRetentionDays: 730,
    overage: 'custom',
    overageMicroUsd: 0,
    priceMicroUsdPerMonth: 0,
  },
};

/** Whether a tenant may move to or off this plan itself (PUT /api/v1/billing/plan); enterprise is a contract an operator sets. */
export function isSelfServe(plan: Plan): boolean {
  return plan !== 'enterprise';
}

/** Features some plans lack, with the lowest plan that has them. */
export const PLAN_FEATURES = {
  multiple_keys: { minPlan: 'pro', label: 'Creating additional API keys' },
  webhooks: { minPlan: 'pro', label: 'Webhooks' },
} as const satisfies Record<string, { minPlan: Plan; label: string }>;

export type PlanFeature = keyof typeof PLAN_FEATURES;

export function planAllows(plan: Plan, feature: PlanFeature): boolean {
  return PLAN_NAMES.indexOf(plan) >= PLAN_NAMES.indexOf(PLAN_FEATURES[feature].minPlan);
}

/** The message of a 403 `plan_required`: what is asked for and the lowest plan that has it. */
export function planRequiredMessage(plan: string, what: string): string {
  return `${what} needs the ${plan} plan or above.`;
}

/** The `limits` object of registration and tenant views. */
export function publicLimits(plan: Plan) {
  return { modules: PLANS[plan].modules, executions_per_month: PLANS[plan].executionsPerMonth };
}
