/** The OpenAPI path items of /api/mcp (src/server/mcp/handler.ts), assembled by src/server/openapi.ts. */
import {
  API_SECURITY,
  errorResponse,
  INTERNAL,
  JSON_RPC_RESPONSE,
  jsonRpcBody,
  responseHeaders,
  withHeaders,
  type PathItems,
} from '../openapi-parts';

/** The challenge of a refusal at /api/mcp (MCP authorization, RFC 6750 / RFC 9728). */
const WWW_AUTHENTICATE = {
  description:
    'Bearer challenge: `resource_metadata` (the protected resource metadata URL), and `error` (`invalid_token`, `insufficient_scope`) with `scope` when a token was refused',
  schema: { type: 'string' },
};

export function mcpPaths(): PathItems {
  const requestBody = (description: string) => ({
    required: true,
    description,
    content: {
      'application/json': {
        schema: {
          oneOf: [
            { $ref: '#/components/schemas/JsonRpcRequest' },
            { type: 'array', items: { $ref: '#/components/schemas/JsonRpcRequest' } },
          ],
        },
      },
    },
  });
  const rpcError = JSON_RPC_RESPONSE;
  const notPost = (path: string, method: string) => ({
    operationId: `protocols-mcp-${method}`,
    tags: ['protocols'],
    summary: `${method.toUpperCase()} ${path} is not offered`,
    description:
      method === 'get'
        ? 'The MCP Streamable HTTP transport lets a client open an SSE stream with GET; this server is stateless and offers none, so it answers 405 (as the MCP specification prescribes), with `Allow: POST, OPTIONS`.'
        : 'The MCP Streamable HTTP transport ends a session with DELETE; this server is stateless (no `Mcp-Session-Id`), so it answers 405 with `Allow: POST, OPTIONS`.',
    security: [],
    responses: {
      403: withHeaders('403', jsonRpcBody('Refused `Origin` (DNS rebinding protection): a JSON-RPC error', rpcError)),
      405: errorResponse('405', 'Only POST (and OPTIONS) are accepted (`method_not_allowed`)'),
      500: errorResponse('500', INTERNAL),
    },
  });
  return {
    '/api/mcp': {
      post: {
        operationId: 'protocols-mcp',
        tags: ['protocols'],
        summary: 'MCP endpoint (Streamable HTTP, stateless, JSON responses)',
        description:
          "Model Context Protocol over Streamable HTTP: every POST carries one JSON-RPC 2.0 message or a batch, and is answered with JSON (no SSE, no session). Tools are the visible modules' actions (`module__action`), resources their documentation (`amp://modules/{module}`). Each JSON-RPC request in a body counts one request against the tenant's pool (a batch of n costs n, admitted together or not at all); `tools/call` runs one execution, and its refusals are tool results with `isError` carrying the platform's error code: `quota_exceeded`, or `concurrency_limit_exceeded` (the plan's executions in flight are all taken, or the machine is saturated and the execution could not start within a bounded wait; not counted; retry after 1 second). Scopes are checked per method (`modules:read` to list, `modules:execute` to call). Requests with a browser `Origin` other than the service's own are refused.",
        security: API_SECURITY,
        parameters: [
          {
            name: 'modules',
            in: 'query',
            required: false,
            description:
              'Narrows the toolset and resources of this connection to these modules: comma-separated names, and the parameter may be repeated (`?modules=text,json`). Names that are not visible modules are ignored and reported. Absent: every visible module.',
            schema: { type: 'string' },
          },
        ],
        requestBody: requestBody('One JSON-RPC 2.0 message, or a batch of them (an array)'),
        responses: {
          200: withHeaders(
            '200',
            jsonRpcBody('The JSON-RPC response (or an array of them for a batch), errors included', {
              oneOf: [rpcError, { type: 'array', items: rpcError }],
            }),
          ),
          202: { description: 'The body held only notifications or responses: accepted, no body' },
          400: withHeaders('400', jsonRpcBody('The body is not JSON: a JSON-RPC parse error (-32700)', rpcError)),
          401: {
            ...errorResponse(
              '401',
              "No valid credential (`unauthorized`); counts against the client IP's public pool. `WWW-Authenticate` names the OAuth protected resource metadata (MCP authorization).",
            ),
            headers: { ...responseHeaders('401').headers, 'WWW-Authenticate': WWW_AUTHENTICATE },
          },
          403: {
            description:
              'Refused `Origin` (DNS rebinding protection): a JSON-RPC error; or an OAuth access token without the scope a single call needs: `insufficient_scope` in the error format, with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` (API keys get the JSON-RPC refusal in a 200 instead)',
            headers: { ...responseHeaders('403').headers, 'WWW-Authenticate': WWW_AUTHENTICATE },
            content: { 'application/json': { schema: { oneOf: [rpcError, { $ref: '#/components/schemas/ApiError' }] } } },
          },
          413: withHeaders('413', jsonRpcBody('The body exceeds 1 MiB: a JSON-RPC error', rpcError)),
          429: errorResponse(
            '429',
            "The tenant's request pool cannot admit the body's requests (`rate_limit_exceeded`), or, after a failed authentication, the client IP's public pool is spent",
          ),
          500: errorResponse('500', INTERNAL),
        },
      },
      get: notPost('/api/mcp', 'get'),
      delete: notPost('/api/mcp', 'delete'),
    },
  };
}
