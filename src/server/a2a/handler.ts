/**
 * POST /api/a2a: the A2A JSON-RPC 2.0 binding (docs/a2a.md), through @a2a-js/sdk's
 * JSON-RPC transport handlers adapted to node:http: A2A 1.0 method names (`SendMessage`,
 * `GetTask`, ...) go to JsonRpcTransportHandler, everything else (0.3 names such as
 * `message/send`, `tasks/get`; unknown methods) to the SDK's 0.3 compat handler, as the SDK's own
 * Express adapter routes them (A2A §3.6.2: default to 0.3).
 *
 * Order, as on /api/mcp: method (405) -> authenticate (401; counts the client IP's public pool)
 * -> one request from the tenant's pool (429 before dispatch; A2A has no batches, so a body is
 * one call) -> read the body (413, 400) -> one request object with a usable id (-32600: no
 * notifications) -> scope of the method (403: `modules:execute` to send or cancel, `modules:read`
 * for the rest) -> known method (-32601) -> params (-32602) -> the A2A version check -> dispatch.
 * HTTP-level 401/403/405/429 use the REST error format; everything the protocol answers is
 * JSON-RPC (HTTP 200).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_VERSION_HEADER, Role, type AgentCard } from '@a2a-js/sdk';
import { isV1JsonRpcMethod, legacyJsonRpcToV1Method } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { ERROR_INFO_TYPE, toJsonRpcError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { errorDocUrl } from '../../contract/error-docs';
import type { Scope } from '../../contract/scopes';
import { a2aProtocolCard } from './agent-card';
import type { Services } from '../../services';
import { AppError } from '../errors';
import { readJsonBody } from '../http/request';
import { sendError, sendJson } from '../http/respond';
import { assertAllowed, authenticateCaller, countTenant, header as headerOf, refreshExecutionsLeft, reportedPool } from '../admission';
import type { Principal } from '../../auth/principal';
import type { Context } from '../context';
import { createRequestHandler, PlatformUser } from './agent';

type HeaderMap = Record<string, string>;
type JsonRpcId = string | number | null;
type JsonRpcError = { code: number; message: string; data?: unknown };

const header = (req: IncomingMessage, name: string) => headerOf(req.headers, name.toLowerCase());

/** JSON-RPC 2.0 codes used outside the SDK's own mapping. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** Implementation-defined server error (JSON-RPC reserves -32000..-32099; A2A uses -32001..-32009). */
const SERVER_ERROR = -32000;

const DOMAIN = 'agent-module-platform';

interface A2aTransports {
  card: AgentCard;
  v1: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

const transports = new WeakMap<Services, A2aTransports>();

/** One SDK request handler per Services (it keeps no state between requests). */
function transportsFor(svc: Services): A2aTransports {
  let t = transports.get(svc);
  if (!t) {
    const card = a2aProtocolCard(svc.config.publicBaseUrl);
    const handler = createRequestHandler(svc, card);
    t = { card, v1: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) };
    transports.set(svc, t);
  }
  return t;
}

const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);
/** Methods that change something: sending runs an action or a workflow (or decides its approval), canceling cancels a run. */
const EXECUTE_METHODS = new Set([...SEND_METHODS, 'CancelTask']);

/** Sending a message and canceling a task need `modules:execute` (as REST's run and cancel); every other method reads. */
export function scopeFor(method: unknown): Scope {
  let name = typeof method === 'string' ? method : '';
  if (name !== '' && !isV1JsonRpcMethod(name)) {
    try {
      name = legacyJsonRpcToV1Method(name);
    } catch {
      /* unknown method: answered as such by the transport, needs no more than read */
    }
  }
  return EXECUTE_METHODS.has(name) ? 'modules:execute' : 'modules:read';
}

const jsonRpcError = (id: JsonRpcId, error: JsonRpcError) => ({ jsonrpc: '2.0' as const, id, error });

/**
 * A call refused before any execution existed, as a JSON-RPC error: an unknown module/action or
 * malformed call is -32602 (invalid params); quota, concurrency and plan limits are -32000 with
 * the platform's error code in the data (an A2A 1.0 ErrorInfo; the 0.3 data is a plain object),
 * with `doc_url`, the code's section of PUBLIC_BASE_URL's /docs/errors, beside `request_id`.
 */
function refusalError(err: AppError, requestId: string, legacy: boolean, publicBaseUrl: string): JsonRpcError {
  const internal = err.code === 'internal_error' || err.code === 'unavailable';
  const code = err.code === 'not_found' || err.code === 'invalid_request' ? INVALID_PARAMS : internal ? INTERNAL_ERROR : SERVER_ERROR;
  const message = internal ? 'An internal error occurred.' : err.message;
  const retryAfter = err.headers['Retry-After'];
  // The code's own plain fields (a policy refusal's `rule` and `reason`, a cap's `limit`), as in the REST body.
  const fields = internal ? {} : plainDetails(err.details);
  const info: Record<string, string> = {
    ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, String(value)])),
    error: err.code,
    request_id: requestId,
    doc_url: errorDocUrl(publicBaseUrl, err.code),
    ...(retryAfter ? { retry_after: retryAfter } : {}),
  };
  // 0.3's data is a plain object: `retry_after` in seconds as a number, as in the REST body.
  // (1.0's ErrorInfo.metadata is a map of strings, so it stays a string there.)
  if (legacy) return { code, message, data: { ...info, ...fields, ...(retryAfter ? { retry_after: Number(retryAfter) } : {}), message } };
  return { code, message, data: [{ '@type': ERROR_INFO_TYPE, reason: err.code.toUpperCase(), domain: DOMAIN, metadata: info }] };
}

function plainDetails(details: Record<string, unknown>): Record<string, string | number | boolean> {
  const plain: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(details))
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') plain[name] = value;
  return plain;
}

export async function handleA2a(req: IncomingMessage, res: ServerResponse, ctx: Context, base: HeaderMap): Promise<void> {
  const { svc, requestId } = ctx;

  if (req.method !== 'POST') {
    const err = new AppError('method_not_allowed', 'Use POST on /api/a2a: it is the A2A JSON-RPC 2.0 endpoint (no streaming).', {
      allowed_methods: ['POST'],
    });
    // The caller's pool (the tenant's with a valid credential), reported without consuming it.
    return sendError(res, err, requestId, { ...base, ...(await reportedPool(ctx)), Allow: 'POST, OPTIONS' }, svc.config.publicBaseUrl);
  }

  let principal: Principal;
  try {
    principal = await authenticateCaller(ctx);
    await countTenant(ctx, principal, false);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return sendError(res, err, requestId, { ...base, ...ctx.res.headers }, svc.config.publicBaseUrl);
  }
  const headers: HeaderMap = { ...base, ...ctx.res.headers };

  const body = await readJsonBody(req);
  if (body.kind !== 'json') {
    const [status, error]: [number, JsonRpcError] =
      body.kind === 'too_large'
        ? [413, { code: INVALID_REQUEST, message: 'Payload Too Large: the request body must not exceed 1 MiB.' }]
        : body.kind === 'empty'
          ? [400, { code: INVALID_REQUEST, message: 'Invalid Request: the body must be a JSON-RPC 2.0 request.' }]
          : body.tooDeep
            ? // Valid JSON, so not a parse error: the same 400 and reason as the REST API.
              [400, { code: INVALID_REQUEST, message: `Invalid Request: ${body.message}` }]
            : [400, { code: PARSE_ERROR, message: 'Parse error: Invalid JSON' }];
    return sendJson(res, status, jsonRpcError(null, { ...error, data: { request_id: requestId } }), headers);
  }

  if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) {
    // A2A's JSON-RPC binding has no batches: one request object per HTTP request.
    const error = {
      code: INVALID_REQUEST,
      message: 'Invalid Request: the body must be one JSON-RPC 2.0 request object (no batches).',
      data: { request_id: requestId },
    };
    return sendJson(res, 200, jsonRpcError(null, error), headers);
  }
  const rpc = body.value as { method?: unknown; id?: unknown; params?: unknown };
  const idProblem = requestIdProblem(rpc);
  if (idProblem) {
    // The id cannot be used (absent, or not a string, number or null): answered with id null, and
    // nothing is dispatched, whatever the method.
    return sendJson(
      res,
      200,
      jsonRpcError(null, { code: INVALID_REQUEST, message: `Invalid Request: ${idProblem}`, data: { request_id: requestId } }),
      headers,
    );
  }
  const method = rpc.method;
  const id = rpc.id as JsonRpcId;
  const scope = scopeFor(method);
  try {
    assertAllowed(principal, scope);
  } catch (err) {
    svc.metrics.refused(err);
    return sendError(res, err as AppError, requestId, headers, svc.config.publicBaseUrl);
  }
  if (!knownMethod(method)) {
    const error =
      typeof method === 'string'
        ? { code: METHOD_NOT_FOUND, message: `Method not found: ${method.slice(0, 100)}` }
        : { code: INVALID_REQUEST, message: 'Invalid Request: "method" must be a string.' };
    return sendJson(res, 200, jsonRpcError(id, { ...error, data: { request_id: requestId } }), headers);
  }
  const legacy = !isV1JsonRpcMethod(method);
  const paramsProblem =
    idParamProblem(rpc.params) ?? methodParamsProblem(legacy ? legacyJsonRpcToV1Method(method) : method, rpc.params, legacy);
  if (paramsProblem) {
    return sendJson(
      res,
      200,
      jsonRpcError(id, { code: INVALID_PARAMS, message: `Invalid params: ${paramsProblem}`, data: { request_id: requestId } }),
      headers,
    );
  }

  const t = transportsFor(svc);
  const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : toJsonRpcError;
  const user = new PlatformUser(principal, requestId);
  const context = new ServerCallContext({ user, requestedVersion: header(req, A2A_VERSION_HEADER) || undefined });

  let response: unknown;
  try {
    validateVersion(context.requestedVersion, t.card, 'JSONRPC');
    const handled = await (legacy ? t.legacy : t.v1).handle(rpc, context);
    if (isAsyncIterable(handled)) {
      // Streaming is not offered (the card says so); the SDK refuses it before returning a stream,
      // so this is a backstop that never reads the stream.
      await handled[Symbol.asyncIterator]().return?.(undefined);
      response = jsonRpcError(id, { code: -32004, message: 'Streaming is not supported: use SendMessage (message/send).' });
    } else {
      response = handled;
    }
  } catch (err) {
    response = jsonRpcError(id, mapError(err) as JsonRpcError);
  }

  if (user.refusal) {
    Object.assign(headers, user.refusal.headers);
    response = jsonRpcError(id, refusalError(user.refusal, requestId, legacy, svc.config.publicBaseUrl));
  } else {
    response = withoutInternals(response, requestId, legacy, svc);
  }
  await refreshExecutionsLeft(ctx, principal, headers);
  sendJson(res, 200, response, headers);
}

/** An A2A 1.0 method, or a 0.3 one the SDK maps to one (the 0.3 handler answered others -32602). */
function knownMethod(method: unknown): method is string {
  if (typeof method !== 'string') return false;
  if (isV1JsonRpcMethod(method)) return true;
  try {
    legacyJsonRpcToV1Method(method);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a request object's `id` cannot be used, if it cannot. JSON-RPC 2.0 §4.1: a request without
 * `id` is a notification, which the server must not answer. Every A2A method is a request (each
 * has a result the client needs), so a notification here is a client mistake, and executing it
 * would run, and bill, an action whose result nobody can receive: it is refused as an invalid
 * request (id null, HTTP 200) and nothing runs. An id that is not a string, a number or null
 * (§4) is refused the same way, and never echoed.
 */
function requestIdProblem(rpc: { id?: unknown }): string | undefined {
  if (!('id' in rpc)) return '"id" is required: A2A methods are requests, and notifications (no "id") are not accepted (nothing was run).';
  const { id } = rpc;
  if (id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return undefined;
  return '"id" must be a string, a number or null.';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The largest `historyLength` (an int32 in A2A's protobuf definition). */
const MAX_INT32 = 2_147_483_647;

/**
 * `historyLength` as A2A defines it: an optional int32, at least 0 (unset = no limit, 0 = no
 * messages). A JSON integer; on the 1.0 wire (ProtoJSON) also a decimal string, as ProtoJSON
 * writes integers. null is unset.
 */
function historyLengthProblem(value: unknown, path: string, legacy: boolean): string | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'number' ? value : !legacy && typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= MAX_INT32 ? undefined : `${path} must be an integer from 0 to ${MAX_INT32}.`;
}

/**
 * Checks the A2A specification makes of the params that the SDK lets through (answered -32602):
 * - a message sent by the client is the user's: `role` must be `user` (0.3) / `ROLE_USER` (1.0);
 *   an `agent` message is not the client's to send, and would run an action all the same.
 * - `historyLength` (SendMessage's `configuration`, GetTask's and ListTasks' params).
 */
function methodParamsProblem(v1Method: string, params: unknown, legacy: boolean): string | undefined {
  if (!isObject(params)) return undefined;
  const history = (obj: Record<string, unknown>, path: string) =>
    historyLengthProblem(obj.historyLength, `${path}historyLength`, legacy) ??
    (legacy ? undefined : historyLengthProblem(obj.history_length, `${path}history_length`, legacy));
  if (SEND_METHODS.has(v1Method)) {
    const message = params.message;
    if (isObject(message)) {
      const role = message.role;
      const user = legacy ? role === 'user' : role === 'ROLE_USER' || role === Role.ROLE_USER;
      if (!user)
        return `params.message.role must be ${legacy ? '"user"' : '"ROLE_USER"'}: the client sends the user's messages (got ${JSON.stringify(role ?? null)?.slice(0, 40)}).`;
    }
    const configuration = params.configuration;
    if (configuration !== undefined && configuration !== null && !isObject(configuration)) return 'params.configuration must be an object.';
    return isObject(configuration) ? history(configuration, 'params.configuration.') : undefined;
  }
  return history(params, 'params.');
}

/** A task id (`params.id`, as tasks/get, tasks/cancel and GetTask take it) that is not a string: the SDK would fail on it internally. */
function idParamProblem(params: unknown): string | undefined {
  if (params === undefined) return undefined;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'params must be an object.';
  const taskId = (params as { id?: unknown }).id;
  return taskId === undefined || typeof taskId === 'string' ? undefined : 'params.id must be a string (a task id).';
}

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function';
}

/**
 * An internal error's message can carry an exception's text (the SDK passes it through):
 * logged, and answered with a generic message and the request id instead.
 */
function withoutInternals(response: unknown, requestId: string, legacy: boolean, svc: Services): unknown {
  const r = response as { jsonrpc: string; id: JsonRpcId; error?: JsonRpcError };
  if (r?.error?.code !== INTERNAL_ERROR) return response;
  svc.logger.error({ requestId, error: r.error }, 'a2a internal error');
  return jsonRpcError(r.id ?? null, refusalError(new AppError('internal_error'), requestId, legacy, svc.config.publicBaseUrl));
}
