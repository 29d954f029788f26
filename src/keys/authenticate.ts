import { and, eq, isNull, or } from 'drizzle-orm';
import { tenantPrincipal, type Principal } from '../auth/principal';
import type { Db } from '../db';
import { apiKeys, tenants } from '../db/schema';
import { AppError } from '../lib/errors';
import { consumeRequest, tenantPoolHeaders } from '../metering/requests';
import { executionsRemaining } from '../metering/usage';
import { PLAN_FEATURES } from '../tenants/plans';
import type { Services } from '../services';
import type { CachedKey } from './cache';
import { compilePolicy } from './policy-rules';
import { hashKeySecret, looksLikeKeySecret } from './secrets';

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export const invalidKey = () => new AppError('unauthorized', 'The API key is missing, invalid or revoked.');

/**
 * A key a downgrade suspended (src/billing/change-plan.ts). 403 `plan_required`, not 401: the
 * secret is valid and names its tenant; what is missing is the plan feature (more than one
 * key), and the client needs `required_plan` to say what would make it work again, not a hint
 * to re-enter a credential.
 */
export const suspendedKey = (headers: Record<string, string> = {}) => {
  const { minPlan } = PLAN_FEATURES.multiple_keys;
  return new AppError(
    'plan_required',
    `This API key is suspended: the tenant's plan allows one API key (the primary), and more than one needs the ${minPlan} plan or above. The key works again when the plan allows it.`,
    { required_plan: minPlan },
    headers,
  );
};

/** Resolves an `x-api-key` secret to its principal, through the key cache. */
export async function authenticateApiKey(svc: Services, secret: string): Promise<Principal> {
  if (!looksLikeKeySecret(secret)) throw invalidKey();
  const hash = hashKeySecret(secret);
  const version = await svc.keyCache.currentVersion();
  let key = svc.keyCache.get(hash, version);
  if (!key) {
    key = await loadKey(svc.db, hash);
    if (!key) throw invalidKey();
    svc.keyCache.set(hash, key, version);
  }
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw invalidKey();
  const principal = keyPrincipal(key);
  if (key.suspended) {
    // Counted against the tenant's request pool like any call with a valid key (a suspended key
    // is no free way to call), then refused.
    // The refusal reports the pool and executions it counted against, as every answer to a valid credential does.
    const [pool, executions] = await Promise.all([
      consumeRequest(svc, principal, false),
      executionsRemaining(svc.db, principal, svc.usage).catch(() => undefined),
    ]);
    throw suspendedKey(tenantPoolHeaders(pool, executions));
  }
  touchLastUsed(svc, key);
  return principal;
}

/** A principal read from the key cache whose version is still to be checked (see cachedApiKey). */
export interface UncheckedKey {
  principal: Principal;
  /** The auth version the entry was loaded under: the caller's Redis round trip checks it. */
  version: string;
  hash: string;
  key: CachedKey;
}

/**
 * The hot path's half of authenticateApiKey: the principal of a cached, usable key, taken on
 * trust until the caller checks `version` in its next Redis round trip (the rate limiter's,
 * consumeRequestIfCurrent), then calls settleCachedKey with the outcome. Undefined whenever the
 * full path is needed: no Redis key cache, not cached, suspended (counted then refused) or expired.
 */
export function cachedApiKey(svc: Services, secret: string | undefined): UncheckedKey | undefined {
  const trimmed = secret?.trim();
  if (!svc.keyCache.peeks || !trimmed || !looksLikeKeySecret(trimmed)) return undefined;
  const hash = hashKeySecret(trimmed);
  const entry = svc.keyCache.peek(hash);
  if (!entry || entry.key.suspended || (entry.key.expiresAt !== null && entry.key.expiresAt <= Date.now())) return undefined;
  const principal = keyPrincipal(entry.key);
  return { principal, version: entry.version, hash, key: entry.key };
}

function keyPrincipal(key: CachedKey): Principal {
  const principal: Principal = { ...tenantPrincipal({ ...key, id: key.tenantId }, key.scopes, 'api_key'), keyId: key.keyId };
  if (key.policy) principal.policy = key.policy;
  return principal;
}

/** After the version check: a current key is used (last_used_at); a stale entry is forgotten. */
export function settleCachedKey(svc: Services, unchecked: UncheckedKey, current: boolean): void {
  if (current) touchLastUsed(svc, unchecked.key);
  else svc.keyCache.drop(unchecked.hash);
}

async function loadKey(db: Db, hash: string): Promise<CachedKey | undefined> {
  const [row] = await db
    .select({
      key: apiKeys,
      plan: tenants.plan,
      requestsPerMinute: tenants.requestsPerMinute,
      executionsPerMonth: tenants.executionsPerMonth,
      overageUnitMicroUsd: tenants.overageUnitMicroUsd,
      monthlyFeeMicroUsd: tenants.monthlyFeeMicroUsd,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(and(or(eq(apiKeys.secretHash, hash), eq(apiKeys.previousSecretHash, hash)), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) return undefined;
  const isOldSecret = row.key.secretHash !== hash;
  return {
    keyId: row.key.id,
    tenantId: row.key.tenantId,
    plan: row.plan,
    requestsPerMinute: row.requestsPerMinute,
    executionsPerMonth: row.executionsPerMonth,
    overageUnitMicroUsd: row.overageUnitMicroUsd,
    monthlyFeeMicroUsd: row.monthlyFeeMicroUsd,
    suspended: row.key.suspendedAt !== null,
    scopes: row.key.scopes,
    expiresAt: isOldSecret ? (row.key.previousExpiresAt?.getTime() ?? 0) : null,
    lastUsedWriteAt: row.key.lastUsedAt?.getTime() ?? 0,
    policy: compilePolicy(row.key.policy),
  };
}

/** `last_used_at` is written at most once a minute per key, off the request path. */
function touchLastUsed(svc: Services, key: CachedKey): void {
  const now = Date.now();
  if (now - key.lastUsedWriteAt < LAST_USED_WRITE_INTERVAL_MS) return;
  key.lastUsedWriteAt = now;
  svc.db
    .update(apiKeys)
    .set({ lastUsedAt: new Date(now) })
    .where(eq(apiKeys.id, key.keyId))
    .catch((err: unknown) => svc.logger.warn({ err: String(err) }, 'could not record key use'));
}
