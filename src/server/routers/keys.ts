import { createKey } from '../../keys/create';
import { listKeys } from '../../keys/list';
import { getKey, setKeyPolicy } from '../../keys/policy';
import { revokeKey } from '../../keys/revoke';
import { rotateKey } from '../../keys/rotate';
import { getKeyUsage } from '../../keys/usage';
import {
  createKeyInput,
  keyIdInput,
  keyList,
  keyUsage,
  keyUsageInput,
  keySummary,
  setKeyPolicyInput,
  keyWithSecret,
  listKeysInput,
  revokedKey,
  rotateKeyInput,
  rotatedKey,
} from '../../keys/schema';
import { apiProcedure, router } from '../trpc';

const readKeys = apiProcedure('keys:manage', undefined, 'keys:read');
const manageKeys = apiProcedure('keys:manage');
const tags = ['keys'];

export const keysRouter = router({
  create: apiProcedure('keys:manage', 'multiple_keys')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/keys',
        tags,
        summary: 'Create an API key',
        description:
          'Pro plan and above. Without `scopes` the key gets `["modules:read","modules:execute"]`. A key can grant only scopes its creator holds. The secret is shown only in this response.',
        errorResponses: { 400: 'Invalid body' },
      },
      successStatus: 201,
    })
    .input(createKeyInput)
    .output(keyWithSecret)
    .mutation(({ ctx, input }) => createKey(ctx.svc, ctx.principal, input)),

  list: readKeys
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/keys',
        tags,
        summary: 'List API keys',
        description: 'Active keys of the tenant, newest first, without secrets.',
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listKeysInput)
    .output(keyList)
    .query(({ ctx, input }) => listKeys(ctx.svc, ctx.principal, input)),

  get: readKeys
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/keys/{key_id}',
        tags,
        summary: 'Get an API key',
        description: 'One active key of the tenant, without its secret, with its policy.',
        errorResponses: { 404: 'No such key' },
      },
    })
    .input(keyIdInput)
    .output(keySummary)
    .query(({ ctx, input }) => getKey(ctx.svc, ctx.principal, input.key_id)),

  setPolicy: manageKeys
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/keys/{key_id}/policy',
        tags,
        summary: "Set an API key's policy",
        description:
          "Sets what the key may call and spend. A field given replaces the key's, `null` clears it, a field left out stays as it is; the answer is the key with its whole policy. Takes effect on the next request on every instance. The rules, on every surface (REST, batch, chain, MCP, A2A, workflows, arm): docs/policies.md.",
        errorResponses: {
          400: 'Invalid policy (a field out of range, an address that is not an IP or CIDR block, an expiry in the past)',
          404: 'No such key',
        },
      },
    })
    .input(setKeyPolicyInput)
    .output(keySummary)
    .mutation(({ ctx, input }) => setKeyPolicy(ctx.svc, ctx.principal, input)),

  usage: readKeys
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/keys/{key_id}/usage',
        tags,
        summary: "An API key's usage in a billing cycle",
        description:
          "The key's executions in the cycle (calendar months in UTC) by outcome, per UTC day and in all; what they cost as its spend cap counts it; " +
          'and the requests its policy refused, per day and by reason. `?cycle=YYYY-MM` reads a past cycle (back to the month the key was created). Money is USD decimal strings.',
        errorResponses: {
          400: 'Invalid request (`invalid_request`, with `issues`): `cycle` not written `YYYY-MM`, a cycle that has not begun, or one before the key was created',
          404: 'No such key',
        },
      },
    })
    .input(keyUsageInput)
    .output(keyUsage)
    .query(({ ctx, input }) => getKeyUsage(ctx.svc, ctx.principal, input)),

  rotate: manageKeys
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/keys/{key_id}/rotate',
        tags,
        summary: 'Rotate an API key',
        description:
          'Issues a new secret for the same key. The old secret keeps working for `grace_seconds` (0–86400, default 0). The caller must hold every scope of the rotated key.',
        errorResponses: {
          400: 'Invalid body',
          404: 'No such key',
        },
      },
    })
    .input(rotateKeyInput)
    .output(rotatedKey)
    .mutation(({ ctx, input }) => rotateKey(ctx.svc, ctx.principal, input)),

  revoke: manageKeys
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/keys/{key_id}',
        tags,
        summary: 'Revoke an API key',
        description:
          'The key stops working on the very next request, on every instance. Revoking the last key that can manage keys is 409.',
        errorResponses: {
          404: 'No such key',
          409: 'Last key able to manage keys',
        },
      },
    })
    .input(keyIdInput)
    .output(revokedKey)
    .mutation(({ ctx, input }) => revokeKey(ctx.svc, ctx.principal, input.key_id)),
});
