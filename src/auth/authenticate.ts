import { sql } from 'drizzle-orm';
import { tenants } from '../db/schema';
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

/** A valid token whose email owns no tenant is 401; the owner holds every scope. */
export async function authenticateBearer(svc: Services, token: string): Promise<Principal> {
  const claims = await svc.bearer.verify(token);
  const [tenant] = await svc.db
    .select()
    .from(tenants)
    .where(sql`lower(${tenants.ownerEmail}) = ${claims.email}`)
    .limit(1);
  if (!tenant) throw new AppError('unauthorized', 'No tenant is owned by the bearer token\'s email.');
  return tenantPrincipal(tenant, ['*'], 'bearer');
}

