/**
 * The pieces of the OpenAPI document that every transport's path items share: the response
 * headers of the caller's pool, the error response, the credentials an operation takes, and the
 * JSON-RPC bodies of /api/mcp and /api/a2a. src/server/openapi.ts assembles the document.
 */

import { PLAN_FEATURES, type PlanFeature } from '../contract/plans';
import type { RoleScope } from '../contract/roles';
import type { Scope } from '../contract/scopes';

export type Json = Record<string, unknown>;

/** Path items by path, as a transport documents the paths it serves outside the procedures. */
export type PathItems = Record<string, Json>;

export const API_SECURITY = [{ ApiKeyAuth: [] }, { BearerAuth: [] }];

/** What a tenant operation requires: the arguments of src/server/admission.ts assertAllowed. */
export interface Requirements {
  scope?: Scope;
  feature?: PlanFeature;
  /** What a member's role must hold instead of `scope`. */
  roleScope?: RoleScope;
}

/**
 * The 403 of a tenant operation for what it requires: the credential's scope (a member's role's
 * where that differs) and the plan. Undefined when it requires neither.
 */
export function refusalDescription({ scope, feature, roleScope }: Requirements): string | undefined {
  const reasons: string[] = [];
  if (scope) {
    const member = roleScope && roleScope !== scope ? ` (a member's role: \`${roleScope}\`)` : '';
    reasons.push(`The credential lacks the scope \`${scope}\`${member} (\`insufficient_scope\`)`);
  }
  if (feature) {
    const { label, minPlan } = PLAN_FEATURES[feature];
    reasons.push(`the plan must be \`${minPlan}\` or above for ${label.toLowerCase()} (\`plan_required\`)`);
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

export const INTERNAL = 'Internal error (`internal_error`, a generic message: nothing internal is disclosed)';

export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The headers of a response of `status`, as `{ headers }` to spread into it. An error response
 * declares the caller's pool (every API response carries it; the document's description and
 * `components.headers` say so once), plus `Retry-After` on 429 and `Allow` on 405. A success
 * response declares only the headers particular to it, which its builder adds.
 */
export function responseHeaders(status: string): { headers?: Json } {
  if (Number(status) < 400) return {};
  const names = [
    'X-Request-Id',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'RateLimit',
    'RateLimit-Policy',
    'X-Execution-Remaining',
  ];
  if (status === '429') names.push('Retry-After');
  if (status === '405') names.push('Allow');
  return { headers: Object.fromEntries(names.map((n) => [n, headerRef(n)])) };
}

export const errorResponse = (status: string, description: string) => ({
  description,
  ...responseHeaders(status),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
});

/** A JSON body of `schema` (the JSON-RPC answers of /api/mcp and /api/a2a). */
export const jsonRpcBody = (description: string, schema: Json) => ({ description, content: { 'application/json': { schema } } });

/** `response` with the headers a response of `status` declares. */
export const withHeaders = (status: string, response: Json) => ({ ...response, ...responseHeaders(status) });

/** A JSON-RPC response (its `error` included), as a body schema. */
export const JSON_RPC_RESPONSE = { $ref: '#/components/schemas/JsonRpcResponse' };

/** The JSON-RPC 2.0 message schemas of /api/mcp and /api/a2a. */
export const JSON_RPC_SCHEMAS: Record<string, Json> = {
  JsonRpcRequest: {
    type: 'object',
    description: 'A JSON-RPC 2.0 request (with `id`) or notification (without).',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { type: 'string', const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      method: { type: 'string' },
      params: { oneOf: [{ type: 'object' }, { type: 'array', items: {} }] },
    },
  },
  JsonRpcResponse: {
    type: 'object',
    description: 'A JSON-RPC 2.0 response: `result` on success, `error` otherwise.',
    required: ['jsonrpc', 'id'],
    properties: {
      jsonrpc: { type: 'string', const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      result: {},
      error: { $ref: '#/components/schemas/JsonRpcError' },
    },
  },
  JsonRpcError: {
    type: 'object',
    description: 'A JSON-RPC 2.0 error object. `data.request_id` repeats `X-Request-Id` where the platform raised the error itself.',
    required: ['code', 'message'],
    properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
  },
};
