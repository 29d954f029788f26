import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { missingScope } from '../contract/scopes';
import { recordAudit } from '../audit/record';
import { apiKeys } from '../db/schema';
import { insufficientScope, notFound } from '../lib/errors';
import type { Services } from '../services';
import { iso } from './present';
import { findActiveKey } from './queries';
import type { RotateKeyInput } from './schema';
import { displayPrefix, generateKeySecret, hashKeySecret } from './secrets';

/**
 * POST /api/v1/keys/{key_id}/rotate: a new secret for the same key (same id, name, scopes).
 * The old secret keeps working for `grace_seconds`. Rotating a key hands out its secret, so the
 * caller must hold every scope of that key (no escalation through rotation).
 */
export async function rotateKey(svc: Services, principal: Principal, input: RotateKeyInput) {
  const secret = generateKeySecret();
  const now = new Date();
  const graceEnd = input.grace_seconds > 0 ? new Date(now.getTime() + input.grace_seconds * 1000) : null;
  const row = await svc.db.transaction(async (tx) => {
    const key = await findActiveKey(tx, principal.tenantId, input.key_id);
    if (!key) throw notFound('key');
    const escalation = missingScope(principal.scopes, key.scopes);
    if (escalation) throw insufficientScope(escalation);
    const [updated] = await tx
      .update(apiKeys)
      .set({
        secretHash: hashKeySecret(secret),
        prefix: displayPrefix(secret),
        previousSecretHash: graceEnd ? key.secretHash : null,
        previousExpiresAt: graceEnd,
        rotatedAt: now,
        updatedAt: now,
      })
      .where(eq(apiKeys.id, key.id))
      .returning();
    await recordAudit(tx, principal.tenantId, {
      action: 'key.rotated',
      target: { type: 'key', id: key.id },
      changes: { name: key.name, grace_seconds: input.grace_seconds },
    });
    return updated!;
  });
  await svc.keyCache.invalidate();
  return {
    key_id: row.id,
    api_key: secret,
    name: row.name,
    scopes: row.scopes,
    created_at: iso(row.createdAt),
    policy: row.policy ?? null,
    rotated_at: iso(now),
    previous_key_expires_at: graceEnd ? iso(graceEnd) : null,
  };
}
