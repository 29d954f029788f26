import { principalTerms, type Principal } from '../auth/principal';
import { VERSION_KEY as AUTH_VERSION_KEY } from '../keys/cache';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import type { LimitResult } from './limiter';
import type { SlotClaim } from './slots';

export const REQUEST_WINDOW_MS = 60_000;
/** Requests per minute per client IP for unauthenticated calls. */
export const PUBLIC_REQUESTS_PER_MINUTE = 600;

/** The tenant's effective request limit: its override, else its plan's (src/tenants/plans.ts). */
export function requestLimitOf(principal: Principal): number {
  return principalTerms(principal).requestsPerMinute;
}

/**
 * Counts `cost` requests (one per HTTP call; n for a JSON-RPC batch of n) against the tenant's
 * pool (all its keys and tokens share it). Exempt endpoints only read the pool. Throws 429
 * `rate_limit_exceeded` with the spec's body.
 */
export async function consumeRequest(svc: Services, principal: Principal, exempt: boolean, cost = 1): Promise<LimitResult> {
  const result = await svc.limiter.limit(`tenant:${principal.tenantId}`, requestLimitOf(principal), REQUEST_WINDOW_MS, exempt ? 0 : cost);
  if (!exempt && !result.allowed) throw rateLimitExceeded(result);
  if (!exempt) svc.requestCounts.countRequest(principal.tenantId, cost);
  return result;
}

/**
 * Counts `cost` requests against the key's own pool, when its policy sets `requests_per_minute`
 * (docs/policies.md); the tenant's pool is counted after it, so a key held back by its own pool
 * takes nothing from its tenant's. Throws 429 `key_limit_exceeded`.
 */
export async function consumeKeyRequests(svc: Services, principal: Principal, exempt: boolean, cost = 1): Promise<LimitResult> {
  const limit = principal.policy!.stored.requests_per_minute!;
  const result = await svc.limiter.limit(`key:${principal.keyId}`, limit, REQUEST_WINDOW_MS, exempt ? 0 : cost);
  if (exempt || result.allowed) return result;
  throw new AppError(
    'key_limit_exceeded',
    "Request rate above this API key's own limit (its policy's requests_per_minute); retry after the indicated number of seconds.",
    { limit: 'requests_per_minute', cap: limit, retry_after: result.retryAfterSeconds, reset_at: new Date(result.resetAt).toISOString() },
    { ...rateLimitHeaders({ ...result, remaining: 0 }), 'Retry-After': String(result.retryAfterSeconds) },
  );
}

/**
 * GET /api/v1/me/rate-limit: the tenant's request pool as it stands, read without counting
 * (the limiter's current sliding window, shared by every key and token of the tenant).
 */
export async function requestWindow(svc: Services, principal: Principal) {
  const result = await svc.limiter.limit(`tenant:${principal.tenantId}`, requestLimitOf(principal), REQUEST_WINDOW_MS, 0);
  return {
    limit: result.limit,
    // The window never admits more than the limit; after a lower limit took effect it may hold more, shown as the limit.
    used: result.limit - result.remaining,
    remaining: result.remaining,
    window_seconds: REQUEST_WINDOW_MS / 1000,
    reset_at: new Date(result.resetAt).toISOString(),
  };
}

/**
 * consumeRequest in the same Redis round trip as a check that the auth version (src/keys/cache.ts)
 * is still `version`: undefined (nothing counted) when it is not, or when Redis cannot check it.
 * With a `claim`, the same round trip also takes the request's execution slot when the request
 * is admitted (the claim says whether it got one).
 */
export async function consumeRequestIfCurrent(
  svc: Services,
  principal: Principal,
  exempt: boolean,
  version: string,
  claim?: SlotClaim,
): Promise<LimitResult | undefined> {
  const guard = { key: AUTH_VERSION_KEY, version };
  const result = await svc.limiter.limitIfCurrent(
    `tenant:${principal.tenantId}`,
    requestLimitOf(principal),
    REQUEST_WINDOW_MS,
    exempt ? 0 : 1,
    guard,
    exempt ? undefined : claim?.request,
  );
  if (result === 'stale') return undefined;
  if (claim && result.slot !== undefined) claim.state = result.slot ? 'held' : 'refused';
  if (!exempt && !result.allowed) throw rateLimitExceeded(result);
  if (!exempt) svc.requestCounts.countRequest(principal.tenantId, 1);
  return result;
}

/** `reportsPool`: false for a limit that is not the request pool (registrations), whose headers the answer keeps. */
export function rateLimitExceeded(
  result: LimitResult,
  message = 'Request rate above the plan limit; retry after the indicated number of seconds.',
  reportsPool = true,
) {
  return new AppError(
    'rate_limit_exceeded',
    message,
    { retry_after: result.retryAfterSeconds, limit: result.limit, reset_at: new Date(result.resetAt).toISOString() },
    // The refusal carries its pool's headers, so every transport that writes the error reports them.
    { ...(reportsPool ? rateLimitHeaders({ ...result, remaining: 0 }) : {}), 'Retry-After': String(result.retryAfterSeconds) },
  );
}

/**
 * Unauthenticated calls (and failed authentications) count against the client IP's public
 * pool; exempt endpoints only read it.
 */
export async function consumePublicRequest(svc: Services, ip: string, exempt: boolean): Promise<LimitResult> {
  const result = await svc.limiter.limit(`ip:${ip}`, PUBLIC_REQUESTS_PER_MINUTE, REQUEST_WINDOW_MS, exempt ? 0 : 1);
  if (!exempt && !result.allowed) throw rateLimitExceeded(result);
  return result;
}

/** A tenant's answer headers: its pool, and its executions left when known. */
export function tenantPoolHeaders(pool: LimitResult, executionsRemaining: string | undefined): Record<string, string> {
  return { ...rateLimitHeaders(pool), ...(executionsRemaining === undefined ? {} : { 'X-Execution-Remaining': executionsRemaining }) };
}

/** The X-RateLimit-* headers (and the IETF draft fields) describing a pool. */
export function rateLimitHeaders(result: LimitResult): Record<string, string> {
  const resetSeconds = Math.max(0, Math.ceil((result.resetAt - Date.now()) / 1000));
  return {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': String(Math.ceil(result.resetAt / 1000)),
    'RateLimit-Policy': `"default";q=${result.limit};w=${REQUEST_WINDOW_MS / 1000}`,
    RateLimit: `"default";r=${result.remaining};t=${resetSeconds}`,
  };
}

const HOUR_MS = 3_600_000;

/** Registrations are limited per client IP (REGISTER_LIMIT_PER_HOUR). */
export async function consumeRegistration(svc: Services, ip: string): Promise<LimitResult> {
  const result = await svc.limiter.limit(`register:${ip}`, svc.config.registerLimitPerHour, HOUR_MS);
  // The body and Retry-After are the registration limit's; X-RateLimit-* (and the IETF fields,
  // whose policy is the 60 s window) stay those of the client IP's public pool.
  if (!result.allowed)
    throw rateLimitExceeded(result, 'Too many registrations from this address; retry after the indicated number of seconds.', false);
  return result;
}
