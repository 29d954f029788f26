import { initTRPC } from '@trpc/server';
import type { z } from 'zod';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { authenticate } from '../auth/authenticate';
import { assertOperator } from '../identity/operator';
import type { Principal } from '../auth/principal';
import { holdsScope, type Scope } from '../contract/scopes';
import { cachedApiKey, settleCachedKey } from '../keys/authenticate';
import type { LimitResult } from '../metering/limiter';
import { consumePublicRequest, consumeRequest, consumeRequestIfCurrent, rateLimitHeaders } from '../metering/requests';
import { releaseUnusedSlot, SlotClaim } from '../metering/slots';
import { executionsRemaining } from '../metering/usage';
import { assertPlanAllows, type PlanFeature } from '../tenants/plans';
import { exceedsJsonDepth, MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from '../lib/json-depth';
import { isChecked } from '../lib/checked-output';
import { findUnstorable, unstorableInput } from '../lib/storable';
import { parseIdempotencyKey } from '../idempotency/keys';
import { idempotent } from './idempotency';
import { header, optionalPrincipal } from './pool';
import type { Context, Meta } from './context';
import { AppError, TRPC_CODES, errorBody, insufficientScope, invalidRequest, notFound, toAppError } from './errors';

export type { Context, Meta } from './context';

const t = initTRPC.context<Context>().meta<Meta>().create({
  // Errors reach tRPC clients (the dashboard) mapped exactly as REST maps them (toAppError):
  // the code table's status and code, `app` = the REST error body; internal errors generic.
  errorFormatter({ shape, error, ctx }) {
    const app = toAppError(error);
    const code = TRPC_CODES[app.code];
    return {
      code: TRPC_ERROR_CODES_BY_KEY[code],
      message: app.message,
      data: { code, httpStatus: app.status, path: shape.data.path, app: errorBody(app, ctx?.requestId ?? '') },
    };
  },
});

export const router = t.router;

/**
 * `schema` for the `.output()` of an operation whose result the service may mark as checked
 * (src/lib/checked-output.ts): such a result skips the parser, which checked its parts once
 * already; any other result is parsed. tRPC takes the schema's `parseAsync` when `.output()` is
 * called, so it is replaced on the schema itself, which the OpenAPI generator reads unchanged.
 */
export function skipsChecked<S extends z.ZodType>(schema: S): S {
  const parse = schema.parseAsync.bind(schema);
  schema.parseAsync = (value, params) => (isChecked(value) ? Promise.resolve(value as z.output<S>) : parse(value, params));
  return schema;
}

/** Reports the pool's headers (a 429 carries its own, see rateLimitExceeded). */
async function metered(ctx: Context, count: () => Promise<LimitResult>): Promise<void> {
  Object.assign(ctx.res.headers, rateLimitHeaders(await count()));
}

/**
 * Checks on the raw input before validation, on every transport: JSON nested deeper than
 * MAX_JSON_DEPTH is refused (400) before anything walks it; a path parameter that could not be
 * stored names nothing (404); elsewhere, U+0000 or unpaired surrogates (which PostgreSQL text
 * cannot hold) are refused (400) with the top-level field in the issue and the place in the message.
 */
async function assertAcceptableInput(getRawInput: () => Promise<unknown>, meta: Meta | undefined): Promise<void> {
  const input = await getRawInput();
  if (exceedsJsonDepth(input)) throw invalidRequest(TOO_DEEP_MESSAGE, [{ path: '', message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  const at = findUnstorable(input);
  if (at === undefined) return;
  const field = at.split('.')[0]!;
  if (meta?.openapi?.path.includes(`{${field}}`) && !at.includes('.')) throw notFound(field === 'module' ? 'module' : 'resource');
  throw unstorableInput(at);
}

/** A body that is present but unusable (not JSON, over 1 MiB) is refused where the input is checked. */
function assertBodyUsable(ctx: Context): void {
  if (ctx.bodyError) throw ctx.bodyError;
}

/**
 * Operations open to anyone: a valid credential (optional here) meters its tenant's pool, as
 * every response to it reports; without one, the client IP's public pool.
 */
async function meterCaller(ctx: Context, exempt: boolean): Promise<void> {
  const principal = await optionalPrincipal(ctx);
  if (principal) {
    ctx.res.tenantId = principal.tenantId;
    await meterTenant(ctx, principal, exempt);
    return;
  }
  await metered(ctx, () => consumePublicRequest(ctx.svc, ctx.ip, exempt));
}

export const publicProcedure = t.procedure.meta({ caller: 'anyone' }).use(async ({ ctx, meta, next, getRawInput }) => {
  await meterCaller(ctx, meta?.rateLimitExempt === true);
  assertBodyUsable(ctx);
  await assertAcceptableInput(getRawInput, meta);
  return next();
});

/** A failed authentication counts against the client IP's public pool (429 once it is spent). */
async function authenticateOrCount(ctx: Context): Promise<Principal> {
  try {
    const principal = ctx.principal ?? (await authenticate(ctx.svc, { apiKey: header(ctx.headers, 'x-api-key'), authorization: header(ctx.headers, 'authorization') }));
    ctx.res.tenantId = principal.tenantId;
    return principal;
  } catch (err) {
    if (err instanceof AppError && err.code === 'unauthorized') await metered(ctx, () => consumePublicRequest(ctx.svc, ctx.ip, false));
    throw err;
  }
}

/**
 * The tenant's pool (all keys and tokens share it) and its remaining executions. `count` may
 * decline (undefined: the cached key it trusted is stale, nothing counted): then false, and no
 * header is set.
 */
async function meterTenant(
  ctx: Context,
  principal: Principal,
  exempt: boolean,
  count: () => Promise<LimitResult | undefined> = () => consumeRequest(ctx.svc, principal, exempt),
): Promise<boolean> {
  const remaining = executionsRemaining(ctx.svc.db, principal, ctx.svc.usage).catch(() => undefined);
  let declined = false;
  try {
    const result = await count();
    declined = result === undefined;
    if (result) Object.assign(ctx.res.headers, rateLimitHeaders(result));
    return !declined;
  } finally {
    // Every authenticated response carries it, a 429 included.
    const value = await remaining;
    if (value !== undefined && !declined) ctx.res.headers['X-Execution-Remaining'] = value;
  }
}

/**
 * Authentication and the request count. A cached API key with the Redis key cache takes one
 * Redis round trip for both: the limiter's script checks the auth version the entry was loaded
 * under, and counts only if it is current (src/keys/authenticate.ts cachedApiKey). Otherwise,
 * or when it is stale, the full path: authenticate (version GET, database on a miss), then count.
 */
async function authenticateAndMeter(ctx: Context, exempt: boolean, claimsSlot: boolean): Promise<{ principal: Principal; claim?: SlotClaim }> {
  const unchecked = ctx.principal ? undefined : cachedApiKey(ctx.svc, header(ctx.headers, 'x-api-key'));
  if (unchecked) {
    ctx.res.tenantId = unchecked.principal.tenantId;
    const claim = claimsSlot && !exempt ? new SlotClaim(unchecked.principal) : undefined;
    const counted = await meterTenant(ctx, unchecked.principal, exempt, async () => {
      const result = await consumeRequestIfCurrent(ctx.svc, unchecked.principal, exempt, unchecked.version, claim).catch((err: unknown) => {
        settleCachedKey(ctx.svc, unchecked, true); // a 429 is answered for a current key
        throw err;
      });
      settleCachedKey(ctx.svc, unchecked, result !== undefined);
      return result;
    });
    if (counted) return { principal: unchecked.principal, claim };
  }
  const principal = await authenticateOrCount(ctx);
  await meterTenant(ctx, principal, exempt);
  return { principal };
}

/**
 * An authenticated operation: authenticate (401) -> rate limit (429) -> scope (403)
 * -> plan (403) -> depth and storable text (400); input validation (400) follows in `.input()`. One middleware, because every
 * extra tRPC middleware level copies the whole call state on the hot path.
 *
 * `claimsSlot` (an operation that runs one execution): with Redis and a cached key, the request
 * count's round trip also takes the tenant's execution slot (ctx.slotClaim, used by
 * executeAction instead of a round trip of its own); an operation that ends without executing
 * gives it back.
 */
export function apiProcedure(scope?: Scope, feature?: PlanFeature, opts: { claimsSlot?: boolean } = {}) {
  const claimsSlot = opts.claimsSlot === true;
  return t.procedure.meta({ caller: 'tenant' }).use(async ({ ctx, meta, next, getRawInput, path, type }) => {
    const { principal, claim } = await authenticateAndMeter(ctx, meta?.rateLimitExempt === true, claimsSlot);
    try {
      if (scope && !holdsScope(principal.scopes, scope)) throw insufficientScope(scope);
      if (feature) assertPlanAllows(principal.plan, feature);
      assertBodyUsable(ctx);
      await assertAcceptableInput(getRawInput, meta);
      const run = () => next({ ctx: claim ? { principal, slotClaim: claim } : { principal } });
      // A mutation sent with an Idempotency-Key runs once; its retries get its answer (src/idempotency/keys.ts).
      const key = type === 'mutation' ? parseIdempotencyKey(ctx.headers['idempotency-key']) : undefined;
      const result = key === undefined ? await run() : await idempotent(ctx, principal, key, path, await getRawInput(), run);
      // Executions change it: report the value after the operation (from the usage cache).
      ctx.res.headers['X-Execution-Remaining'] = await executionsRemaining(ctx.svc.db, principal, ctx.svc.usage);
      return result;
    } finally {
      if (claim) releaseUnusedSlot(ctx.svc, claim);
    }
  });
}

/**
 * Operator endpoints: `x-admin-token`, or an operator's bearer token (ADMIN_EMAILS, email proven;
 * the dashboard session of an operator arrives as one): src/identity/operator.ts. They do not
 * exist (404) when neither ADMIN_TOKEN nor ADMIN_EMAILS is set.
 * Order: rate limit (429) -> operator (404/401/403) -> body and input (400/413).
 */
export const adminProcedure = t.procedure.meta({ caller: 'operator' }).use(async ({ ctx, meta, next, getRawInput }) => {
  await meterCaller(ctx, meta?.rateLimitExempt === true);
  await assertOperator(ctx.svc, { adminToken: header(ctx.headers, 'x-admin-token'), authorization: header(ctx.headers, 'authorization') });
  assertBodyUsable(ctx);
  await assertAcceptableInput(getRawInput, meta);
  return next();
});
