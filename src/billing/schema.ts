import { z } from 'zod';

const usd = (what: string) => z.string().describe(`${what}, USD as a decimal string with exactly two decimals (e.g. \`"29.25"\`)`);
const day = z.string().describe('UTC day, `YYYY-MM-DD`');

/** `GET /api/v1/billing/usage?cycle=YYYY-MM` */
export const usageInput = z.strictObject({
  cycle: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A billing cycle is written YYYY-MM (e.g. 2026-11)')
    .optional()
    .describe('The billing cycle (calendar month, UTC) to read, `YYYY-MM`; default the current one. Past cycles back to the month the tenant registered.'),
});

export type UsageInput = z.infer<typeof usageInput>;

export const usageView = z.object({
  tenant_id: z.string(),
  cycle: z.string().describe('The billing cycle, `YYYY-MM` (a calendar month in UTC)'),
  cycle_start: z.string().describe('Start of the cycle (ISO 8601, inclusive)'),
  cycle_end: z.string().describe('End of the cycle (ISO 8601, exclusive): the start of the next cycle, when the quota resets'),
  is_current: z.boolean().describe('Whether this is the cycle in progress'),
  plan: z.enum(['free', 'pro', 'business', 'enterprise']).describe('The plan in force: now for the current cycle, at its end for a past one'),
  terms: z
    .object({
      executions_per_month: z.number().int().nullable().describe('Monthly execution quota; null = unlimited'),
      overage_unit_usd: z.string().describe('Price per execution past the quota, USD decimal string (e.g. `"0.001"`); `"0.00"` where the plan pauses instead'),
      monthly_fee_usd: usd('Monthly fee'),
      requests_per_minute: z.number().int(),
    })
    .describe("The tenant's effective terms (its plan with any per-tenant overrides) that the cycle is priced at"),
  executions: z.object({
    used: z.number().int().describe('Executions recorded in the cycle (every transport: REST, batch, chain, MCP, A2A, workflows; each once)'),
    limit: z.number().int().nullable().describe('The quota; null = unlimited'),
    remaining: z.number().int().nullable().describe('max(0, limit - used); null = unlimited'),
    overage: z
      .number()
      .int()
      .describe('Executions past the quota, as the invoice bills them: max(0, used - limit), unless the quota changed during the cycle (then the executions that ran past the quota in force when they ran); 0 when unlimited'),
    failed: z.number().int().describe('Executions of the cycle that failed (they count toward the quota too)'),
  }),
  overage_cost_usd: usd('overage × the overage unit price (of the terms at the end of the cycle, or the last metered ones if those pause at the quota), as the invoice bills it'),
  projected_total_usd: usd("The invoice total this cycle comes to if nothing changes, priced as the invoice is: the monthly fee (prorated by days on each plan when the plan changed in the cycle, each line rounded to the cent) plus the overage cost so far"),
  plan_changes: z
    .array(
      z.object({
        from_plan: z.enum(['free', 'pro', 'business', 'enterprise']),
        to_plan: z.enum(['free', 'pro', 'business', 'enterprise']),
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
});

export type UsageView = z.infer<typeof usageView>;
