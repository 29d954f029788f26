import type { Principal } from '../auth/principal';
import {
  CLAIM_RENEW_MS,
  claimIdempotencyKey,
  keepAnswer,
  keepsFailure,
  releaseIdempotencyKey,
  renewIdempotencyClaims,
  requestFingerprint,
} from '../idempotency/keys';
import type { Services } from '../services';
import { AppError, toAppError } from './errors';
import type { Context } from './context';

/** What a procedure's middleware chain answers (tRPC's middleware result, as src/server/http/procedure.ts makes it too). */
type ChainResult = { ok: true; data: unknown } | { ok: false; error: unknown };

/**
 * Runs an authenticated mutation under its `Idempotency-Key` (src/idempotency/keys.ts): the first
 * request with the key runs (`run`), and its answer is kept when something was done; a retry
 * gets that answer, marked `Idempotent-Replayed: true`, without running again.
 */
export async function idempotent<R extends ChainResult>(
  ctx: Context,
  principal: Pick<Principal, 'tenantId' | 'keyId'>,
  key: string,
  operation: string,
  input: unknown,
  run: () => Promise<R>,
): Promise<R> {
  const { tenantId } = principal;
  // An API key's answers are replayed to that key alone; bearer and dashboard sessions act with every scope.
  const credential = principal.keyId ?? 'session';
  const claim = await claimIdempotencyKey(ctx.svc, tenantId, key, requestFingerprint(credential, operation, input));
  if (claim.kind === 'replay') {
    ctx.res.headers['Idempotent-Replayed'] = 'true';
    const { answer } = claim;
    // A failure's body names the request it answers (its X-Request-Id), as every error body does; its `execution` is the first one's.
    if (!answer.ok) throw new AppError(answer.code, answer.message, answer.details, answer.headers);
    if (claim.status !== undefined) ctx.res.status = claim.status;
    // tRPC's own success result (its marker is this string).
    return { ok: true, data: answer.data, marker: 'middlewareMarker' } as unknown as R;
  }
  const release = () => releaseIdempotencyKey(ctx.svc, tenantId, key);
  let result: R;
  const held = holdClaim(ctx.svc, tenantId, key);
  try {
    result = await run();
  } catch (err) {
    held.end();
    await release().catch(() => undefined);
    throw err;
  }
  held.end();
  try {
    if (result.ok) {
      await keepAnswer(ctx.svc, tenantId, key, ctx.res.status, { ok: true, data: result.data });
    } else {
      const failure = toAppError(result.error);
      if (keepsFailure(failure.code)) {
        await keepAnswer(ctx.svc, tenantId, key, failure.status, {
          ok: false,
          code: failure.code,
          message: failure.message,
          details: failure.details,
          headers: failure.headers,
        });
      } else {
        await release();
      }
    }
  } catch (err) {
    // The answer goes out anyway; a retry with the key then runs afresh (or meets `pending` until it is abandoned).
    ctx.svc.logger.warn({ err: String(err), requestId: ctx.requestId }, 'could not keep the answer of an idempotent request');
    await release().catch(() => undefined);
  }
  return result;
}

/** The claims of the requests this instance is running, renewed together every CLAIM_RENEW_MS while any is held. */
const heldClaims = new WeakMap<Services, { claims: Map<string, { tenantId: string; key: string }>; timer?: NodeJS.Timeout }>();

function holdClaim(svc: Services, tenantId: string, key: string): { end(): void } {
  let held = heldClaims.get(svc);
  if (!held) heldClaims.set(svc, (held = { claims: new Map() }));
  const entry = { tenantId, key };
  const id = `${tenantId}\n${key}`;
  held.claims.set(id, entry);
  const state = held;
  if (!state.timer) {
    state.timer = setInterval(() => {
      renewIdempotencyClaims(svc, [...state.claims.values()]).catch((err: unknown) =>
        svc.logger.warn({ err: String(err) }, 'could not renew idempotency claims'),
      );
    }, CLAIM_RENEW_MS);
    state.timer.unref();
  }
  return {
    end() {
      if (state.claims.get(id) !== entry) return;
      state.claims.delete(id);
      if (state.claims.size === 0 && state.timer) {
        clearInterval(state.timer);
        state.timer = undefined;
      }
    },
  };
}
