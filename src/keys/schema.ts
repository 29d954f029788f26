import { z } from 'zod';
import { KEY_GRACE_MAX_SECONDS, KEY_NAME_MAX_LENGTH } from '../contract/limits';
import { SCOPES, scopeSchema } from '../contract/scopes';
import { listParams, pageSchema } from '../lib/pagination';

const keyId = z.string().min(1).max(64).describe('Key identifier (`key_...`)');
const keyName = z.string().trim().min(1).max(KEY_NAME_MAX_LENGTH);

export const createKeyInput = z.strictObject({
  name: keyName,
  scopes: z.array(scopeSchema).min(1).max(SCOPES.length).optional(),
});

export const keyIdInput = z.strictObject({ key_id: keyId });

export const rotateKeyInput = z.strictObject({
  key_id: keyId,
  grace_seconds: z.number().int().min(0).max(KEY_GRACE_MAX_SECONDS).default(0),
});

export const listKeysInput = z.strictObject({ ...listParams });

const keyBase = {
  key_id: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
};

/** A key as created or rotated: the only time the secret is shown. */
export const keyWithSecret = z.object({ ...keyBase, api_key: z.string() });

export const rotatedKey = z.object({
  ...keyBase,
  api_key: z.string(),
  rotated_at: z.string(),
  previous_key_expires_at: z.string().nullable(),
});

export const keySummary = z.object({
  ...keyBase,
  prefix: z.string(),
  primary: z.boolean(),
  last_used_at: z.string().nullable(),
  rotated_at: z.string().nullable(),
  suspended: z
    .boolean()
    .describe(
      'True while the plan allows fewer keys than the tenant holds (after a downgrade): the key is refused with 403 `plan_required` until an upgrade.',
    ),
});

export const keyList = pageSchema(keySummary);

export const revokedKey = z.object({ key_id: z.string(), revoked: z.literal(true), revoked_at: z.string() });

export type CreateKeyInput = z.infer<typeof createKeyInput>;
export type RotateKeyInput = z.infer<typeof rotateKeyInput>;
export type ListKeysInput = z.infer<typeof listKeysInput>;
