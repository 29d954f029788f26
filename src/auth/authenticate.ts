import { notLinked, tenantOfIdentity, verifyIdentity } from '../identity/link';
import { authenticateApiKey } from '../keys/authenticate';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { tenantPrincipal, type Principal } from './principal';

export interface Credentials {
  apiKey?: string;
  authorization?: string;
}

/**
 * Resolves the request's credential: `x-api-key` first, else `Authorization: Bearer`.
 * Throws 401 `unauthorized` when neither is present or valid.
 */
export async function authenticate(svc: Services, creds: Credentials): Promise<Principal> {
  const apiKey = creds.apiKey?.trim();
  if (apiKey) return authenticateApiKey(svc, apiKey);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization ?? '')?.[1];
  if (bearer) return authenticateBearer(svc, bearer);
  if (creds.authorization) throw new AppError('unauthorized', 'The Authorization header must be `Bearer <token>`.');
  throw new AppError('unauthorized', 'Authentication required: send an x-api-key header or a bearer token.');
}

/**
 * A bearer token acts for the tenant linked to its identity (issuer + sub), holding every scope.
 * An email alone never grants a tenant (docs/auth.md): a valid token linked to no tenant is 401,
 * naming POST /api/v1/auth/register and /api/v1/auth/link.
 */
export async function authenticateBearer(svc: Services, token: string): Promise<Principal> {
  const claims = await verifyIdentity(svc, token);
  const tenant = await tenantOfIdentity(svc, claims, token);
  if (!tenant) throw notLinked();
  return tenantPrincipal(tenant, ['*'], 'bearer');
}
