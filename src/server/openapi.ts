import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { API_TITLE, VERSION } from '../version';
import { ERRORS } from './errors';
import { RouteTable } from './http/routes';
import { appRouter } from './router';

type Json = Record<string, unknown>;

const ERROR_SCHEMA = {
  type: 'object',
  description:
    'Every non-2xx body. Some codes add fields: `required_scope` (insufficient_scope), `required_plan` (plan_required), `issues` (invalid_request), `retry_after`, `limit`, `reset_at` (rate_limit_exceeded, quota_exceeded), `execution` (invalid_input, module_error, timeout).',
  required: ['error', 'message', 'request_id'],
  properties: {
    error: { type: 'string', enum: Object.keys(ERRORS), description: 'Machine-readable code' },
    message: { type: 'string', description: 'Human-readable explanation' },
    request_id: { type: 'string', description: 'Same as the X-Request-Id response header' },
    required_scope: { type: 'string' },
    required_plan: { type: 'string' },
    issues: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    retry_after: { type: 'integer' },
    limit: { type: 'integer' },
    reset_at: { type: 'string', format: 'date-time' },
  },
  additionalProperties: true,
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Maximum requests per 60-second window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets', schema: { type: 'integer' } },
  'X-Request-Id': { description: 'Request identifier', schema: { type: 'string' } },
};

const errorResponse = (description: string, extraHeaders: Json = {}) => ({
  description,
  headers: { 'X-Request-Id': RATE_LIMIT_HEADERS['X-Request-Id'], ...extraHeaders },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The OpenAPI 3.1 document, generated from the routers (never hand-written), then adjusted for
 * what the generator cannot express: 201/202 success statuses, our error schema and headers.
 */
export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: API_TITLE,
    version: VERSION,
    openApiVersion: '3.1.0',
    description:
      'Multi-tenant API through which software agents find, install and run modules. Authenticate with `x-api-key: <API_KEY>` or `Authorization: Bearer <token>`. Errors share one format (`Error`). Every response carries `X-Request-Id`; authenticated responses carry the rate-limit headers.',
    baseUrl,
    securitySchemes: {
      ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key (`amp_...`)' },
      BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OAuth 2.1 access token from the identity provider' },
    },
  }) as OpenAPIObject & { components: { schemas?: Json } };

  for (const route of new RouteTable(appRouter).all()) {
    const op = (doc.paths?.[route.template] as Json | undefined)?.[route.method.toLowerCase()] as Json | undefined;
    if (!op) continue;
    const responses = op.responses as Record<string, Json>;
    const success = responses['200']!;
    const status = String(route.meta.successStatus ?? 200);
    const protectedRoute = route.meta.openapi?.protect !== false;
    const rebuilt: Record<string, Json> = {
      [status]: { ...success, headers: protectedRoute ? RATE_LIMIT_HEADERS : { 'X-Request-Id': RATE_LIMIT_HEADERS['X-Request-Id'] } },
    };
    // The generator shares one response object per error code across routes, so descriptions
    // come from each route's own meta, never from the generated object.
    const declared = route.meta.openapi?.errorResponses;
    const described = declared && !Array.isArray(declared) ? (declared as Record<string, string>) : {};
    for (const [code, response] of Object.entries(responses)) {
      if (code.startsWith('2')) continue;
      rebuilt[code] = errorResponse(described[code] ?? String(response.description ?? 'Error'));
    }
    if (protectedRoute && !route.meta.rateLimitExempt) {
      rebuilt['429'] = errorResponse(described['429'] ?? 'Rate limit exceeded', {
        'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
      });
    }
    rebuilt['500'] = errorResponse(described['500'] ?? 'Internal error');
    op.responses = rebuilt;
  }

  const schemas = Object.fromEntries(Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  doc.components.schemas = { ...schemas, Error: ERROR_SCHEMA } as never;
  return doc;
}
