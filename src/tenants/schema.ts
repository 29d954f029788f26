import { z } from 'zod';
import { listParams, pageSchema } from '../lib/pagination';
import { PLAN_NAMES } from './plans';

export const planSchema = z.enum(PLAN_NAMES);

export const registerInput = z.strictObject({
  agent_name: z.string().trim().min(1).max(100),
  owner_email: z.email().max(254),
});

export const limitsSchema = z.object({
  modules: z.number().int().nullable().describe('Installed-module limit; null = unlimited'),
  executions_per_month: z.number().int().nullable().describe('Monthly execution quota; null = unlimited (enterprise)'),
});

export const registerOutput = z.object({
  api_key: z.string(),
  tenant_id: z.string(),
  plan: planSchema,
  limits: limitsSchema,
});

export const tenantView = z.object({
  tenant_id: z.string(),
  agent_name: z.string(),
  owner_email: z.string(),
  plan: planSchema,
  limits: limitsSchema,
  requests_per_minute: z.number().int(),
  requests_per_minute_override: z.number().int().nullable(),
  created_at: z.string(),
});

export const listTenantsInput = z.strictObject({ ...listParams });
export const tenantList = pageSchema(tenantView);

export const changePlanInput = z.strictObject({
  tenant_id: z.uuid(),
  plan: planSchema,
  requests_per_minute: z.number().int().min(1).max(100_000_000).nullable().optional(),
});

export type RegisterInput = z.infer<typeof registerInput>;
export type ChangePlanInput = z.infer<typeof changePlanInput>;

export const whoAmIOutput = z.object({
  tenant_id: z.string(),
  plan: planSchema,
  limits: limitsSchema,
  requests_per_minute: z.number().int(),
  credential: z.object({
    type: z.enum(['api_key', 'bearer']),
    key_id: z.string().nullable(),
    scopes: z.array(z.string()),
  }),
});
