import { initTRPC } from '@trpc/server';
import type { z } from 'zod';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { requestScope } from '../audit/request';
import { verifyIdentity } from '../identity/link';
import { assertOperator } from '../identity/operator';
import type { RoleScope } from '../contract/roles';
import type { Scope } from '../contract/scopes';
import { releaseUnusedSlot } from '../metering/slots';
import { executionsRemaining } from '../metering/usage';
import type { PlanFeature } from '../tenants/plans';
import { exceedsJsonDepth, MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from '../lib/json-depth';
import { isChecked } from '../lib/checked-output';
import { findUnstorable, unstorableInput } from '../lib/storable';
import { admitAnyone, admitTenant, assertAllowed, header, idempotencyKeyOf, idempotent } from './admission';
import type { Context, Meta } from './context';
import { AppError, TRPC_CODES, errorBody, invalidRequest, notFound, toAppError } from './errors';

export type { Context, Meta } from './context';

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Errors reach tRPC clients (the dashboard) mapped exactly as REST maps them (toAppError):
    // the code table's status and code, `app` = the REST error body; internal errors generic.
    errorFormatter({ shape, error, ctx }) {
      const app = toAppError(error);
      const code = TRPC_CODES[app.code];
      return {
        code: TRPC_ERROR_CODES_BY_KEY[code],
        message: app.message,
        data: {
          code,
          httpStatus: app.status,
          path: shape.data.path,
          app: errorBody(app, ctx?.requestId ?? '', ctx?.svc.config.publicBaseUrl ?? ''),
        },
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

/**
 * Checks on the raw input before validation, on every transport: JSON nested deeper than
 * MAX_JSON_DEPTH is refused (400) before anything walks it; a path parameter that could not be
 * stored names nothing (404); elsewhere, U+0000 or unpaired surrogates (which PostgreSQL text
 * cannot hold) are refused (400) with the top-level field in the issue and the place in the message.
 */
async function assertAcceptableInput(getRawInput: () => Promise<unknown>, meta: Meta | undefined): Promise<void> {
  const input = await getRawInput();
  if (exceedsJsonDepth(input))
    throw invalidRequest(TOO_DEEP_MESSAGE, [{ path: '', message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }]);
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

/** Operations open to anyone: the caller's pool (its tenant's with a valid credential) -> body and input (400/413). */
export const publicProcedure = t.procedure.meta({ caller: 'anyone' }).use(async ({ ctx, meta, next, getRawInput }) => {
  await admitAnyone(ctx, meta?.rateLimitExempt === true);
  assertBodyUsable(ctx);
  await assertAcceptableInput(getRawInput, meta);
  return next();
});

/**
 * Operations of a signed-in user whose token may act for no tenant yet (linking one): the
 * caller's pool -> the bearer token, verified (401) -> body and input (400/413). So a request
 * without a valid token is 401 whatever its body.
 */
export const bearerProcedure = t.procedure.meta({ caller: 'anyone', bearerOnly: true }).use(async ({ ctx, meta, next, getRawInput }) => {
  await admitAnyone(ctx, meta?.rateLimitExempt === true);
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header(ctx.headers, 'authorization') ?? '')?.[1];
  if (!token) throw new AppError('unauthorized', "This operation needs the signed-in user's `Authorization: Bearer <token>`.");
  const claims = await verifyIdentity(ctx.svc, token);
  assertBodyUsable(ctx);
  await assertAcceptableInput(getRawInput, meta);
  return next({ ctx: { claims, bearerToken: token } });
});

/**
 * A tenant's operation: admission (src/server/admission.ts: authenticate 401 -> rate limit 429
 * -> scope and plan 403), then depth and storable text (400), then idempotency; input validation
 * (400) follows in `.input()`. One middleware, because every extra tRPC middleware level copies
 * the whole call state on the hot path.
 *
 * `roleScope`: what a member's role must hold instead of `scope` (src/contract/roles.ts), for
 * operations a key reaches only through `*`.
 *
 * With meta `claimsSlot` (an operation that runs one execution), the request count's round trip
 * may also take the tenant's execution slot (ctx.slotClaim, used by executeAction instead of a
 * round trip of its own); an operation that ends without executing gives it back.
 */
export function apiProcedure(scope?: Scope, feature?: PlanFeature, roleScope?: RoleScope) {
  return t.procedure
    .meta({ caller: 'tenant', requires: { scope, feature, roleScope } })
    .use(async ({ ctx, meta, next, getRawInput, path, type }) => {
      const { principal, claim } = await admitTenant(ctx, meta?.rateLimitExempt === true, meta?.claimsSlot === true);
      try {
        try {
          assertAllowed(principal, scope, feature, roleScope);
        } catch (err) {
          ctx.svc.metrics.refused(err);
          throw err;
        }
        assertBodyUsable(ctx);
        await assertAcceptableInput(getRawInput, meta);
        const run = () => next({ ctx: claim ? { principal, slotClaim: claim } : { principal } });
        const key = idempotencyKeyOf(ctx, type);
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
  await admitAnyone(ctx, meta?.rateLimitExempt === true);
  const operator = await assertOperator(ctx.svc, {
    adminToken: header(ctx.headers, 'x-admin-token'),
    authorization: header(ctx.headers, 'authorization'),
  });
  const scope = requestScope();
  if (scope) scope.operator = operator;
  assertBodyUsable(ctx);
  await assertAcceptableInput(getRawInput, meta);
  return next();
});
