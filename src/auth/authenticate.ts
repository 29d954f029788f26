import { roleScopes } from '../contract/roles';
import { membershipOfIdentity, notLinked, verifyIdentity } from '../identity/link';
import { authenticateApiKey } from '../keys/authenticate';
import { AppError } from '../lib/errors';
import type { Membership } from '../members/membership';
import type { Services } from '../services';
import { tenantPrincipal, type Principal } from './principal';

export interface Credentials {
  apiKey?: string;
  authorization?: string;
  /** `X-Tenant-Id`: the tenant a bearer token's user acts for, among its memberships. */
  tenantId?: string;
}

/**
 * Resolves the request's credential: `x-api-key` first, else `Authorization: Bearer`.
 * Throws 401 `unauthorized` when neither is present or valid.
 */
export async function authenticate(svc: Services, creds: Credentials): Promise<Principal> {
  const apiKey = creds.apiKey?.trim();
  if (apiKey) return authenticateApiKey(svc, apiKey);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization ?? '')?.[1];
  if (bearer) return authenticateBearer(svc, bearer, creds.tenantId?.trim());
  if (creds.authorization) throw new AppError('unauthorized', 'The Authorization header must be `Bearer <token>`.');
  throw new AppError('unauthorized', 'Authentication required: send an x-api-key header or a bearer token.');
}

/**
 * A bearer token acts for a tenant its identity (issuer + sub) is a member of: the one
 * `X-Tenant-Id` names, else its oldest membership, with its role's scopes (src/contract/roles.ts).
 * An email alone never grants a tenant (docs/auth.md): a valid token with no membership is 401,
 * naming POST /api/v1/auth/register and /api/v1/auth/link; a tenant it is not a member of is 404.
 */
/** `X-Tenant-Id` names a tenant the user is not a member of (or none): 404, as another tenant's resource is. */
export const notAMember = () =>
  new AppError('not_found', 'No such tenant among your memberships (X-Tenant-Id).', { reason: 'not_a_member' });

export async function authenticateBearer(svc: Services, token: string, tenantId?: string): Promise<Principal> {
  const claims = await verifyIdentity(svc, token);
  const membership = await membershipOfIdentity(svc, claims, token, tenantId || undefined);
  if (!membership) {
    if (tenantId) throw notAMember();
    throw notLinked();
  }
  return memberPrincipal(membership, claims, roleScopes(membership.role));
}

/** The principal of a member acting with `scopes` (its role's, or fewer for an OAuth token). */
export function memberPrincipal(membership: Membership, identity: { issuer: string; subject: string }, scopes: string[]): Principal {
  return {
    ...tenantPrincipal(membership.tenant, scopes, 'bearer'),
    member: { issuer: identity.issuer, userId: identity.subject, email: membership.email, role: membership.role },
  };
}
