/** The OpenAPI path item of /api/a2a (src/server/a2a/handler.ts), assembled by src/server/openapi.ts. */
import { API_SECURITY, errorResponse, INTERNAL, JSON_RPC_RESPONSE, jsonRpcBody, withHeaders, type PathItems } from '../openapi-parts';

export function a2aPaths(): PathItems {
  const rpcError = JSON_RPC_RESPONSE;
  return {
    '/api/a2a': {
      post: {
        operationId: 'protocols-a2a',
        tags: ['protocols'],
        summary: 'A2A endpoint (JSON-RPC 2.0 binding)',
        description:
          "Agent2Agent protocol, JSON-RPC 2.0 binding, for protocol versions 1.0 (`SendMessage`, `GetTask`, ...) and 0.3 (`message/send`, `tasks/get`, ...); no streaming, no push notifications. A message naming `{module, action, input}` runs one execution and returns a completed Task; one naming `{workflow_id, input}` starts a workflow run, whose Task (id `run_...`) is `input-required` while it waits for an approval, answered by a message with the run id as `taskId` and `{decision: approve | reject}`. One body is one call (no batches) and counts one request against the tenant's pool. Refusals before an execution exists are JSON-RPC errors carrying the platform's error code: `quota_exceeded`, or `concurrency_limit_exceeded` (the plan's executions in flight are all taken, or the machine is saturated and the execution could not start within a bounded wait; not counted; retry after 1 second). Sending and canceling need `modules:execute`, every other method `modules:read`.",
        security: API_SECURITY,
        requestBody: {
          required: true,
          description: 'One JSON-RPC 2.0 request',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } },
        },
        responses: {
          200: withHeaders('200', jsonRpcBody('The JSON-RPC response: a result, or an error (protocol errors and refusals)', rpcError)),
          400: withHeaders('400', jsonRpcBody('The body is not JSON (-32700) or not a JSON-RPC request (-32600)', rpcError)),
          401: errorResponse('401', "No valid credential (`unauthorized`); counts against the client IP's public pool"),
          403: errorResponse('403', 'The credential lacks the scope of the method (`insufficient_scope`)'),
          413: withHeaders('413', jsonRpcBody('The body exceeds 1 MiB: a JSON-RPC error (-32600)', rpcError)),
          429: errorResponse(
            '429',
            "The tenant's request pool is spent (`rate_limit_exceeded`), or, after a failed authentication, the client IP's public pool",
          ),
          500: errorResponse('500', INTERNAL),
        },
      },
    },
  };
}
