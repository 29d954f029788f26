import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { holdsScope } from '../contract/scopes';
import { recordAudit } from '../audit/record';
import { apiKeys } from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import type { Services } from '../services';
import { iso } from './present';
import { lockActiveKeys } from './queries';

const canManageKeys = (scopes: string[]) => holdsScope(scopes, 'keys:manage');

/**
 * DELETE /api/v1/keys/{key_id}. The tenant's last key able to manage keys cannot be revoked
 * (409), or the tenant would lock itself out. Returns only after every instance's cache has
 * been told, so the revoked key fails on the very next request anywhere.
 */
export async function revokeKey(svc: Services, principal: Principal, keyId: string) {
  const now = new Date();
  await svc.db.transaction(async (tx) => {
    const active = await lockActiveKeys(tx, principal.tenantId);
    const key = active.find((k) => k.id === keyId);
    if (!key) throw notFound('key');
    const managersLeft = active.filter((k) => k.id !== keyId && canManageKeys(k.scopes));
    if (canManageKeys(key.scopes) && managersLeft.length === 0) {
      throw conflict('This is the last key that can manage keys; create another before revoking it.');
    }
    await tx
      .update(apiKeys)
      .set({ revokedAt: now, updatedAt: now, previousSecretHash: null, previousExpiresAt: null })
      .where(eq(apiKeys.id, key.id));
    await recordAudit(tx, principal.tenantId, { action: 'key.revoked', target: { type: 'key', id: key.id }, changes: { name: key.name } });
  });
  await svc.keyCache.invalidate();
  return { key_id: keyId, revoked: true as const, revoked_at: iso(now) };
}
