import { claimIdempotencyKey, keepAnswer, keepsFailure, releaseIdempotencyKey, requestFingerprint } from '../idempotency/keys';
import { AppError, toAppError } from './errors';
import type { Context } from './trpc';

/** What a procedure's middleware chain answers (tRPC's middleware result, as src/server/http/procedure.ts makes it too). */
type ChainResult = { ok: true; data: unknown } | { ok: false; error: unknown };

/**
 * Runs an authenticated mutation under its `Idempotency-Key` (src/idempotency/keys.ts): the first
 * request with the key runs (`run`), and its answer is kept when something was done; a retry
 * gets that answer, marked `Idempotent-Replayed: true`, without running again.
 */
export async function idempotent<R extends ChainResult>(ctx: Context, tenantId: string, key: string, operation: string, input: unknown, run: () => Promise<R>): Promise<R> {
  const claim = await claimIdempotencyKey(ctx.svc, tenantId, key, requestFingerprint(operation, input));
  if (claim.kind === 'replay') {
    ctx.res.headers['Idempotent-Replayed'] = 'true';
    const { answer } = claim;
    if (!answer.ok) throw new AppError(answer.code, answer.message, answer.details, answer.headers);
    if (claim.status !== undefined) ctx.res.status = claim.status;
    // tRPC's own success result (its marker is this string).
    return { ok: true, data: answer.data, marker: 'middlewareMarker' } as unknown as R;
  }
  const release = () => releaseIdempotencyKey(ctx.svc, tenantId, key);
  let result: R;
  try {
    result = await run();
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
  try {
    if (result.ok) {
      await keepAnswer(ctx.svc, tenantId, key, ctx.res.status, { ok: true, data: result.data });
    } else {
      const failure = toAppError(result.error);
      if (keepsFailure(failure.code)) {
        await keepAnswer(ctx.svc, tenantId, key, failure.status, { ok: false, code: failure.code, message: failure.message, details: failure.details, headers: failure.headers });
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
