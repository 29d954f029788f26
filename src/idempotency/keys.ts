/**
 * Idempotency keys: a client sends `Idempotency-Key: <key>` with a state-changing request, and a
 * retry with the same key (after a timeout, a dropped connection) gets the first request's answer
 * instead of running it again: an execution is recorded, counted and billed once. As Stripe does:
 * - keys belong to the tenant and live 24 hours; a key is 1-255 visible ASCII characters;
 * - a key sent again with another operation or input (key order aside), or by another credential
 *   of the tenant, is refused (400 `invalid_request`): an answer is replayed only to the
 *   credential that was allowed to run the request (a key without `*` never gets the secret of
 *   a `*` key another credential created);
 * - while the first request still runs, the same key is refused (409 `conflict`, Retry-After: 1);
 *   its instance renews the claim every CLAIM_RENEW_MS, and a claim not renewed within
 *   ABANDONED_AFTER_MS (the instance stopped) is taken afresh by the next request;
 * - what is kept: a success, and a failure after which something was done (a recorded, counted
 *   execution: `invalid_input`, `module_error`, `timeout`). A request refused before anything was
 *   done (bad input, not found, quota, concurrency) keeps nothing, so it can be retried with the
 *   same key once fixed.
 * Kept answers are encrypted under ENCRYPTION_KEY: they may carry secrets (a new API key, an
 * action's output).
 */
import { hash } from 'node:crypto';
import { and, eq, lt, or, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../db/schema';
import { AppError, invalidRequest, type ErrorCode } from '../lib/errors';
import { decryptSecret, encryptSecret } from '../lib/secrets';
import type { Services } from '../services';
import { canonicalJson } from '../lib/canonical-json';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a key is kept: a retry within it gets the first answer. */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A `pending` key whose claim was not renewed for this long belongs to a request whose instance
 * stopped before it finished: the next request with the key runs afresh.
 */
export const ABANDONED_AFTER_MS = 30_000;
/** How often an instance renews the claims of the requests it is running. */
export const CLAIM_RENEW_MS = 10_000;

const KEPT = sql.raw(`interval '${KEY_TTL_MS / 1000} seconds'`);
const ABANDONED = sql.raw(`interval '${ABANDONED_AFTER_MS / 1000} seconds'`);

/** Failures after which the operation had done something (an execution recorded and counted): kept like a success. */
const KEPT_FAILURES = new Set<ErrorCode>(['invalid_input', 'module_error', 'timeout']);

/** What a finished request answered, as kept (encrypted) and replayed. */
export type StoredAnswer =
  | { ok: true; data: unknown }
  | { ok: false; code: ErrorCode; message: string; details: Record<string, unknown>; headers: Record<string, string> };

/** The key a request sent, checked; undefined without one. */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  if (key === undefined || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    const message = `${IDEMPOTENCY_HEADER} must be sent once, as 1 to 255 visible ASCII characters (e.g. a UUID).`;
    throw invalidRequest(message, [{ path: IDEMPOTENCY_HEADER, message }]);
  }
  return key;
}

/**
 * The request a key stands for: the credential that sent it (an API key's id; a bearer or
 * dashboard session acts with every scope), the operation, and its input with each object's
 * keys in order (the same body with its members reordered is the same request).
 */
export function requestFingerprint(credential: string, operation: string, input: unknown): string {
  return hash('sha256', `${credential}\n${operation}\n${canonicalJson(input)}`, 'hex');
}

export type Claim = { kind: 'run' } | { kind: 'replay'; status: number | undefined; answer: StoredAnswer };

/**
 * Takes `key` for a request (`run`: the caller runs it, then calls `keepAnswer` or
 * `releaseIdempotencyKey`), or answers what the first request with it answered (`replay`). A key
 * older than KEY_TTL_MS, or pending longer than ABANDONED_AFTER_MS, is taken afresh.
 */
export async function claimIdempotencyKey(svc: Services, tenantId: string, key: string, fingerprint: string): Promise<Claim> {
  const k = idempotencyKeys;
  const taken = await svc.db
    .insert(k)
    .values({ tenantId, key, fingerprint, state: 'pending' })
    .onConflictDoUpdate({
      target: [k.tenantId, k.key],
      set: { fingerprint, state: 'pending', status: null, answer: null, createdAt: sql`now()` },
      where: sql`${k.createdAt} < now() - ${KEPT} or (${k.state} = 'pending' and ${k.createdAt} < now() - ${ABANDONED})`,
    })
    .returning({ key: k.key });
  if (taken.length > 0) return { kind: 'run' };
  const [row] = await svc.db
    .select()
    .from(k)
    .where(and(eq(k.tenantId, tenantId), eq(k.key, key)));
  // Gone between the two statements (the purge, or its first request released it): take it again.
  if (!row) return claimIdempotencyKey(svc, tenantId, key, fingerprint);
  if (row.fingerprint !== fingerprint) {
    const message = `This ${IDEMPOTENCY_HEADER} was used with another request (operation or input), or by another credential, in the last 24 hours; send a new key for a new request.`;
    throw invalidRequest(message, [{ path: IDEMPOTENCY_HEADER, message }]);
  }
  if (row.state === 'pending' || row.answer === null) {
    throw new AppError(
      'conflict',
      `A request with this ${IDEMPOTENCY_HEADER} is still running; retry when it has finished to get its answer. (Were its instance stopped, the key is free ${ABANDONED_AFTER_MS / 1000} seconds after.)`,
      {},
      { 'Retry-After': '1' },
    );
  }
  return {
    kind: 'replay',
    status: row.status ?? undefined,
    answer: JSON.parse(decryptSecret(svc.config.encryptionKey, row.answer)) as StoredAnswer,
  };
}

/** Whether a failure is kept for replay (something was done) or the key is released (nothing was). */
export function keepsFailure(code: ErrorCode): boolean {
  return KEPT_FAILURES.has(code);
}

/** Keeps the first request's answer for the key's retries. */
export async function keepAnswer(
  svc: Services,
  tenantId: string,
  key: string,
  status: number | undefined,
  answer: StoredAnswer,
): Promise<void> {
  const k = idempotencyKeys;
  await svc.db
    .update(k)
    .set({ state: 'done', status: status ?? null, answer: encryptSecret(svc.config.encryptionKey, JSON.stringify(answer)) })
    .where(and(eq(k.tenantId, tenantId), eq(k.key, key), eq(k.state, 'pending')));
}

/** Renews the claims of keys whose requests this instance is still running (see ABANDONED_AFTER_MS). */
export async function renewIdempotencyClaims(svc: Services, claims: { tenantId: string; key: string }[]): Promise<void> {
  if (claims.length === 0) return;
  const k = idempotencyKeys;
  const held = or(...claims.map((c) => and(eq(k.tenantId, c.tenantId), eq(k.key, c.key))));
  await svc.db
    .update(k)
    .set({ createdAt: sql`now()` })
    .where(and(eq(k.state, 'pending'), held));
}

/** Gives the key back (its request did nothing): a retry with it runs afresh. */
export async function releaseIdempotencyKey(svc: Services, tenantId: string, key: string): Promise<void> {
  const k = idempotencyKeys;
  await svc.db.delete(k).where(and(eq(k.tenantId, tenantId), eq(k.key, key), eq(k.state, 'pending')));
}

/** Deletes keys older than KEY_TTL_MS (the maintenance job); returns how many. */
export async function purgeIdempotencyKeys(svc: Pick<Services, 'db'>): Promise<number> {
  const k = idempotencyKeys;
  const removed = await svc.db
    .delete(k)
    .where(lt(k.createdAt, sql`now() - ${KEPT}`))
    .returning({ key: k.key });
  return removed.length;
}
