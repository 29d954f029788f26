import type { Principal } from '../auth/principal';
import { DEFAULT_KEY_SCOPES, missingScope } from '../contract/scopes';
import type { Executor } from '../db';
import { recordAudit } from '../audit/record';
import { apiKeys } from '../db/schema';
import { newId } from '../lib/ids';
import { insufficientScope } from '../lib/errors';
import type { Services } from '../services';
import { assertPlanAllowsLocked } from '../tenants/lock';
import { assertPlanAllows } from '../tenants/plans';
import { mergePolicy } from './policy';
import type { StoredKeyPolicy } from './policy-rules';
import { iso } from './present';
import type { CreateKeyInput } from './schema';
import { displayPrefix, generateKeySecret, hashKeySecret } from './secrets';

/** Inserts a key row and returns the one-time view with its secret. */
export async function insertKey(
  db: Executor,
  tenantId: string,
  fields: { name: string; scopes: string[]; isPrimary?: boolean; policy?: StoredKeyPolicy | null },
) {
  const secret = generateKeySecret();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId('key'),
      tenantId,
      name: fields.name,
      prefix: displayPrefix(secret),
      secretHash: hashKeySecret(secret),
      scopes: fields.scopes,
      isPrimary: fields.isPrimary ?? false,
      policy: fields.policy ?? null,
    })
    .returning();
  return {
    key_id: row!.id,
    api_key: secret,
    name: row!.name,
    scopes: row!.scopes,
    created_at: iso(row!.createdAt),
    policy: row!.policy ?? null,
  };
}

/**
 * POST /api/v1/keys. Pro plan and above; a key can grant only scopes its creator holds.
 */
export async function createKey(svc: Services, principal: Principal, input: CreateKeyInput) {
  assertPlanAllows(principal.plan, 'multiple_keys');
  const scopes = [...new Set(input.scopes ?? DEFAULT_KEY_SCOPES)];
  const escalation = missingScope(principal.scopes, scopes);
  if (escalation) throw insufficientScope(escalation);
  const policy = input.policy ? mergePolicy(null, input.policy) : null;
  return svc.db.transaction(async (tx) => {
    await assertPlanAllowsLocked(tx, principal.tenantId, 'multiple_keys');
    const key = await insertKey(tx, principal.tenantId, { name: input.name, scopes, policy });
    await recordAudit(tx, principal.tenantId, {
      action: 'key.created',
      target: { type: 'key', id: key.key_id },
      changes: { name: key.name, scopes: key.scopes, policy: key.policy },
    });
    return key;
  });
}
