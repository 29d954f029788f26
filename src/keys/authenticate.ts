import { and, eq, isNull, or } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import type { Db } from '../db';
import { apiKeys, tenants } from '../db/schema';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import type { CachedKey } from './cache';
import { hashKeySecret, looksLikeKeySecret } from './secrets';

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export const invalidKey = () => new AppError('unauthorized', 'The API key is missing, invalid or revoked.');

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
  touchLastUsed(svc, key);
  return {
    tenantId: key.tenantId,
    plan: key.plan,
    requestsPerMinute: key.requestsPerMinute,
    scopes: key.scopes,
    via: 'api_key',
    keyId: key.keyId,
  };
}

async function loadKey(db: Db, hash: string): Promise<CachedKey | undefined> {
  const [row] = await db
    .select({ key: apiKeys, plan: tenants.plan, requestsPerMinute: tenants.requestsPerMinute })
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
    scopes: row.key.scopes,
    expiresAt: isOldSecret ? (row.key.previousExpiresAt?.getTime() ?? 0) : null,
    lastUsedWriteAt: row.key.lastUsedAt?.getTime() ?? 0,
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
