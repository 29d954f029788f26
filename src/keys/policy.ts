import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { recordAudit } from '../audit/record';
import { apiKeys } from '../db/schema';
import { AppError, invalidRequest, notFound } from '../lib/errors';
import type { Services } from '../services';
import type { PolicyRefusal, StoredKeyPolicy } from './policy-rules';
import { presentKeySummary } from './present';
import { findActiveKey } from './queries';
import type { KeyPolicyPatch, SetKeyPolicyInput } from './schema';

/** 403 `policy_denied`, naming the rule that refused and why. */
export function policyDenied(refusal: PolicyRefusal, headers: Record<string, string> = {}): AppError {
  return new AppError('policy_denied', refusal.message, { rule: refusal.rule, reason: refusal.reason }, headers);
}

/**
 * `patch` applied to `current`: a field set replaces it, `null` clears it, an absent one stays.
 * Null when nothing is left. An expiry must lie ahead (400 otherwise): a key cannot be created or
 * changed into one that is already refused.
 */
export function mergePolicy(current: StoredKeyPolicy | null, patch: KeyPolicyPatch, now = new Date()): StoredKeyPolicy | null {
  const merged: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete merged[field];
    else merged[field] = field === 'modules' || field === 'actions' || field === 'ip_allow' ? [...new Set(value as string[])] : value;
  }
  if (patch.expires_at && Date.parse(patch.expires_at) <= now.getTime()) {
    throw invalidRequest('expires_at must lie in the future.', [{ path: 'expires_at', message: 'must lie in the future' }]);
  }
  if (typeof merged.expires_at === 'string') merged.expires_at = new Date(merged.expires_at).toISOString();
  return Object.keys(merged).length === 0 ? null : (merged as StoredKeyPolicy);
}

/**
 * PUT /api/v1/keys/{key_id}/policy: sets, changes or clears fields of the key's policy. Returns
 * only after every instance's key cache has been told, so the next request anywhere obeys it.
 */
export async function setKeyPolicy(svc: Services, principal: Principal, input: SetKeyPolicyInput) {
  const { key_id: keyId, ...patch } = input;
  const row = await svc.db.transaction(async (tx) => {
    const key = await findActiveKey(tx, principal.tenantId, keyId);
    if (!key) throw notFound('key');
    const policy = mergePolicy(key.policy, patch);
    const [updated] = await tx.update(apiKeys).set({ policy, updatedAt: new Date() }).where(eq(apiKeys.id, key.id)).returning();
    await recordAudit(tx, principal.tenantId, {
      action: 'key.policy_updated',
      target: { type: 'key', id: key.id },
      changes: { fields: Object.keys(patch).filter((f) => patch[f as keyof typeof patch] !== undefined), policy },
    });
    return updated!;
  });
  await svc.keyCache.invalidate();
  return presentKeySummary(row);
}

/** GET /api/v1/keys/{key_id}: one active key of the tenant, its policy included. */
export async function getKey(svc: Services, principal: Principal, keyId: string) {
  const key = await findActiveKey(svc.db, principal.tenantId, keyId);
  if (!key) throw notFound('key');
  return presentKeySummary(key);
}
