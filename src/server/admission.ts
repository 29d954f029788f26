/**
 * Admission, the same on every transport (REST and tRPC through src/server/trpc.ts; MCP, A2A,
 * the identity provider and OAuth through their handlers): authenticate -> count the right pool
 * -> refuse (429) -> scopes -> idempotency. Each stage reports into `ctx.res.headers` and throws
 * the AppError its transport writes.
 *
 * Which pool a response reports: a request with a valid credential reports its tenant's pool and
 * executions left on every status; one without (or with an invalid one) reports the client IP's
 * public pool and no X-Execution-Remaining.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { requestScope } from '../audit/request';
import { authenticate } from '../auth/authenticate';
import type { Principal } from '../auth/principal';
import type { RoleScope } from '../contract/roles';
import { holdsScope, type Scope } from '../contract/scopes';
import { parseIdempotencyKey } from '../idempotency/keys';
import { cachedApiKey, settleCachedKey } from '../keys/authenticate';
import { policyDenied } from '../keys/policy';
import { credentialRefusal } from '../keys/policy-rules';
import type { LimitResult } from '../metering/limiter';
import {
  consumeKeyRequests,
  consumePublicRequest,
  consumeRequest,
  consumeRequestIfCurrent,
  rateLimitHeaders,
  tenantPoolHeaders,
} from '../metering/requests';
import { SlotClaim } from '../metering/slots';
import { executionsRemaining } from '../metering/usage';
import { assertPlanAllows, type PlanFeature } from '../tenants/plans';
import type { Context } from './context';
import { AppError, insufficientScope } from './errors';
import { idempotent } from './idempotency';
import { authenticateOAuthAccessToken, isOAuthAccessToken } from './oauth/resource';

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Whether the request carries a credential at all (x-api-key or Authorization). */
export function hasCredential(headers: IncomingHttpHeaders): boolean {
  return Boolean(header(headers, 'x-api-key')?.trim() || header(headers, 'authorization'));
}

/**
 * The request's credential: an API key, a bearer token of the identity provider, or an access
 * token the built-in authorization server issued for the REST API (`amp login --browser`).
 */
function authenticateHeaders(ctx: Context): Promise<Principal> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(ctx.headers, 'authorization') ?? '')?.[1];
  if (bearer && !header(ctx.headers, 'x-api-key')?.trim() && isOAuthAccessToken(ctx.svc, bearer)) {
    return authenticateOAuthAccessToken(ctx.svc, 'api', bearer, header(ctx.headers, 'x-tenant-id'));
  }
  return authenticate(ctx.svc, {
    apiKey: header(ctx.headers, 'x-api-key'),
    authorization: header(ctx.headers, 'authorization'),
    tenantId: header(ctx.headers, 'x-tenant-id'),
  });
}

/**
 * The principal of the request's credential, or undefined when there is none or it is not valid
 * (no 401 here: callers that require one authenticate themselves). Through the key cache.
 */
export async function optionalPrincipal(ctx: Context): Promise<Principal | undefined> {
  if (ctx.principal) return ctx.principal;
  if (!hasCredential(ctx.headers)) return undefined;
  try {
    ctx.principal = await authenticateHeaders(ctx);
    return ctx.principal;
  } catch {
    // Invalid, expired, revoked or unverifiable (database down): the public pool is reported.
    return undefined;
  }
}

/**
 * The headers of a response that no operation answers (OPTIONS, discovery documents, OAuth,
 * unknown routes, 405, protocol refusals): the caller's pool, reported without consuming it.
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

/** Reports the pool's headers (a 429 carries its own, see rateLimitExceeded). */
async function metered(ctx: Context, count: () => Promise<LimitResult>): Promise<void> {
  try {
    Object.assign(ctx.res.headers, rateLimitHeaders(await count()));
  } catch (err) {
    ctx.svc.metrics.refused(err); // amp_admission_refusals_total
    throw err;
  }
}

/** Counts one request against the client IP's public pool (only reported when `exempt`): the identity provider's calls. */
export function countPublic(ctx: Context, exempt = false): Promise<void> {
  return metered(ctx, () => consumePublicRequest(ctx.svc, ctx.ip, exempt));
}

/**
 * Operations open to anyone (and the operator's): a valid credential (optional here) meters its
 * tenant's pool, as every response to it reports; without one, the client IP's public pool.
 */
export async function admitAnyone(ctx: Context, exempt: boolean): Promise<void> {
  const principal = await optionalPrincipal(ctx);
  if (principal) {
    ctx.res.tenantId = principal.tenantId;
    await countTenant(ctx, principal, exempt);
    return;
  }
  await metered(ctx, () => consumePublicRequest(ctx.svc, ctx.ip, exempt));
}

/** The request's scope names its caller, for the audit log (src/audit/request.ts). */
function nameCaller(principal: Principal): void {
  const scope = requestScope();
  if (scope) scope.principal = principal;
}

/**
 * The request's principal (`authenticateWith`: the request's x-api-key or bearer token unless a
 * transport takes another credential, MCP's OAuth access tokens). A failed authentication counts
 * against the client IP's public pool before its 401 is thrown (a 429 once that pool is spent).
 */
export async function authenticateCaller(ctx: Context, authenticateWith?: () => Promise<Principal>): Promise<Principal> {
  try {
    const principal = ctx.principal ?? (await (authenticateWith ? authenticateWith() : authenticateHeaders(ctx)));
    ctx.res.tenantId = principal.tenantId;
    nameCaller(principal);
    return principal;
  } catch (err) {
    if (err instanceof AppError && err.code === 'unauthorized') await metered(ctx, () => consumePublicRequest(ctx.svc, ctx.ip, false));
    ctx.svc.metrics.refused(err);
    throw err;
  }
}

/**
 * Counts `cost` requests against the tenant's pool (all keys and tokens share it; none when
 * `exempt`), 429 when it cannot admit them; `ctx.res.headers` gets the pool and the executions
 * left, a 429 included. `count` may decline (undefined: the cached key it trusted is stale,
 * nothing counted): then false, and no header is set.
 */
export async function countTenant(
  ctx: Context,
  principal: Principal,
  exempt: boolean,
  cost = 1,
  count: () => Promise<LimitResult | undefined> = () => consumeRequest(ctx.svc, principal, exempt, cost),
): Promise<boolean> {
  const remaining = executionsRemaining(ctx.svc.db, principal, ctx.svc.usage).catch(() => undefined);
  let declined = false;
  try {
    const keyPool = principal.policy?.stored.requests_per_minute ? await consumeKeyRequests(ctx.svc, principal, exempt, cost) : undefined;
    const result = await count();
    declined = result === undefined;
    if (!result) return false;
    Object.assign(ctx.res.headers, rateLimitHeaders(keyPool && keyPool.remaining < result.remaining ? keyPool : result));
    // Counted like any call with a valid credential (as a suspended key's is), then refused.
    const refusal = credentialRefusal(principal.policy, ctx.ip, Date.now());
    if (refusal) throw policyDenied(refusal);
    return true;
  } catch (err) {
    ctx.svc.metrics.refused(err);
    throw err;
  } finally {
    // Every authenticated response carries it, a 429 included.
    const value = await remaining;
    if (value !== undefined && !declined) ctx.res.headers['X-Execution-Remaining'] = value;
  }
}

/**
 * Authentication and the request count of a tenant's operation. A cached API key with the Redis
 * key cache takes one Redis round trip for both: the limiter's script checks the auth version
 * the entry was loaded under, and counts only if it is current (src/keys/authenticate.ts
 * cachedApiKey). Otherwise, when it is stale, or when the key's policy gives it a request pool
 * of its own, the full path: authenticate (version GET, database on a miss), then count.
 *
 * `claimsSlot` (an operation that runs one execution): with Redis and a cached key, the count's
 * round trip also takes the tenant's execution slot (`claim`, for executeAction instead of a
 * round trip of its own); the caller gives it back if the operation ends without executing.
 */
export async function admitTenant(
  ctx: Context,
  exempt: boolean,
  claimsSlot: boolean,
): Promise<{ principal: Principal; claim?: SlotClaim }> {
  const cached = ctx.principal ? undefined : cachedApiKey(ctx.svc, header(ctx.headers, 'x-api-key'));
  // A key with its own request pool takes the full path: that pool is counted before the
  // tenant's (whose count checks the version), and only a current policy may say what it is.
  const unchecked = cached?.principal.policy?.stored.requests_per_minute ? undefined : cached;
  if (unchecked) {
    ctx.res.tenantId = unchecked.principal.tenantId;
    const claim = claimsSlot && !exempt ? new SlotClaim(unchecked.principal) : undefined;
    const counted = await countTenant(ctx, unchecked.principal, exempt, 1, async () => {
      const result = await consumeRequestIfCurrent(ctx.svc, unchecked.principal, exempt, unchecked.version, claim).catch((err: unknown) => {
        settleCachedKey(ctx.svc, unchecked, true); // a 429 is answered for a current key
        throw err;
      });
      settleCachedKey(ctx.svc, unchecked, result !== undefined);
      return result;
    });
    if (counted) {
      nameCaller(unchecked.principal);
      return { principal: unchecked.principal, claim };
    }
  }
  const principal = await authenticateCaller(ctx);
  await countTenant(ctx, principal, exempt);
  return { principal };
}

/** After an operation (executions change it): `headers` get X-Execution-Remaining anew, kept as they were when it cannot be read. */
export async function refreshExecutionsLeft(ctx: Context, principal: Principal, headers: Record<string, string>): Promise<void> {
  const value = await executionsRemaining(ctx.svc.db, principal, ctx.svc.usage).catch(() => undefined);
  if (value !== undefined) headers['X-Execution-Remaining'] = value;
}

/** The scope an operation needs (403 `insufficient_scope`), and the plan feature it needs (403 `plan_required`). */
/**
 * Scope and plan (403). A member is held to `roleScope` where the operation names one (what a key
 * reaches only through `*`: webhooks, plan changes, members), else to `scope`, against its role's
 * scopes (src/contract/roles.ts); an API key to `scope`.
 */
export function assertAllowed(principal: Principal, scope: Scope | undefined, feature?: PlanFeature, roleScope?: RoleScope): void {
  const wanted = principal.member ? (roleScope ?? scope) : scope;
  if (wanted && !holdsScope(principal.scopes, wanted)) throw insufficientScope(wanted);
  if (feature) assertPlanAllows(principal.plan, feature);
}

/**
 * The Idempotency-Key of a mutation (400 when malformed), or undefined: with one, the operation
 * runs under `idempotent` (src/server/idempotency.ts), once, and its retries get its answer.
 */
export function idempotencyKeyOf(ctx: Context, type: string): string | undefined {
  return type === 'mutation' ? parseIdempotencyKey(ctx.headers['idempotency-key']) : undefined;
}

export { idempotent };
