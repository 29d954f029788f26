import { isUniqueViolation } from '../db';
import { tenants } from '../db/schema';
import { insertKey } from '../keys/create';
import { conflict } from '../lib/errors';
import type { Services } from '../services';
import { publicLimits } from './plans';
import type { RegisterInput } from './schema';

/**
 * POST /api/v1/auth/register: a new tenant on the free plan with its primary key (scope `*`),
 * in one transaction. The owner email is unique regardless of case (409 otherwise).
 */
export async function registerTenant(svc: Services, input: RegisterInput) {
  try {
    return await svc.db.transaction(async (tx) => {
      const [tenant] = await tx
        .insert(tenants)
        .values({ agentName: input.agent_name, ownerEmail: input.owner_email, plan: 'free' })
        .returning();
      const key = await insertKey(tx, tenant!.id, { name: 'primary', scopes: ['*'], isPrimary: true });
      return { api_key: key.api_key, tenant_id: tenant!.id, plan: tenant!.plan, limits: publicLimits(tenant!.plan) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('A tenant with this owner_email already exists.');
    throw err;
  }
}
