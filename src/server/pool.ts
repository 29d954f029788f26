/**
 * Which pool a response reports (DESIGN.md §6 "Headers"): a request with a valid credential
 * reports its tenant's pool and executions left on every status; one without (or with an
 * invalid one) reports the client IP's public pool and no X-Execution-Remaining.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { authenticate } from '../auth/authenticate';
import type { Principal } from '../auth/principal';
import type { LimitResult } from '../metering/limiter';
import { consumePublicRequest, consumeRequest, rateLimitHeaders, tenantPoolHeaders } from '../metering/requests';
import { executionsRemaining } from '../metering/usage';
import { AppError } from './errors';
import { sendError } from './http/respond';
import type { Context } from './context';

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Whether the request carries a credential at all (x-api-key or Authorization). */
export function hasCredential(headers: IncomingHttpHeaders): boolean {
  return Boolean(header(headers, 'x-api-key')?.trim() || header(headers, 'authorization'));
}

/**
 * The principal of the request's credential, or undefined when there is none or it is not valid
 * (no 401 here: callers that require one authenticate themselves). Through the key cache.
 */
export async function optionalPrincipal(ctx: Context): Promise<Principal | undefined> {
  if (ctx.principal) return ctx.principal;
  if (!hasCredential(ctx.headers)) return undefined;
  try {
    ctx.principal = await authenticate(ctx.svc, { apiKey: header(ctx.headers, 'x-api-key'), authorization: header(ctx.headers, 'authorization') });
    return ctx.principal;
  } catch {
    // Invalid, expired, revoked or unverifiable (database down): the public pool is reported.
    return undefined;
  }
}

/**
 * The headers of a response that no procedure answers (OPTIONS, discovery documents, unknown
 * routes, 405, protocol refusals): the caller's pool, reported without consuming it.
 */
export async function reportedPool(ctx: Context): Promise<Record<string, string>> {
  const principal = await optionalPrincipal(ctx);
  if (!principal) return rateLimitHeaders(await consumePublicRequest(ctx.svc, ctx.ip, true));
  const [pool, executions] = await Promise.all([
    consumeRequest(ctx.svc, principal, true),
    executionsRemaining(ctx.svc.db, principal, ctx.svc.usage).catch(() => undefined),
  ]);
  ctx.res.tenantId = principal.tenantId;
  return tenantPoolHeaders(pool, executions);
}

/** Runs a pool count; a 429 becomes a value (with the pool's headers) instead of an exception. */
export async function countOrRefuse(count: () => Promise<LimitResult>): Promise<{ headers: Record<string, string>; error?: AppError }> {
  try {
    return { headers: rateLimitHeaders(await count()) };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'rate_limit_exceeded') throw err;
    return { headers: err.headers, error: err };
  }
}

/**
 * The caller of a JSON-RPC endpoint (MCP, A2A), or undefined once its refusal is sent: a failed
 * authentication answers 401 in the REST error format and counts against the client IP's public
 * pool, as on REST (429 once that is spent).
 */
export async function authenticateJsonRpcCaller(
  res: ServerResponse,
  ctx: Context,
  base: Record<string, string>,
  /** Extra headers of the 401 only (MCP's `WWW-Authenticate` challenge). */
  unauthorizedHeaders: Record<string, string> = {},
): Promise<Principal | undefined> {
  try {
    const principal = await authenticate(ctx.svc, { apiKey: header(ctx.headers, 'x-api-key'), authorization: header(ctx.headers, 'authorization') });
    ctx.res.tenantId = principal.tenantId; // for the access log
    return principal;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code !== 'unauthorized') {
      sendError(res, err, ctx.requestId, base);
      return undefined;
    }
    const counted = await countOrRefuse(() => consumePublicRequest(ctx.svc, ctx.ip, false));
    sendError(res, counted.error ?? err, ctx.requestId, { ...base, ...counted.headers, ...(counted.error ? {} : unauthorizedHeaders) });
    return undefined;
  }
}
