/** The OpenAPI path items of the discovery documents src/server/http/handler.ts serves, assembled by src/server/openapi.ts. */
import { errorResponse, headerRef, INTERNAL, type Json, type PathItems } from '../openapi-parts';
import { DEFINITION_SCHEMA_PATH } from './definition-schema';

/**
 * Where the authentication document is served (src/server/http/openapi-auth.ts): the identity
 * provider's `/auth/v1/*` and the OAuth authorization server's endpoints.
 */
export const AUTH_OPENAPI_PATH = '/api/openapi-auth.json';

/** Where the operator API's document is served (buildAdminOpenApiDocument, src/server/openapi.ts). */
export const ADMIN_OPENAPI_PATH = '/api/openapi-admin.json';

/**
 * The discovery documents the handler serves itself (not procedures): public, exempt from the
 * request limit, and answered with the caller's pool reported. No input is read, so no 4xx.
 */
export function discoveryPaths(): PathItems {
  const ok = (description: string, contentType: string, schema: Json) => ({
    200: { description, content: { [contentType]: { schema } } },
    500: errorResponse('500', INTERNAL),
  });
  /** A document built once and served as built (src/server/http/static-document.ts): revalidated by its ETag. */
  const served = (description: string, contentType: string, schema: Json) => ({
    parameters: [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'The `ETag` of the copy the client holds: a 304 without the body while it is current.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: { description, headers: { ETag: headerRef('ETag') }, content: { [contentType]: { schema } } },
      304: { description: 'The copy the client holds (`If-None-Match`) is current: no body.', headers: { ETag: headerRef('ETag') } },
      500: errorResponse('500', INTERNAL),
    },
  });
  const openapi = (operationId: string) => ({
    get: {
      operationId,
      tags: ['discovery'],
      summary: 'This OpenAPI 3.1 document',
      description: 'The same document, byte for byte, at `/api/openapi.json` and `/openapi.json`. Public; exempt from the request limit.',
      security: [],
      ...served('The OpenAPI 3.1 document', 'application/json', { type: 'object', description: 'An OpenAPI 3.1 document' }),
    },
  });
  const card = (operationId: string, path: string) => ({
    get: {
      operationId,
      tags: ['discovery'],
      summary: path === '/.well-known/agent.json' ? 'A2A agent card' : 'A2A agent card (A2A 1.0 well-known path)',
      description:
        'The A2A AgentCard: the A2A JSON-RPC endpoint (`POST /api/a2a`) for protocol versions 1.0 and 0.3, the 0.3 top-level fields (`url`, `preferredTransport`, `protocolVersion`), the security schemes and one skill per module category. The same card at `/.well-known/agent.json` and `/.well-known/agent-card.json`. Public; exempt from the request limit.',
      security: [],
      responses: ok('The agent card', 'application/json', {
        type: 'object',
        description: 'An A2A AgentCard',
        required: ['name', 'url', 'protocolVersion'],
        properties: { name: { type: 'string' }, url: { type: 'string', format: 'uri' }, protocolVersion: { type: 'string' } },
      }),
    },
  });
  return {
    '/api/llms.txt': {
      get: {
        operationId: 'discovery-llms-txt',
        tags: ['discovery'],
        summary: 'LLM-readable description of the service and its modules',
        description:
          'Markdown following llmstxt.org: how to authenticate and call, then the public modules by category with links to their documentation. Public; exempt from the request limit.',
        security: [],
        responses: ok('The llms.txt document', 'text/plain', { type: 'string' }),
      },
    },
    '/api/openapi.json': openapi('discovery-openapi'),
    '/openapi.json': openapi('discovery-openapi-root'),
    [AUTH_OPENAPI_PATH]: {
      get: {
        operationId: 'discovery-openapi-auth',
        tags: ['discovery'],
        summary: 'The OpenAPI 3.1 document of the authentication endpoints',
        description:
          'A separate OpenAPI 3.1 document for the endpoints that issue credentials: the built-in identity provider (`/auth/v1/*`, GoTrue-compatible: sign-up, sign-in, sessions, passkeys, mailed links, its JWKS) and the OAuth 2.1 authorization server for MCP clients (`/oauth/*`: authorize, token, dynamic client registration, revocation, JWKS, the sign-in and consent endpoints, and the RFC 9728 / RFC 8414 metadata documents). Same error body (`ApiError`) and response headers as this document. Public; exempt from the request limit.',
        security: [],
        ...served('The OpenAPI 3.1 document of the authentication endpoints', 'application/json', {
          type: 'object',
          description: 'An OpenAPI 3.1 document',
        }),
      },
    },
    [ADMIN_OPENAPI_PATH]: {
      get: {
        operationId: 'discovery-openapi-admin',
        tags: ['discovery'],
        summary: "The OpenAPI 3.1 document of the operator's endpoints",
        description:
          "A separate OpenAPI 3.1 document for the endpoints of the deployment's operator (`/api/v1/admin/*`, authenticated with `x-admin-token`): tenants and plans, invoices, billing closes, disabled webhooks and failed deliveries, certification runs, the platform's audit log. Same error body (`ApiError`) and response headers as this document. Public; exempt from the request limit.",
        security: [],
        ...served("The OpenAPI 3.1 document of the operator's endpoints", 'application/json', {
          type: 'object',
          description: 'An OpenAPI 3.1 document',
        }),
      },
    },
    [DEFINITION_SCHEMA_PATH]: {
      get: {
        operationId: 'discovery-workflow-definition-schema',
        tags: ['discovery'],
        summary: 'The JSON Schema of a workflow definition',
        description:
          "A JSON Schema (2020-12) document of the body of `POST /api/v1/workflows` (and `PUT /api/v1/workflows/{id}`): this document's schema of a definition, self-contained (the schemas it names are in its `$defs`). For checking a definition before sending it, in an editor or an agent. Public; exempt from the request limit.",
        security: [],
        ...served('The JSON Schema of a workflow definition', 'application/schema+json', {
          type: 'object',
          description: 'A JSON Schema (2020-12) document',
        }),
      },
    },
    '/.well-known/agent.json': card('discovery-agent-card', '/.well-known/agent.json'),
    '/.well-known/agent-card.json': card('discovery-agent-card-well-known', '/.well-known/agent-card.json'),
  };
}
