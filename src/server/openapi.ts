import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { eventDataJsonSchema, WEBHOOK_DATA_SCHEMAS } from '../contract/event-catalog';
import { TEST_EVENT_TYPE } from '../contract/events';
import { API_TITLE, VERSION } from '../version';
import { a2aPaths } from './a2a/openapi';
import { ERRORS } from './errors';
import { eventStreamPaths } from './http/event-stream-openapi';
import { AUTH_OPENAPI_PATH, discoveryPaths } from './http/openapi';
import { RouteTable, type Route } from './http/routes';
import { mcpPaths } from './mcp/openapi';
import { dropSafeIntegerBounds, openObjects } from '../contract/output-schema';
import { canonical, compactDocument, componentsReachedFrom, dropUnreferencedComponents, operationsOf } from './openapi-compact';
import {
  API_SECURITY,
  errorResponse,
  refusalDescription,
  headerRef,
  INTERNAL,
  JSON_RPC_SCHEMAS,
  withHeaders,
  type Json,
} from './openapi-parts';
import { appRouter } from './router';

const ERROR_SCHEMA = {
  type: 'object',
  description:
    "Every non-2xx body. `doc_url` links the code's section of the served error reference (`/docs/errors#<code>`). Some codes add fields: `required_scope` (insufficient_scope), `required_plan` (plan_required), `issues` (invalid_request), `retry_after`, `limit`, `reset_at` (rate_limit_exceeded, quota_exceeded), `execution` (invalid_input, module_error, timeout).",
  required: ['error', 'message', 'request_id', 'doc_url'],
  properties: {
    error: {
      type: 'string',
      enum: Object.keys(ERRORS),
      description: 'Machine-readable code. The list may grow: handle an unknown code by its HTTP status',
    },
    message: { type: 'string', description: 'Human-readable explanation' },
    request_id: { type: 'string', description: 'Same as the X-Request-Id response header' },
    doc_url: {
      type: 'string',
      format: 'uri',
      description: "The code's section of the error reference: `${PUBLIC_BASE_URL}/docs/errors#<code>`",
    },
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

/**
 * Response headers, declared once. Every response carries the caller's pool, as `info.description`
 * says; error responses reference it (responseHeaders, src/server/openapi-parts.ts). A request
 * with a valid credential reports its tenant's pool and `X-Execution-Remaining`; one without (or
 * with an invalid one) reports the client IP's public pool (600 per minute) and no
 * `X-Execution-Remaining`.
 */
const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      "The request's identifier: the client's own `X-Request-Id` when it is a safe value, else generated. Error bodies repeat it as `request_id`.",
    required: true,
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description:
      "Requests allowed per 60-second window in the reported pool: the tenant's (plan limit) when a valid credential was sent, else the client IP's public pool (600).",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the reported pool (0 on a 429).', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) at which the reported pool has room again.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimit: {
    description:
      'The same pool as an IETF RateLimit field (draft-ietf-httpapi-ratelimit-headers-11), e.g. `"default";r=57;t=42` (remaining, seconds to reset).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The pool\'s quota policy as an IETF RateLimit-Policy field, e.g. `"default";q=60;w=60` (requests per window of seconds).',
    schema: { type: 'string' },
  },
  'X-Execution-Remaining': {
    description:
      "Executions left in the tenant's monthly quota (`unlimited` on enterprise). Sent on every response, whatever its status, when the request carried a valid credential; absent without one.",
    schema: {
      oneOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', const: 'unlimited' },
      ],
    },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  Allow: { description: 'The methods the path accepts, e.g. `POST, OPTIONS`.', required: true, schema: { type: 'string' } },
  ETag: {
    description:
      'The version of the document as sent: it differs per `Content-Encoding` (`br` or `gzip` when `Accept-Encoding` allows, else none). Sent back in `If-None-Match`, it gets a 304 while the document is unchanged; `Cache-Control: no-cache` asks a cache to check every time.',
    required: true,
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when the answer is the one kept for this `Idempotency-Key`: the request was not run again.',
    schema: { type: 'string', const: 'true' },
  },
};

/** The `Idempotency-Key` request header of the tenant's state-changing operations (src/idempotency/keys.ts). */
const IDEMPOTENCY_PARAMETER = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      "Makes a retry safe: a request sent again with the same key within 24 hours gets the first request's answer (with `Idempotent-Replayed: true`) and is not run again, so an execution is recorded and billed once. Keys belong to the tenant, and an answer is replayed only to the credential that sent the first request: reusing a key with another operation or input (the order of members aside), or from another credential, is a 400; while the first request runs, a 409 with `Retry-After: 1`. A request refused before anything was done (invalid input, not found, a limit) keeps no answer.",
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
};

/** The 409 of a request whose `Idempotency-Key` is still running carries it; an operation's own 409 need not. */
const IDEMPOTENCY_RETRY_AFTER = {
  description:
    'Sent (`1`) when the conflict is another request with the same `Idempotency-Key` still running: retry then to get its answer.',
  schema: { type: 'integer', minimum: 0 },
};

/** Operations that honour `Idempotency-Key`: the tenant's state-changing ones (apiProcedure mutations). */
function takesIdempotencyKey(route: Route): boolean {
  return route.method !== 'GET' && route.meta.caller === 'tenant';
}

/** A PDF file as a response body (OpenAPI 3.1: a string with its media type). */
const PDF_SCHEMA = { type: 'string', contentMediaType: 'application/pdf', description: 'The PDF document' };

/** The response content of a file route (meta `file`): its bytes with their media type (PDF unless `fileMediaType` says otherwise). */
function fileContent(route: Route): Record<string, Json> {
  const media = route.meta.fileMediaType ?? 'application/pdf';
  const schema =
    media === 'application/pdf' ? PDF_SCHEMA : { type: 'string', contentMediaType: media, description: `The ${media} document` };
  return { [media]: { schema } };
}

const PAYLOAD_TOO_LARGE = 'The request body exceeds 1 MiB (`payload_too_large`)';

/** What the procedure chain answers on every route of a kind: one wording per status and kind. */
const CHAIN_ERRORS = {
  badRequest:
    'Invalid request (`invalid_request`, with `issues`): input that does not match the schema, a body that is not JSON, JSON nested deeper than 64 levels, or text that cannot be stored (U+0000, unpaired surrogates)',
  unauthorized: 'No valid credential (`unauthorized`): a missing, unknown, revoked or expired API key or bearer token',
  adminUnauthorized: 'Missing or wrong `x-admin-token` (`unauthorized`)',
  notFound: 'No such resource (`not_found`)',
  adminNotFound: 'No such resource, or the admin API is disabled (`ADMIN_TOKEN` unset): `not_found`',
  tooManyRequests:
    "The tenant's request pool is spent (`rate_limit_exceeded`), or, after a failed authentication, the client IP's public pool",
  tooManyFailedAuthentications:
    "After a failed authentication, the client IP's public pool is spent (`rate_limit_exceeded`); this operation itself is exempt from the request limit",
  tooManyPublicRequests:
    "The caller's pool is spent (`rate_limit_exceeded`): the tenant's with a valid credential, else the client IP's public pool",
  idempotencyConflict:
    'A request with the same `Idempotency-Key` is still running (`conflict`, with `Retry-After: 1`): retry to get its answer',
};

/**
 * Every status a REST operation can answer, with its description: what the procedure chain
 * (src/server/trpc.ts) answers on every route of its kind, then the route's own
 * `errorResponses` (domain errors, and more specific wording), which win.
 */
function errorStatuses(route: Route): Record<string, string> {
  const admin = route.meta.caller === 'operator';
  const authenticated = route.meta.caller === 'tenant';
  const exempt = route.meta.rateLimitExempt === true;
  const out: Record<string, string> = { 400: CHAIN_ERRORS.badRequest };
  if (authenticated) out[401] = CHAIN_ERRORS.unauthorized;
  if (admin) out[401] = CHAIN_ERRORS.adminUnauthorized;
  if (route.template.includes('{')) out[404] = CHAIN_ERRORS.notFound;
  if (admin) out[404] = CHAIN_ERRORS.adminNotFound;
  out[413] = PAYLOAD_TOO_LARGE;
  if (authenticated && !exempt) out[429] = CHAIN_ERRORS.tooManyRequests;
  else if (authenticated) out[429] = CHAIN_ERRORS.tooManyFailedAuthentications;
  else if (!exempt) out[429] = CHAIN_ERRORS.tooManyPublicRequests;
  out[500] = INTERNAL;
  const declared = route.meta.openapi?.errorResponses;
  if (declared && !Array.isArray(declared)) Object.assign(out, declared);
  // What the operation requires (its scope, its plan) is the 403's first reason; its own follow.
  const refused = route.meta.requires && refusalDescription(route.meta.requires);
  const own = out[403];
  if (refused) out[403] = own ? `${refused}; ${own.charAt(0).toLowerCase()}${own.slice(1)}` : refused;
  // An operation's own 409 keeps its words; the Idempotency-Key parameter describes this one too.
  if (takesIdempotencyKey(route)) out[409] ??= CHAIN_ERRORS.idempotencyConflict;
  return out;
}

/** A 409 of an operation that takes `Idempotency-Key`: `Retry-After` when the key's request still runs. */
const withIdempotencyRetryAfter = (response: Json): Json => ({
  ...response,
  headers: { ...(response.headers as Json), 'Retry-After': IDEMPOTENCY_RETRY_AFTER },
});

/**
 * The error responses most operations answer with the same words, declared once
 * (`components.responses`) and referenced.
 */
const SHARED_RESPONSES: Record<string, { status: string; response: Json }> = {
  BadRequest: { status: '400', response: errorResponse('400', CHAIN_ERRORS.badRequest) },
  Unauthorized: { status: '401', response: errorResponse('401', CHAIN_ERRORS.unauthorized) },
  AdminUnauthorized: { status: '401', response: errorResponse('401', CHAIN_ERRORS.adminUnauthorized) },
  NotFound: { status: '404', response: errorResponse('404', CHAIN_ERRORS.notFound) },
  AdminNotFound: { status: '404', response: errorResponse('404', CHAIN_ERRORS.adminNotFound) },
  IdempotencyConflict: { status: '409', response: withIdempotencyRetryAfter(errorResponse('409', CHAIN_ERRORS.idempotencyConflict)) },
  PayloadTooLarge: { status: '413', response: errorResponse('413', PAYLOAD_TOO_LARGE) },
  TooManyRequests: { status: '429', response: errorResponse('429', CHAIN_ERRORS.tooManyRequests) },
  TooManyFailedAuthentications: { status: '429', response: errorResponse('429', CHAIN_ERRORS.tooManyFailedAuthentications) },
  TooManyPublicRequests: { status: '429', response: errorResponse('429', CHAIN_ERRORS.tooManyPublicRequests) },
  InternalError: { status: '500', response: errorResponse('500', INTERNAL) },
};

/** Names (and a neutral description) of the other error statuses, for the responses shared by status. */
const STATUS_RESPONSES: Record<string, [name: string, description: string]> = {
  400: ['BadRequest', 'Invalid request (`invalid_request`)'],
  401: ['Unauthorized', 'No valid credential (`unauthorized`)'],
  402: ['PaymentRequired', 'Payment required: the `error` code says why'],
  403: ['Forbidden', 'Refused: the `error` code says why (e.g. `insufficient_scope`, `plan_required`)'],
  404: ['NotFound', 'No such resource (`not_found`)'],
  405: ['MethodNotAllowed', 'The path does not accept this method (`method_not_allowed`)'],
  406: ['NotAcceptable', 'No acceptable representation'],
  409: ['Conflict', 'Conflict with the current state (`conflict`)'],
  410: ['Gone', 'No longer available'],
  413: ['PayloadTooLarge', PAYLOAD_TOO_LARGE],
  415: ['UnsupportedMediaType', 'Unsupported media type'],
  422: ['UnprocessableContent', 'The request was understood but could not be carried out: the `error` code says why'],
  429: ['TooManyRequests', 'A limit is reached: the `error` code says which'],
  500: ['InternalError', INTERNAL],
  502: ['BadGateway', 'An upstream failed: the `error` code says which'],
  503: ['ServiceUnavailable', 'Unavailable for now: retry later'],
  504: ['GatewayTimeout', 'An upstream did not answer in time: the `error` code says which'],
};

/** An error response's headers and body: what a shared response must equal besides its description. */
const shapeOf = (status: string, response: Json) => `${status} ${canonical({ headers: response.headers, content: response.content })}`;

const isApiErrorResponse = (response: Json) =>
  Object.keys(response).every((k) => ['description', 'headers', 'content'].includes(k)) &&
  canonical(response.content) === canonical({ 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } });

/**
 * Replaces every error response of `paths` by a reference to a shared one (`components.responses`)
 * of the same status, headers and body: the shared response of the same words when there is one,
 * else the one of its status with the operation's own words as the reference's `description`
 * (OpenAPI 3.1: it overrides the referenced one's). Returns the shared responses referenced.
 */
function shareResponses(paths: Record<string, Json>): Record<string, Json> {
  const shared: Record<string, { status: string; response: Json }> = { ...SHARED_RESPONSES };
  const exact = new Map<string, string>();
  const byShape = new Map<string, string>();
  for (const [name, { status, response }] of Object.entries(shared)) {
    exact.set(`${shapeOf(status, response)} ${String(response.description)}`, name);
    if (!byShape.has(shapeOf(status, response))) byShape.set(shapeOf(status, response), name);
  }
  const used = new Set<string>();
  const sharedFor = (status: string, response: Json): string | undefined => {
    const shape = shapeOf(status, response);
    const same = exact.get(`${shape} ${String(response.description)}`) ?? byShape.get(shape);
    if (same) return same;
    const known = STATUS_RESPONSES[status];
    if (!known) return undefined;
    const headers = Object.keys((response.headers as Json | undefined) ?? {});
    // Named after the headers that set it apart from the others of its status.
    const prefix =
      (headers.includes('Idempotent-Replayed') ? 'Replayable' : '') +
      (status === '409' && headers.includes('Retry-After') ? 'Retryable' : '') +
      (headers.includes('WWW-Authenticate') ? 'Challenging' : '');
    let name = `${prefix}${known[0]}`;
    for (let n = 2; shared[name]; n++) name = `${prefix}${known[0]}${n}`;
    shared[name] = { status, response: { ...response, description: known[1] } };
    byShape.set(shape, name);
    return name;
  };
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      const responses = (op as Json | undefined)?.responses as Record<string, Json> | undefined;
      if (!responses || typeof responses !== 'object') continue;
      for (const [code, response] of Object.entries(responses)) {
        if (!/^[45]\d\d$/.test(code) || !isApiErrorResponse(response)) continue;
        const name = sharedFor(code, response);
        if (!name) continue;
        used.add(name);
        const ref = `#/components/responses/${name}`;
        responses[code] =
          response.description === shared[name]!.response.description ? { $ref: ref } : { $ref: ref, description: response.description };
      }
    }
  }
  const statusOf = (name: string) => shared[name]!.status;
  return Object.fromEntries(
    [...used].sort((a, b) => statusOf(a).localeCompare(statusOf(b)) || a.localeCompare(b)).map((name) => [name, shared[name]!.response]),
  );
}

/** `execution.completed` -> `ExecutionCompletedData`. */
const dataSchemaName = (kind: string) =>
  `${kind
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Data`;

const WEBHOOK_ENVELOPE_SCHEMA = {
  type: 'object',
  description:
    'The body of every webhook delivery (`POST`, `application/json`). Signed twice: `X-Webhook-Signature` over these exact bytes, and `webhook-signature` (Standard Webhooks) over id, timestamp and these bytes; verify either against the raw body, never re-serialized JSON. The same event (same `id`) may arrive more than once: deduplicate on `id`. Bodies are capped at 64 KB; a large execution output is replaced by a summary with `truncated: true` and `full_result_url`.',
  required: ['id', 'event', 'timestamp', 'data'],
  properties: {
    id: { type: 'string', description: 'Event identifier (`evt_...`): unique per event, repeated on every retry and replay of it' },
    event: {
      type: 'string',
      enum: WEBHOOK_DATA_SCHEMAS.map(([kind]) => kind),
      description: 'Event kind; selects the shape of `data`. The list may grow: a subscription to `*` receives new kinds',
    },
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
    description: 'Unix time (seconds) at which this attempt was sent. Covered by `webhook-signature` (not by `X-Webhook-Signature`).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookStandardSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      "Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`. Key: the base64-decoded part after `whsec_` for `whsec_` secrets (generated ones), else the raw secret bytes; so `new Webhook(secret)` or `new Webhook(secret, { format: 'raw' })` from the `standardwebhooks` libraries verifies it.",
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=$' },
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
    description:
      'The delivery (`dlv_...`) this attempt belongs to, as shown in the subscription history; a replay is a new delivery of the same event id.',
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

/** What a receiver may answer a delivery, shared by every webhook operation (`components.responses`). */
const WEBHOOK_RESPONSES: Record<string, Json> = {
  WebhookDelivered: { description: 'Delivered. The body is not interpreted (its first 1 KB shows in the delivery history).' },
  WebhookAttemptFailed: {
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
    schemas[name] = eventDataJsonSchema(schema) as Json;
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
        // The receiver authenticates the sender by the signature headers (parameters), not by a
        // credential the sender would hold: no security scheme applies.
        security: [],
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
        responses: {
          '2XX': { $ref: '#/components/responses/WebhookDelivered' },
          default: { $ref: '#/components/responses/WebhookAttemptFailed' },
        },
      },
    };
  }
  return { webhooks, schemas };
}

/** Tags, in the order a reader meets them. */
const TAGS = [
  { name: 'auth', description: 'Registering a tenant, and who the calling credential is.' },
  { name: 'keys', description: "The tenant's API keys: create (Pro and above), list, rotate with a grace period, revoke." },
  { name: 'modules', description: 'Modules: list, read, install, publish your own, and execute their actions.' },
  { name: 'catalog', description: 'Search and the directory of every action (exempt from the request limit).' },
  { name: 'executions', description: 'The recorded executions of the tenant, with their outputs.' },
  { name: 'agent', description: 'For agents: several actions in one call (batch, chain) and the whole toolkit at once (arm).' },
  {
    name: 'certification',
    description:
      'Certification runs of modules: start one for your module, read the report and the history. Tiers none < bronze < silver < gold.',
  },
  { name: 'trust', description: 'Trust scores of modules: their weighted components and history, and community feedback.' },
  {
    name: 'workflows',
    description:
      'Durable multi-step workflows: definitions (a DAG of module actions with templates and JSONata), runs with per-step status, retries and cancellation.',
  },
  { name: 'memory', description: 'Per-agent key-value memory with tags, TTL and full-text search.' },
  {
    name: 'webhooks',
    description:
      'Webhook subscriptions (scope `*`, Pro and above), their deliveries, replay; the `webhooks` section documents what receivers get.',
  },
  { name: 'billing', description: 'Usage of the billing cycle, invoices (JSON and PDF) and plan changes. Money is USD decimal strings.' },
  {
    name: 'members',
    description:
      'The people of a tenant: members and their roles (owner, admin, developer, billing, viewer), invitations, role changes, removal and the ownership transfer.',
  },
  {
    name: 'audit',
    description: "The tenant's audit log: who changed what and when, filtered, paginated or exported as CSV (scope `audit:read`).",
  },
  { name: 'protocols', description: 'Agent protocols over JSON-RPC 2.0: MCP (tools and resources) and A2A.' },
  {
    name: 'discovery',
    description: 'Public documents describing the service: health, llms.txt, this OpenAPI document, the A2A agent card.',
  },
  { name: 'admin', description: 'Operator endpoints, authenticated with `x-admin-token`; absent (404) when `ADMIN_TOKEN` is unset.' },
];

/**
 * The API's OpenAPI 3.1 document: every operation but the operator's (`x-admin-token`), which
 * have a document of their own (buildAdminOpenApiDocument), linked from this one.
 */
export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const doc = wholeDocument(baseUrl);
  for (const [path, item] of Object.entries(doc.paths ?? {})) if (isOperatorPath(item as Json)) delete doc.paths![path];
  doc.tags = TAGS.filter((t) => t.name !== 'admin');
  dropUnreferencedComponents(doc as unknown as Json);
  return doc;
}

/**
 * The operator API's OpenAPI 3.1 document (`/api/v1/admin/*`, authenticated with `x-admin-token`):
 * the operations the API's document leaves out, with the components they use.
 */
export function buildAdminOpenApiDocument(baseUrl: string): OpenAPIObject {
  const doc = wholeDocument(baseUrl);
  doc.paths = Object.fromEntries(Object.entries(doc.paths ?? {}).filter(([, item]) => isOperatorPath(item as Json)));
  delete (doc as Partial<OpenAPIObject>).webhooks;
  doc.info = {
    ...doc.info,
    title: `${API_TITLE}: operator API`,
    description:
      "The operator's endpoints of this deployment (`/api/v1/admin/*`): tenants and their plans, invoices, billing closes, disabled webhooks and failed deliveries, certification runs, the platform's audit log. Authenticated with `x-admin-token: <ADMIN_TOKEN>`; every path answers 404 when `ADMIN_TOKEN` is unset. Errors, response headers and pools are those of the API's document (`/api/openapi.json`).",
  };
  doc.externalDocs = { description: "The API's OpenAPI 3.1 document", url: `${baseUrl}/api/openapi.json` };
  doc.tags = TAGS.filter((t) => t.name === 'admin');
  dropUnreferencedComponents(doc as unknown as Json);
  return doc;
}

const ADMIN_SECURITY = [{ adminToken: [] }];

/** A path item whose operations the operator token opens (adminProcedure). */
const isOperatorPath = (item: Json): boolean =>
  Object.values(item).some(
    (op) => Array.isArray((op as Json | undefined)?.security) && canonical((op as Json).security) === canonical(ADMIN_SECURITY),
  );

/**
 * The OpenAPI 3.1 document of every operation, generated from the routers (never hand-written),
 * then completed with what the generator cannot express: success statuses (201/202, and the other
 * statuses some operations answer), every error status of the procedure chain with our error
 * schema, the response headers, the security of public and admin operations, tags, the JSON-RPC
 * and discovery endpoints the handler serves itself, and the `webhooks` section (the envelopes
 * POSTed to receivers, from the zod schemas of src/events). `baseUrl` is PUBLIC_BASE_URL.
 */
function wholeDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: API_TITLE,
    version: VERSION,
    openApiVersion: '3.1.0',
    description:
      "Multi-tenant API through which software agents find, install and run modules. Authenticate with `x-api-key: <API_KEY>` or `Authorization: Bearer <token>`. The operator's endpoints (`/api/v1/admin/*`, `x-admin-token`) have a document of their own, `/api/openapi-admin.json`, and so do sign-in and OAuth (`externalDocs`). Errors share one format (`ApiError`); a path that exists answers other methods with 405 and `Allow`. Every response, success or error, carries `X-Request-Id` and the rate-limit headers of the caller's pool (`X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`, `RateLimit`, `RateLimit-Policy`): with a valid credential, its tenant's pool plus `X-Execution-Remaining`; without one, the client IP's public pool (600 requests per minute) and no `X-Execution-Remaining`. They are declared once, in `components.headers`; error responses list them, success responses only the headers particular to them (such as `Idempotent-Replayed`).",
    baseUrl,
    securitySchemes: {
      ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key (`amp_...`)' },
      BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OAuth 2.1 access token from the identity provider' },
      adminToken: {
        type: 'apiKey',
        in: 'header',
        name: 'x-admin-token',
        description: 'The operator token (`ADMIN_TOKEN`), for the admin endpoints only',
      },
    },
  }) as OpenAPIObject & { components: { schemas?: Json } };

  doc.info = {
    ...doc.info,
    contact: { name: 'Agent Module Platform operator', url: baseUrl },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  };
  doc.servers = [{ url: baseUrl, description: 'This deployment (PUBLIC_BASE_URL)' }];
  // Sign-in (/auth/v1) and OAuth (/oauth) have a document of their own.
  doc.externalDocs = {
    description: 'The identity provider and OAuth authorization server (OpenAPI 3.1)',
    url: `${baseUrl}${AUTH_OPENAPI_PATH}`,
  };
  doc.tags = TAGS;

  for (const route of new RouteTable(appRouter).all()) {
    const op = (doc.paths?.[route.template] as Json | undefined)?.[route.method.toLowerCase()] as Json | undefined;
    if (!op) continue;
    const responses = op.responses as Record<string, Json>;
    const success = responses['200']!;
    const status = String(route.meta.successStatus ?? 200);
    const rebuilt: Record<string, Json> = { [status]: withHeaders(status, success) };
    // File answers (src/server/http/rest.ts): the bytes with their media type instead of JSON.
    if (route.meta.file) rebuilt[status] = { ...rebuilt[status], content: fileContent(route) };
    for (const other of Object.values(route.formats ?? {})) {
      if (!other.meta.file) continue;
      const json = rebuilt[status]!.content as Json;
      rebuilt[status] = { ...rebuilt[status], content: { ...json, ...fileContent(other) } };
    }
    for (const [code, description] of Object.entries(route.meta.alsoAnswers ?? {})) {
      rebuilt[code] = withHeaders(code, { ...success, description });
    }
    for (const [code, description] of Object.entries(errorStatuses(route))) {
      rebuilt[code] ??= errorResponse(code, description);
    }
    // docs/versioning.md: a deprecated operation says so, with the headers its answers carry.
    if (route.meta.deprecation) {
      const { since, sunset } = route.meta.deprecation;
      op.deprecated = true;
      op.description =
        `${String(op.description ?? '')}\n\n**Deprecated** since ${since}${sunset ? `; it stops answering on ${sunset}` : ''}. Every answer carries \`Deprecation\`${sunset ? ', `Sunset`' : ''} and \`Link\` headers (docs/versioning.md).`.trim();
    }
    if (takesIdempotencyKey(route)) {
      // Replayed: the success, and the failures kept with it (src/idempotency/keys.ts KEPT_FAILURES).
      for (const code of [status, '422', '502', '504']) {
        if (rebuilt[code])
          rebuilt[code] = {
            ...rebuilt[code],
            headers: { ...(rebuilt[code]!.headers as Json), 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
          };
      }
      if (rebuilt['409']) rebuilt['409'] = withIdempotencyRetryAfter(rebuilt['409']);
      op.parameters = [...((op.parameters as unknown[] | undefined) ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
    }
    op.responses = Object.fromEntries(Object.entries(rebuilt).sort(([a], [b]) => a.localeCompare(b)));
    // trpc-to-openapi lists every scheme on every protected operation; each operation lists the
    // credentials it actually takes (the operator token opens the admin paths only).
    if (route.meta.caller === 'operator') op.security = ADMIN_SECURITY;
    else if (route.meta.caller === 'tenant') op.security = API_SECURITY;
    else op.security = route.meta.bearerOnly ? [{ BearerAuth: [] }] : [];
  }

  Object.assign(doc.paths ?? {}, mcpPaths(), a2aPaths(), discoveryPaths(), eventStreamPaths());
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  const webhooks = webhooksSection();
  doc.components.schemas = { ...schemas, ApiError: ERROR_SCHEMA, ...JSON_RPC_SCHEMAS, ...webhooks.schemas } as never;
  doc.components.responses = { ...shareResponses(doc.paths as Record<string, Json>), ...WEBHOOK_RESPONSES } as never;
  doc.components.parameters = { ...doc.components.parameters, ...WEBHOOK_HEADERS, ...IDEMPOTENCY_PARAMETER } as never;
  doc.components.headers = HEADERS as never;
  doc.webhooks = webhooks.webhooks as never;
  dropSafeIntegerBounds(doc);
  openAnswerSchemas(doc as unknown as Json);
  compactDocument(doc as unknown as Json, Object.keys(webhooks.schemas));
  return doc;
}

/**
 * Leaves the objects of answers open (src/contract/output-schema.ts): the schemas of every
 * response, and the component schemas only answers use. A component a request also used would
 * stay closed, as the API refuses unknown members there; none is shared (a workflow's flow controls
 * have a component for each side: src/workflows/schema.ts).
 */
function openAnswerSchemas(doc: Json): void {
  const operations = operationsOf(doc.paths as Record<string, Json>);
  const components = doc.components as Record<string, Record<string, Json>>;
  const answers = [operations.map((op) => op.responses), components.responses];
  const accepted = componentsReachedFrom(
    doc,
    operations.map((op) => [op.requestBody, op.parameters]),
  );
  openObjects(answers);
  for (const key of componentsReachedFrom(doc, answers)) {
    const [kind, name] = key.split('/') as [string, string];
    if (kind === 'schemas' && !accepted.has(key)) openObjects(components.schemas?.[name]);
  }
}
