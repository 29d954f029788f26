import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { EVENT_TYPES } from '../events/record';
import { EVENT_DATA_SCHEMAS, TEST_EVENT_DATA_SCHEMA, TEST_EVENT_TYPE } from '../events/schemas';
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

/** Every kind of envelope the service POSTs to receivers: the 12 event kinds, then the test event. */
const WEBHOOK_DATA_SCHEMAS: [string, z.ZodType][] = [
  ...EVENT_TYPES.map((kind): [string, z.ZodType] => [kind, EVENT_DATA_SCHEMAS[kind]]),
  [TEST_EVENT_TYPE, TEST_EVENT_DATA_SCHEMA],
];

/** `execution.completed` -> `ExecutionCompletedData`. */
const dataSchemaName = (kind: string) =>
  `${kind
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Data`;

/**
 * A data schema as JSON Schema, converted the way trpc-to-openapi (through zod-openapi) converts
 * the routers' output schemas: zod 4's own converter, output side, draft 2020-12 (the dialect of
 * OpenAPI 3.1), without the `$schema` keyword a component must not repeat.
 */
function dataJsonSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Json;
  return json;
}

const WEBHOOK_ENVELOPE_SCHEMA = {
  type: 'object',
  description:
    'The body of every webhook delivery (`POST`, `application/json`). Signed: `X-Webhook-Signature` is computed over these exact bytes; verify it against the raw body, never re-serialized JSON. The same event (same `id`) may arrive more than once: deduplicate on `id`. Bodies are capped at 64 KB; a large execution output is replaced by a summary with `truncated: true` and `full_result_url`.',
  required: ['id', 'event', 'timestamp', 'data'],
  properties: {
    id: { type: 'string', description: 'Event identifier (`evt_...`): unique per event, repeated on every retry and replay of it' },
    event: { type: 'string', enum: WEBHOOK_DATA_SCHEMAS.map(([kind]) => kind), description: 'Event kind; selects the shape of `data`' },
    timestamp: { type: 'string', format: 'date-time', description: 'When the event happened (ISO 8601, UTC)' },
    data: { type: 'object', additionalProperties: true, description: 'Varies by event kind: see each entry of `webhooks`' },
  },
};

/** Request headers of every delivery, shared by all webhook operations. */
const WEBHOOK_HEADERS: Record<string, Json> = {
  WebhookSignature: {
    name: 'X-Webhook-Signature',
    in: 'header',
    required: true,
    description:
      'Lower-case hex HMAC-SHA256 of the raw request body, keyed with the subscription secret. Recompute it over the bytes received and compare in constant time.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  WebhookEventId: {
    name: 'X-Webhook-Id',
    in: 'header',
    required: true,
    description: 'The envelope `id` (the same on every retry): deduplicate on it.',
    schema: { type: 'string' },
  },
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The envelope `id` again, under the Standard Webhooks header name.',
    schema: { type: 'string' },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix time (seconds) at which this attempt was sent. Not covered by the signature.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookEventType: {
    name: 'X-Webhook-Event',
    in: 'header',
    required: true,
    description: 'The envelope `event`, to route before parsing the body.',
    schema: { type: 'string' },
  },
  WebhookDeliveryId: {
    name: 'X-Webhook-Delivery',
    in: 'header',
    required: true,
    description: 'The delivery (`dlv_...`) this attempt belongs to, as shown in the subscription history; a replay is a new delivery of the same event id.',
    schema: { type: 'string' },
  },
  WebhookAttempt: {
    name: 'X-Webhook-Attempt',
    in: 'header',
    required: true,
    description: 'The attempt number of this delivery, from 1.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

const WEBHOOK_RESPONSES = {
  '2XX': { description: 'Delivered. The body is not interpreted (its first 1 KB shows in the delivery history).' },
  default: {
    description:
      'Any other status (redirects are not followed), or no answer within 10 seconds: a failed attempt. It is retried after 10 s, 60 s and 5 min; when all four attempts fail the delivery has failed, and after 10 failed deliveries in a row the subscription is disabled. Test events are sent once and never count toward disabling.',
  },
};

/** The top-level `webhooks` section (OpenAPI 3.1): one `post` per envelope kind, keyed by the kind. */
function webhooksSection(): { webhooks: Record<string, Json>; schemas: Record<string, Json> } {
  const webhooks: Record<string, Json> = {};
  const schemas: Record<string, Json> = { WebhookEnvelope: WEBHOOK_ENVELOPE_SCHEMA };
  for (const [kind, schema] of WEBHOOK_DATA_SCHEMAS) {
    const name = dataSchemaName(kind);
    schemas[name] = dataJsonSchema(schema);
    const description = schema.description ?? kind;
    webhooks[kind] = {
      post: {
        operationId: `webhook-${kind.replaceAll('.', '-')}`,
        summary: description,
        description:
          kind === TEST_EVENT_TYPE
            ? `${description} Sent once, on request, to that one subscription (whatever its \`events\` and status), so a receiver can be checked; not one of the event kinds.`
            : `${description} Delivered to every active subscription whose \`events\` include \`${kind}\` or \`*\`, for all of the tenant's modules.`,
        tags: ['webhooks'],
        parameters: Object.keys(WEBHOOK_HEADERS).map((p) => ({ $ref: `#/components/parameters/${p}` })),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [{ $ref: '#/components/schemas/WebhookEnvelope' }],
                type: 'object',
                required: ['id', 'event', 'timestamp', 'data'],
                properties: {
                  event: { type: 'string', const: kind },
                  data: { $ref: `#/components/schemas/${name}` },
                },
              },
            },
          },
        },
        responses: WEBHOOK_RESPONSES,
      },
    };
  }
  return { webhooks, schemas };
}

/**
 * The OpenAPI 3.1 document, generated from the routers (never hand-written), then adjusted for
 * what the generator cannot express: 201/202 success statuses, our error schema and headers, and
 * the `webhooks` section (the envelopes POSTed to receivers, from the zod schemas of src/events).
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
  const webhooks = webhooksSection();
  doc.components.schemas = { ...schemas, Error: ERROR_SCHEMA, ...webhooks.schemas } as never;
  doc.components.parameters = { ...doc.components.parameters, ...WEBHOOK_HEADERS } as never;
  doc.webhooks = webhooks.webhooks as never;
  return doc;
}
