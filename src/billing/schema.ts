import { z } from 'zod';
import { PLAN_FEATURES, PLAN_NAMES, type PlanFeature } from '../tenants/plans';

const usd = (what: string) => z.string().describe(`${what}, USD as a decimal string with exactly two decimals (e.g. \`"29.25"\`)`);
const day = z.string().describe('UTC day, `YYYY-MM-DD`');

/** `GET /api/v1/billing/usage?cycle=YYYY-MM` */
export const usageInput = z.strictObject({
  cycle: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A billing cycle is written YYYY-MM (e.g. 2026-11)')
    .optional()
    .describe(
      'The billing cycle (calendar month, UTC) to read, `YYYY-MM`; default the current one. Past cycles back to the month the tenant registered.',
    ),
});

export type UsageInput = z.infer<typeof usageInput>;

export const usageView = z
  .object({
    tenant_id: z.string(),
    cycle: z.string().describe('The billing cycle, `YYYY-MM` (a calendar month in UTC)'),
    cycle_start: z.string().describe('Start of the cycle (ISO 8601, inclusive)'),
    cycle_end: z.string().describe('End of the cycle (ISO 8601, exclusive): the start of the next cycle, when the quota resets'),
    is_current: z.boolean().describe('Whether this is the cycle in progress'),
    plan: z.enum(PLAN_NAMES).describe('The plan in force: now for the current cycle, at its end for a past one'),
    terms: z
      .object({
        executions_per_month: z.number().int().nullable().describe('Monthly execution quota; null = unlimited'),
        overage_unit_usd: z
          .string()
          .describe('Price per execution past the quota, USD decimal string (e.g. `"0.001"`); `"0.00"` where the plan pauses instead'),
        monthly_fee_usd: usd('Monthly fee'),
        requests_per_minute: z.number().int(),
      })
      .describe("The tenant's effective terms (its plan with any per-tenant overrides) that the cycle is priced at"),
    executions: z.object({
      used: z
        .number()
        .int()
        .describe('Executions recorded in the cycle (every transport: REST, batch, chain, MCP, A2A, workflows; each once)'),
      limit: z.number().int().nullable().describe('The quota; null = unlimited'),
      remaining: z.number().int().nullable().describe('max(0, limit - used); null = unlimited'),
      overage: z
        .number()
        .int()
        .describe(
          'Executions past the quota, as the invoice bills them: max(0, used - limit), unless the quota changed during the cycle (then the executions that ran past the quota in force when they ran); 0 when unlimited',
        ),
      failed: z.number().int().describe('Executions of the cycle that failed (they count toward the quota too)'),
    }),
    overage_cost_usd: usd(
      'overage × the overage unit price (of the terms at the end of the cycle, or the last metered ones if those pause at the quota), as the invoice bills it',
    ),
    projected_total_usd: usd(
      'The invoice total this cycle comes to if nothing changes, priced as the invoice is: the monthly fee (prorated by days on each plan when the plan changed in the cycle, each line rounded to the cent) plus the overage cost so far',
    ),
    plan_changes: z
      .array(
        z.object({
          from_plan: z.enum(PLAN_NAMES),
          to_plan: z.enum(PLAN_NAMES),
          changed_at: z.string(),
          actor: z.string().describe('`tenant` (PUT /api/v1/billing/plan) or `admin`'),
        }),
      )
      .describe('Changes of plan or terms during the cycle, oldest first'),
    daily: z
      .array(
        z.object({
          date: day,
          executions: z.number().int(),
          failures: z.number().int(),
          requests: z.number().int().describe('Authenticated API requests counted against the request limit that day'),
        }),
      )
      .describe('One entry per UTC day of the cycle, zeros included: up to today for the current cycle, every day for a past one'),
    by_module: z
      .array(z.object({ module: z.string(), executions: z.number().int(), failures: z.number().int() }))
      .describe('Executions per module in the cycle, most executed first'),
  })
  .meta({ id: 'Usage' });

export type UsageView = z.infer<typeof usageView>;

const featureNames = Object.keys(PLAN_FEATURES) as PlanFeature[];

/** One plan of `GET /api/v1/billing/plans`, generated from PLANS and PLAN_FEATURES (src/tenants/plans.ts). */
export const planOfferView = z
  .object({
    plan: z.enum(PLAN_NAMES),
    self_serve: z
      .boolean()
      .describe('Whether a tenant can move to this plan itself (`PUT /api/v1/billing/plan`); `enterprise` is a contract an operator sets'),
    custom_pricing: z.boolean().describe('Priced by contract: `monthly_fee_usd` and `overage_unit_usd` are null'),
    monthly_fee_usd: z.string().nullable().describe('Monthly fee, USD decimal string (e.g. `"29.00"`); null under custom pricing'),
    requests_per_minute: z.number().int().describe('Request limit per minute (60-second sliding window), shared by all keys of a tenant'),
    executions_per_month: z.number().int().nullable().describe('Monthly execution quota; null = unlimited'),
    concurrency: z.number().int().describe('Executions running at once'),
    modules: z.number().int().nullable().describe('Installed-module limit; null = unlimited'),
    overage: z
      .enum(['pause', 'metered', 'custom'])
      .describe(
        'Past the quota: `pause` refuses executions (429 `quota_exceeded`) until the next cycle; `metered` bills each at `overage_unit_usd`; `custom` by contract',
      ),
    overage_unit_usd: z
      .string()
      .nullable()
      .describe(
        'Price per execution past the quota, USD decimal string with as many decimals as it needs (e.g. `"0.001"`); `"0.00"` where the plan pauses; null under custom pricing',
      ),
    features: z
      .object(
        Object.fromEntries(
          featureNames.map((f) => [
            f,
            z.boolean().describe(`${PLAN_FEATURES[f].label}: available on ${PLAN_FEATURES[f].minPlan} and above`),
          ]),
        ) as Record<PlanFeature, z.ZodBoolean>,
      )
      .describe('Features some plans lack, and whether this plan has each'),
  })
  .meta({ id: 'Plan' });

export const planCatalogView = z
  .object({
    data: z.array(planOfferView).describe('Every plan, from the smallest to the largest'),
  })
  .meta({ id: 'PlanCatalog' });

export type PlanCatalog = z.infer<typeof planCatalogView>;
