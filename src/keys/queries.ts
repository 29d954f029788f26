import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../db';
import { apiKeys, type ApiKeyRow } from '../db/schema';
import { beforeCursor, type Cursor } from '../lib/pagination';

/** An active (not revoked) key of the tenant, or undefined: another tenant's key is invisible. */
export async function findActiveKey(db: Executor, tenantId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row;
}

export async function listActiveKeys(db: Executor, tenantId: string, limit: number, after?: Cursor): Promise<ApiKeyRow[]> {
  const page = beforeCursor(apiKeys.createdAt, apiKeys.id, after);
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt), page))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(limit);
}

/** All active keys of the tenant, locked for update (used to keep one admin key alive). */
export async function lockActiveKeys(tx: Executor, tenantId: string): Promise<ApiKeyRow[]> {
  return tx
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt)))
    .for('update');
}
