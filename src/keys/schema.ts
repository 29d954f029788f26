import { z } from 'zod';
import { KEY_GRACE_MAX_SECONDS, KEY_NAME_MAX_LENGTH, POLICY_LIST_MAX } from '../contract/limits';
import { SCOPES, scopeSchema } from '../contract/scopes';
import { listParams, pageSchema } from '../lib/pagination';
import { moduleName } from '../catalog/schema';
import { DEFINITION_HASH } from '../catalog/definition-hash';
import { isoDateTime } from '../lib/dates';
import { parseCidr } from './policy-rules';
import { usageInput } from '../billing/schema';

const keyId = z.string().min(1).max(64).describe('Key identifier (`key_...`)');
const keyName = z.string().trim().min(1).max(KEY_NAME_MAX_LENGTH);

/** `module.action` or `module.*`. */
const ACTION_PATTERN = /^[a-z][a-z0-9-]{1,29}\.([a-z][a-z0-9]*(_[a-z0-9]+)*|\*)$/;
/** US dollars with at most two decimals, e.g. `12.50`. */
const USD = /^(0|[1-9][0-9]{0,8})(\.[0-9]{1,2})?$/;

/** Each field of a policy: `null` clears it (PUT), absent leaves it as it is. */
const policyFields = {
  modules: z.array(moduleName).max(POLICY_LIST_MAX).describe('Modules the key may call, any action (names).'),
  actions: z
    .array(z.string().regex(ACTION_PATTERN, "Actions are written 'module.action' or 'module.*'"))
    .max(POLICY_LIST_MAX)
    .describe('Actions the key may call: `module.action` or `module.*`. With `modules`, a call is allowed when either list allows it.'),
  min_trust_tier: z.enum(['bronze', 'silver', 'gold']).describe('Only modules certified at this tier or above.'),
  min_trust_score: z.number().int().min(0).max(100).describe('Only modules whose trust score is at least this.'),
  pins: z
    .record(moduleName, z.string().regex(DEFINITION_HASH, 'A definition hash is sha256: and 64 hex digits'))
    .refine((pins) => Object.keys(pins).length <= POLICY_LIST_MAX, `At most ${POLICY_LIST_MAX} pins`)
    .describe("module -> definition_hash: calls are refused (`definition_changed`) once the module's definition differs."),
  requests_per_minute: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .describe("The key's own request pool per minute; the tenant's pool still applies."),
  executions_per_month: z.number().int().min(1).max(1_000_000_000).describe('Executions this key may start per billing cycle.'),
  spend_cap_usd: z
    .string()
    .regex(USD, 'A spend cap is US dollars with at most two decimals, e.g. "12.50"')
    .describe("What this key's executions may cost per billing cycle, valued at the tenant's price per execution."),
  expires_at: isoDateTime().describe('After this instant the key is refused (`key_expired`).'),
  ip_allow: z
    .array(z.string().refine((entry) => parseCidr(entry) !== undefined, 'Each entry is an IP address or a CIDR block, e.g. 203.0.113.0/24'))
    .min(1)
    .max(POLICY_LIST_MAX)
    .describe('Client addresses (IPs or CIDR blocks) the key may be used from.'),
};

/** A policy as answered: only the fields that are set. */
export const keyPolicy = z
  .object(
    Object.fromEntries(Object.entries(policyFields).map(([name, schema]) => [name, schema.optional()])) as {
      [K in keyof typeof policyFields]: z.ZodOptional<(typeof policyFields)[K]>;
    },
  )
  .describe('What the key may call and spend (docs/policies.md); it only narrows what the tenant allows.')
  .meta({ id: 'KeyPolicy' });

/** A policy to set: each field optional, `null` to clear it. */
export const keyPolicyPatch = z.strictObject(
  Object.fromEntries(Object.entries(policyFields).map(([name, schema]) => [name, schema.nullable().optional()])) as {
    [K in keyof typeof policyFields]: z.ZodOptional<z.ZodNullable<(typeof policyFields)[K]>>;
  },
);

export const createKeyInput = z.strictObject({
  name: keyName,
  scopes: z.array(scopeSchema).min(1).max(SCOPES.length).optional(),
  policy: keyPolicyPatch.optional(),
});

export const setKeyPolicyInput = keyPolicyPatch.extend({ key_id: z.string().min(1).max(64) });

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
  policy: keyPolicy.nullable(),
};

/** A key as created or rotated: the only time the secret is shown. */
export const keyWithSecret = z.object({ ...keyBase, api_key: z.string() }).meta({ id: 'ApiKeyWithSecret' });

export const rotatedKey = z
  .object({
    ...keyBase,
    api_key: z.string(),
    rotated_at: z.string(),
    previous_key_expires_at: z.string().nullable(),
  })
  .meta({ id: 'RotatedApiKey' });

export const keySummary = z
  .object({
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
  })
  .meta({ id: 'ApiKey' });

export const keyList = pageSchema(keySummary);

export const revokedKey = z.object({ key_id: z.string(), revoked: z.literal(true), revoked_at: z.string() }).meta({ id: 'RevokedApiKey' });

/** `GET /api/v1/keys/{key_id}/usage?cycle=YYYY-MM` */
export const keyUsageInput = z.strictObject({
  key_id: keyId,
  cycle: usageInput.shape.cycle.describe(
    'The billing cycle (calendar month, UTC) to read, `YYYY-MM`; default the current one. Past cycles back to the month the key was created.',
  ),
});

const count = z.number().int();

export const keyUsage = z
  .object({
    key_id: z.string(),
    cycle: z
      .object({
        start: z.string().describe('Start of the cycle (ISO 8601, inclusive)'),
        end: z.string().describe('End of the cycle (ISO 8601, exclusive): the start of the next one'),
      })
      .describe('The billing cycle read: a calendar month in UTC'),
    executions: z
      .object({ total: count, succeeded: count, failed: count })
      .describe("The key's executions started in the cycle (`total` includes any still running)"),
    spend_usd: z
      .string()
      .describe('What the key\'s executions cost in the cycle as its spend cap counts it, USD with two decimals (`"0.00"` when none)'),
    days: z
      .array(z.object({ date: z.string().describe('UTC day, `YYYY-MM-DD`'), succeeded: count, failed: count, refused: count }))
      .describe(
        "One entry per UTC day of the cycle, zeros included: up to today for the current cycle, every day for a past one. `refused`: requests the key's policy refused that day",
      ),
    refusals: z
      .array(z.object({ reason: z.string(), count }))
      .describe(
        "Requests the key's policy refused in the cycle, by reason (`module_not_allowed`, `ip_not_allowed`, `executions_per_month`, ...), most first",
      ),
  })
  .meta({ id: 'ApiKeyUsage' });

export type CreateKeyInput = z.infer<typeof createKeyInput>;
export type RotateKeyInput = z.infer<typeof rotateKeyInput>;
export type ListKeysInput = z.infer<typeof listKeysInput>;
export type KeyPolicyPatch = z.infer<typeof keyPolicyPatch>;
export type SetKeyPolicyInput = z.infer<typeof setKeyPolicyInput>;
export type KeyUsageInput = z.infer<typeof keyUsageInput>;
export type KeyUsage = z.infer<typeof keyUsage>;
