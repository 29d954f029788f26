import { recordAudit } from '../audit/record';
import { isUniqueViolation } from '../db';
import { tenants } from '../db/schema';
import { insertKey } from '../keys/create';
import { conflict, invalidRequest } from '../lib/errors';
import { addMember, ownsATenant } from '../members/membership';
import type { Services } from '../services';
import { publicLimits } from './plans';
import type { RegisterInput } from './schema';

/**
 * POST /api/v1/auth/register: a new tenant on the free plan with its primary key (scope `*`),
 * in one transaction. The owner email is unique regardless of case (409 otherwise).
 */
/**
 * Agent names a tenant may not take: a published module's `publisher` is its tenant's agent name,
 * and `platform` is the built-in modules' publisher (a tenant named so could pass its modules off
 * as the platform's).
 */
const RESERVED_AGENT_NAMES = new Set(['platform']);

function assertAgentNameAllowed(name: string): void {
  if (RESERVED_AGENT_NAMES.has(name.trim().toLowerCase())) {
    throw invalidRequest(`The agent name '${name}' is reserved: it names the built-in modules' publisher.`, [
      { path: 'agent_name', message: 'Reserved name' },
    ]);
  }
}

export async function registerTenant(svc: Services, input: RegisterInput) {
  assertAgentNameAllowed(input.agent_name);
  try {
    return await svc.db.transaction(async (tx) => {
      const [tenant] = await tx
        .insert(tenants)
        .values({ agentName: input.agent_name, ownerEmail: input.owner_email, plan: 'free' })
        .returning();
      const key = await insertKey(tx, tenant!.id, { name: 'primary', scopes: ['*'], isPrimary: true });
      await recordAudit(tx, tenant!.id, {
        action: 'tenant.created',
        target: { type: 'tenant', id: tenant!.id },
        changes: { agent_name: tenant!.agentName, owner_email: tenant!.ownerEmail, plan: tenant!.plan, primary_key_id: key.key_id },
      });
      return { api_key: key.api_key, tenant_id: tenant!.id, plan: tenant!.plan, limits: publicLimits(tenant!.plan) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('A tenant with this owner_email already exists.');
    throw err;
  }
}

/** The identity of a verified bearer token: the user at its identity provider. */
export interface RegisteringIdentity {
  issuer: string;
  subject: string;
  email: string | null;
}

/**
 * POST /api/v1/auth/register with a bearer token: a new tenant whose owner_email is the token's
 * email, with its primary key (scope `*`), in one transaction.
 * The identity becomes its owner member. 409 when the identity already owns a tenant (a member of
 * others may still make its own), or when the email already owns one (then
 * the user links that tenant with its `*` key: POST /api/v1/auth/link).
 */
export async function registerTenantForIdentity(
  svc: Services,
  identity: RegisteringIdentity,
  input: { agent_name?: string; owner_email?: string },
) {
  if (!identity.email)
    throw invalidRequest('The bearer token carries no email; a tenant needs an owner email.', [
      { path: '', message: 'No email in the token' },
    ]);
  const email = identity.email;
  if (input.agent_name !== undefined) assertAgentNameAllowed(input.agent_name);
  const localPart = email.split('@')[0]!.slice(0, 90);
  const agentName = input.agent_name ?? (RESERVED_AGENT_NAMES.has(localPart.toLowerCase()) ? `${localPart}-agent` : localPart);
  if (input.owner_email !== undefined && input.owner_email.toLowerCase() !== email) {
    throw invalidRequest("owner_email must be the bearer token's email (or be left out).", [
      { path: 'owner_email', message: "Differs from the token's email" },
    ]);
  }
  try {
    return await svc.db.transaction(async (tx) => {
      if (await ownsATenant(tx, identity)) throw conflict('This user already owns a tenant.');
      const [tenant] = await tx.insert(tenants).values({ agentName, ownerEmail: email, plan: 'free' }).returning();
      await addMember(tx, tenant!.id, identity, email, 'owner');
      const key = await insertKey(tx, tenant!.id, { name: 'primary', scopes: ['*'], isPrimary: true });
      await recordAudit(
        tx,
        tenant!.id,
        {
          action: 'tenant.created',
          target: { type: 'tenant', id: tenant!.id },
          changes: { agent_name: tenant!.agentName, owner_email: email, plan: tenant!.plan, primary_key_id: key.key_id },
        },
        { type: 'user', id: identity.subject, email },
      );
      return { api_key: key.api_key, tenant_id: tenant!.id, plan: tenant!.plan, limits: publicLimits(tenant!.plan) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw conflict('A tenant with this owner_email already exists: link it with POST /api/v1/auth/link {api_key} using its `*` key.');
    }
    throw err;
  }
}
