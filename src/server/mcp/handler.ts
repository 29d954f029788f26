/**
 * POST /api/mcp: MCP over Streamable HTTP, stateless, JSON responses (docs/mcp.md).
 *
 * Order: Origin check (403, DNS rebinding) -> method (405) -> authenticate (401; counts the
 * client IP's public pool) -> read the body (408 when it has not arrived within BODY_TIMEOUT_MS)
 * -> count one request per JSON-RPC request in it against the tenant's pool (429 before
 * dispatch) -> dispatch through the SDK's transport, with scopes checked per method.
 * Authentication and the count are src/server/admission.ts's. HTTP-level 401/405/429 use the
 * REST error format; everything the protocol answers is JSON-RPC.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors';
import { TOO_DEEP_MESSAGE } from '../../lib/json-depth';
import { readJsonBody } from '../http/request';
import { sendError, sendJson } from '../http/respond';
import type { Context } from '../context';
import { authenticateCaller, countTenant, header as headerOf, refreshExecutionsLeft, reportedPool } from '../admission';
import { originAllowed } from './origin';
import { parseConnectionScope } from './catalog';
import { connectWithScopes, createMcpServer, scopeFor } from './server';
import { authenticateOAuthAccessToken, isOAuthAccessToken, mcpChallenge } from '../oauth/resource';
import { holdsScope } from '../../contract/scopes';
import type { Principal } from '../../auth/principal';
import { insufficientScope } from '../../lib/errors';

type HeaderMap = Record<string, string>;

const header = (req: IncomingMessage, name: string) => headerOf(req.headers, name);

const jsonRpcError = (code: number, message: string, data?: Record<string, unknown>) => ({
  jsonrpc: '2.0' as const,
  id: null,
  error: { code, message, ...(data ? { data } : {}) },
});

/**
 * How many units of the tenant's pool a body costs: one per JSON-RPC request (a message with
 * `method` and `id`), so a batch of n requests costs n; notifications and responses are free,
 * but every HTTP request costs at least one, whatever its outcome.
 */
export function requestCost(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH_SIZE) return 1; // refused by the transport, nothing dispatched
  const calls = messages.filter(
    (m) => typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string' && 'id' in m,
  );
  return Math.max(1, calls.length);
}

export async function handleMcp(req: IncomingMessage, res: ServerResponse, ctx: Context, base: HeaderMap): Promise<void> {
  const { svc, requestId } = ctx;
  /** The caller's pool (its tenant's with a valid credential, else the client IP's), reported without consuming it. */
  const publicPool = async () => ({ ...base, ...(await reportedPool(ctx)) });

  if (!originAllowed(header(req, 'origin'), header(req, 'host'), svc.config.publicBaseUrl)) {
    return sendJson(
      res,
      403,
      jsonRpcError(-32000, `Forbidden: requests from the origin '${header(req, 'origin')}' are not accepted (DNS rebinding protection).`, {
        request_id: requestId,
      }),
      await publicPool(),
    );
  }
  if (req.method !== 'POST') {
    // Stateless: no standalone SSE stream (GET) and no session to delete (DELETE).
    const err = new AppError('method_not_allowed', 'Use POST on /api/mcp: the server is stateless and offers no SSE stream or session.', {
      allowed_methods: ['POST'],
    });
    return sendError(res, err, requestId, { ...(await publicPool()), Allow: 'POST, OPTIONS' }, svc.config.publicBaseUrl);
  }

  // OAuth access tokens of the built-in authorization server (MCP authorization); API keys and
  // identity-provider bearer tokens as on every surface. Every 401 names the resource metadata.
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
  const viaOAuth = !header(req, 'x-api-key')?.trim() && bearer !== undefined && isOAuthAccessToken(svc, bearer);
  let principal: Principal;
  try {
    principal = await authenticateCaller(
      ctx,
      viaOAuth ? () => authenticateOAuthAccessToken(svc, 'mcp', bearer!, header(req, 'x-tenant-id')) : undefined,
    );
  } catch (err) {
    // An OAuth token's checks raise nothing but its 401: anything else is an internal error.
    if (!(err instanceof AppError) || (viaOAuth && err.code !== 'unauthorized' && err.code !== 'rate_limit_exceeded')) throw err;
    return sendError(
      res,
      err,
      requestId,
      { ...base, ...ctx.res.headers, ...(err.code === 'unauthorized' ? unauthorizedChallenge(ctx, viaOAuth, err) : {}) },
      svc.config.publicBaseUrl,
    );
  }
  if (viaOAuth) ctx.principal = principal;

  const body = await readJsonBody(req);
  const cost = body.kind === 'json' ? requestCost(body.value) : 1;
  try {
    // A JSON-RPC batch of n calls is n requests, admitted all together or not at all.
    await countTenant(ctx, principal, false, cost);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'rate_limit_exceeded') throw err;
    return sendError(res, err, requestId, { ...base, ...ctx.res.headers }, svc.config.publicBaseUrl);
  }
  const headers: HeaderMap = { ...base, ...ctx.res.headers };
  if (body.kind === 'too_large') {
    return sendJson(
      res,
      413,
      jsonRpcError(-32000, 'Payload Too Large: the request body must not exceed 1 MiB.', { request_id: requestId }),
      headers,
    );
  }
  if (body.kind === 'invalid' && body.timedOut) {
    // The client sent less than it declared (or never ended a chunked body): answered, and the connection closed.
    return sendJson(res, 408, jsonRpcError(-32000, `Request Timeout: ${body.message}`, { request_id: requestId }), {
      ...headers,
      Connection: 'close',
    });
  }
  if (body.kind !== 'json') {
    // Not JSON, or JSON nested deeper than MAX_JSON_DEPTH: the reader's reason, never an internal one.
    const reason =
      body.kind === 'invalid' && body.message === TOO_DEEP_MESSAGE ? `Parse error: ${TOO_DEEP_MESSAGE}` : 'Parse error: Invalid JSON';
    return sendJson(res, 400, jsonRpcError(ErrorCode.ParseError, reason, { request_id: requestId }), headers);
  }

  const malformed = invalidMessage(body.value);
  if (malformed) {
    return sendJson(res, 400, jsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: ${malformed}`, { request_id: requestId }), headers);
  }

  // An OAuth token lacking a method's scope is refused at the HTTP level (MCP authorization's
  // step-up: 403 with the scope to ask for); API keys keep the JSON-RPC refusal.
  const needed = viaOAuth ? missingMethodScope(body.value, principal.scopes) : undefined;
  if (needed) {
    const err = insufficientScope(needed);
    const challenge = mcpChallenge(svc, { error: 'insufficient_scope', scope: needed, description: err.message, host: req.headers.host });
    return sendError(res, err, requestId, { ...headers, 'WWW-Authenticate': challenge }, svc.config.publicBaseUrl);
  }

  const scope = parseConnectionScope(new URL(req.url ?? '/api/mcp', 'http://localhost').searchParams);
  const server = createMcpServer(svc, principal, requestId, scope);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  transport.onerror = (err) => svc.logger.debug({ err, requestId }, 'mcp transport error');
  try {
    await connectWithScopes(server, transport, principal, requestId, svc.config.publicBaseUrl);
    const response = await transport.handleRequest(toWebRequest(req), { parsedBody: body.value });
    const text = response.status === 202 || response.body === null ? '' : await response.text();
    await refreshExecutionsLeft(ctx, principal, headers);
    const contentType = response.headers.get('content-type');
    res.writeHead(response.status, {
      ...headers,
      ...(contentType ? { 'Content-Type': contentType } : {}),
      ...(response.headers.get('allow') ? { Allow: response.headers.get('allow')! } : {}),
      'Content-Length': Buffer.byteLength(text),
    });
    res.end(text);
  } finally {
    await server.close().catch(() => {});
  }
}

/**
 * Why a parsed body is not a JSON-RPC 2.0 message (or a non-empty batch of them) as MCP takes
 * them: the SDK's transport would answer -32700 Parse error for JSON that parsed fine.
 */
function invalidMessage(body: unknown): string | undefined {
  if (Array.isArray(body)) {
    if (body.length === 0) return 'an empty batch.';
    const ids = new Set<string | number>();
    for (const message of body) {
      const problem = invalidMessage(message);
      if (problem) return problem;
      // The transport pairs answers with requests by id: a repeated id would run twice (and, for
      // tools/call, bill twice) but be answered once.
      const m = message as { method?: unknown; id?: string | number };
      if (m.method === undefined || m.id === undefined) continue;
      if (ids.has(m.id))
        return `the request id ${JSON.stringify(m.id)} appears more than once in the batch; each request needs its own id.`;
      ids.add(m.id);
    }
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return 'the body must be a JSON-RPC 2.0 message object.';
  const m = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  if (m.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0".';
  if ('id' in m && typeof m.id !== 'string' && !Number.isSafeInteger(m.id)) return '"id" must be a string or an integer.';
  if ('method' in m && typeof m.method !== 'string') return '"method" must be a string.';
  if (!('method' in m) && !('result' in m) && !('error' in m))
    return 'a message needs a "method" (or is a response with "result" or "error").';
  if ('params' in m && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) return '"params" must be an object.';
  // Whatever else the SDK's transport would refuse as a "parse error" (members JSON-RPC does not
  // define, a malformed "error" object, ...): it parsed, so it is an Invalid Request.
  if (!JSONRPCMessageSchema.safeParse(body).success) {
    const extra = Object.keys(m).filter((k) => !MESSAGE_MEMBERS.has(k));
    return extra.length > 0
      ? `unknown member ${JSON.stringify(extra[0])}; a JSON-RPC 2.0 message has only ${[...MESSAGE_MEMBERS].join(', ')}.`
      : 'not a valid JSON-RPC 2.0 request, notification or response.';
  }
  return undefined;
}

const MESSAGE_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** The scope a single JSON-RPC request needs and `held` lacks (batches keep per-message JSON-RPC refusals). */
function missingMethodScope(body: unknown, held: string[]): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const method = (body as { method?: unknown }).method;
  if (typeof method !== 'string' || !('id' in body)) return undefined;
  const scope = scopeFor(method);
  return scope && !holdsScope(held, scope) ? scope : undefined;
}

/** The challenge of a 401 at /api/mcp: it names the resource metadata, and why a credential that was sent is refused. */
function unauthorizedChallenge(ctx: Context, viaOAuth: boolean, err: AppError): HeaderMap {
  const refused = viaOAuth
    ? { error: 'invalid_token' as const, description: err.message }
    : headerOf(ctx.headers, 'authorization')
      ? { error: 'invalid_token' as const }
      : {};
  return { 'WWW-Authenticate': mcpChallenge(ctx.svc, { ...refused, host: headerOf(ctx.headers, 'host') }) };
}

/**
 * The Web Request the SDK's transport reads. The body is already parsed (passed as
 * `parsedBody`); Accept and Content-Type are normalised, because this server always answers
 * JSON (`enableJsonResponse`) and reads any JSON body — clients that send only
 * `Accept: application/json`, or no Content-Type, are served instead of refused with 406/415.
 */
function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' });
  for (const name of ['mcp-protocol-version', 'mcp-session-id', 'last-event-id']) {
    const value = header(req, name);
    if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(req.url ?? '/api/mcp', 'http://localhost'), { method: 'POST', headers });
}
