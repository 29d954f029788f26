import { z } from 'zod';
import { adminFailedDelivery } from '../webhooks/admin-schema';
import { EMAIL_MAX_LENGTH, REQUESTS_PER_MINUTE_MAX, TENANT_NAME_MAX_LENGTH } from '../contract/limits';
import { formatUnitUsd, MAX_MONTHLY_FEE_MICRO_USD, MAX_OVERAGE_UNIT_MICRO_USD, tryParseUsd } from '../billing/money';
import { listParams, pageSchema } from '../lib/pagination';
import { PLAN_NAMES } from './plans';

export const planSchema = z.enum(PLAN_NAMES);

export const registerInput = z.strictObject({
  agent_name: z.string().trim().min(1).max(TENANT_NAME_MAX_LENGTH),
  owner_email: z.email().max(EMAIL_MAX_LENGTH),
});

export const limitsSchema = z.object({
  modules: z.number().int().nullable().describe('Installed-module limit; null = unlimited'),
  executions_per_month: z.number().int().nullable().describe('Monthly execution quota; null = unlimited (enterprise)'),
});

export const registerOutput = z
  .object({
    api_key: z.string(),
    tenant_id: z.string(),
    plan: planSchema,
    limits: limitsSchema,
  })
  .meta({ id: 'RegisteredTenant' });

/** A tenant's effective terms: its plan's values with its per-tenant overrides applied. */
export const termsView = z
  .object({
    requests_per_minute: z.number().int(),
    executions_per_month: z.number().int().nullable().describe('Monthly execution quota; null = unlimited'),
    concurrency: z.number().int(),
    modules: z.number().int().nullable().describe('Installed-module limit; null = unlimited'),
    overage: z
      .enum(['pause', 'metered'])
      .describe('Past the quota: `pause` refuses executions until the next cycle (free); `metered` bills each at `overage_unit_usd`'),
    overage_unit_usd: z.string().describe('Price per execution past the quota, USD decimal string (e.g. "0.001")'),
    monthly_fee_usd: z.string().describe('Monthly fee, USD decimal string (e.g. "29.00")'),
  })
  .meta({ id: 'Terms' });

/** The per-tenant overrides an operator set; null = the plan's value applies. */
export const overridesView = z.object({
  requests_per_minute: z.number().int().nullable(),
  executions_per_month: z.number().int().nullable(),
  overage_unit_usd: z.string().nullable(),
  monthly_fee_usd: z.string().nullable(),
});

export const tenantView = z
  .object({
    tenant_id: z.string(),
    agent_name: z.string(),
    owner_email: z.string(),
    plan: planSchema,
    limits: limitsSchema,
    requests_per_minute: z.number().int(),
    requests_per_minute_override: z.number().int().nullable(),
    terms: termsView.describe('Effective terms: the plan with the overrides applied'),
    overrides: overridesView.describe('Per-tenant overrides set by an operator (null = the plan value)'),
    created_at: z.string(),
  })
  .meta({ id: 'Tenant' });

export const listTenantsInput = z.strictObject({ ...listParams });
/** An operator's row: the tenant with this cycle's usage and what needs attention. */
export const adminTenantView = tenantView
  .extend({
    executions_this_cycle: z
      .number()
      .int()
      .describe('Executions counted in the current billing cycle (against `terms.executions_per_month`)'),
    disabled_webhooks: z.number().int().describe('Webhook subscriptions disabled after repeated failures'),
  })
  .meta({ id: 'AdminTenant' });
export const tenantList = pageSchema(adminTenantView);

/** An operator's look into one tenant (tRPC only: the dashboard's Admin tenant page). */
export const adminTenantDetailInput = z.strictObject({ tenant_id: z.uuid() });
export const adminTenantDetail = tenantView.extend({
  deleted_at: z.string().nullable().describe('When its owner deleted it (restorable until purged); null while it lives'),
  cycle_start: z.string().describe('First day of the current billing cycle (UTC), YYYY-MM-DD'),
  executions_this_cycle: z.number().int(),
  overage_this_cycle: z.number().int().describe('Executions past the quota this cycle'),
  keys: z.object({ active: z.number().int(), suspended: z.number().int().describe('Active keys suspended by a downgrade') }),
  webhooks: z.object({
    total: z.number().int(),
    active: z.number().int(),
    disabled: z.number().int(),
    suspended: z.number().int().describe('Subscriptions suspended by the plan'),
  }),
  recent_failed_deliveries: z.array(adminFailedDelivery).describe('The latest failed deliveries, newest first'),
});

/**
 * A non-negative USD amount: a decimal string or a number, at most 6 decimals, and at most `max`
 * micro-dollars (the caps in src/billing/money.ts keep every invoice exact).
 */
const usdInput = (max: number) =>
  z
    .union([z.string(), z.number()])
    .refine((v) => tryParseUsd(v) !== null, {
      message: 'must be a non-negative USD amount with at most 6 decimals, e.g. "0.001" or 29',
      abort: true,
    })
    .refine((v) => (tryParseUsd(v) ?? 0) <= max, { message: `must be at most ${formatUnitUsd(max)} USD` });

export const changePlanInput = z.strictObject({
  tenant_id: z.uuid(),
  plan: planSchema,
  requests_per_minute: z
    .number()
    .int()
    .min(1)
    .max(REQUESTS_PER_MINUTE_MAX)
    .nullable()
    .optional()
    .describe("Request limit per minute; null restores the plan's"),
  executions_per_month: z
    .number()
    .int()
    .min(0)
    .max(2_000_000_000)
    .nullable()
    .optional()
    .describe("Monthly execution quota; null restores the plan's"),
  overage_unit_usd: usdInput(MAX_OVERAGE_UNIT_MICRO_USD)
    .nullable()
    .optional()
    .describe(
      "Price per execution past the quota, USD (decimal string or number, at most 6 decimals, at most 1000); null restores the plan's",
    ),
  monthly_fee_usd: usdInput(MAX_MONTHLY_FEE_MICRO_USD)
    .nullable()
    .optional()
    .describe("Monthly fee, USD (decimal string or number, at most 6 decimals, at most 10000000); null restores the plan's"),
});

export type RegisterInput = z.infer<typeof registerInput>;
export type ChangePlanInput = z.infer<typeof changePlanInput>;

/** PUT /api/v1/billing/plan: the tenant's own plan change. */
export const tenantPlanInput = z.strictObject({
  plan: planSchema.describe('`free`, `pro` or `business`; `enterprise` is set by an operator (400)'),
});

const affected = z.object({
  keys: z.array(z.string()).describe('API key ids'),
  webhooks: z.array(z.string()).describe('Webhook subscription ids'),
});

/** What a plan change did. */
export const planChangeFields = {
  previous_plan: planSchema,
  changed: z.boolean().describe('False when the plan and terms were already these (nothing recorded)'),
  effective_at: z.string().describe('When the change took effect (at once)'),
  suspended: affected.describe(
    "Keys and webhook subscriptions beyond the new plan's allowance: kept, but refused (keys: 403 `plan_required`) and not delivered to until the plan allows them again",
  ),
  restored: affected.describe('Keys and webhook subscriptions an upgrade made work again'),
};

export const planChangeView = z
  .object({
    tenant_id: z.string(),
    plan: planSchema,
    terms: termsView,
    ...planChangeFields,
  })
  .meta({ id: 'PlanChange' });

export const adminPlanChangeView = tenantView.extend(planChangeFields).meta({ id: 'AdminPlanChange' });

export const whoAmIOutput = z
  .object({
    tenant_id: z.string(),
    plan: planSchema,
    limits: limitsSchema,
    requests_per_minute: z.number().int(),
    credential: z.object({
      type: z.enum(['api_key', 'bearer']),
      key_id: z.string().nullable(),
      scopes: z.array(z.string()),
    }),
  })
  .meta({ id: 'WhoAmI' });

export const deleteTenantInput = z.strictObject({
  confirm: z.string().max(200).describe("The tenant's name (agent_name), typed to confirm"),
});
export const deletedTenant = z
  .object({ tenant_id: z.string(), deleted: z.literal(true), purge_after: z.string().describe('ISO 8601: when its data is purged') })
  .meta({ id: 'DeletedTenant' });

const exportRows = z.array(z.record(z.string(), z.unknown()));
const cappedRows = z.object({
  truncated: z.boolean().describe('More rows exist than the export holds (the newest are kept)'),
  data: exportRows,
});
export const tenantExport = z
  .object({
    exported_at: z.string(),
    format: z.literal('amp-tenant-export/1'),
    tenant: z.object({
      id: z.string(),
      agent_name: z.string(),
      owner_email: z.string(),
      plan: z.string(),
      created_at: z.string().nullable(),
    }),
    members: exportRows,
    keys: exportRows,
    webhooks: exportRows,
    executions: cappedRows,
    memory: cappedRows,
    workflows: exportRows,
    workflow_runs: cappedRows,
    invoices: exportRows,
    audit_log: cappedRows,
  })
  .meta({ id: 'TenantExport' });

export const restoreTenantInput = z.object({ tenant_id: z.uuid() });
export const restoredTenant = z
  .object({ tenant_id: z.string(), restored: z.literal(true), owner_email_restored: z.boolean() })
  .meta({ id: 'RestoredTenant' });
