/**
 * The dashboard's tRPC client: /api/trpc on the same origin, authenticated by the session
 * cookie (server.ts reads it). Only the router's TYPE comes from src/ (erased at build time:
 * Next bundles no server code). A 401 is retried once after refreshing the session, whose
 * access token may have expired while the page was open.
 */
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { getSession } from 'next-auth/react';
import { TRPC_BATCH_MAX_CALLS } from '@/src/contract/limits';
import type { AppRouter } from '@/src/server/router';

export const trpc = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: '/api/trpc', maxItems: TRPC_BATCH_MAX_CALLS })],
});

export function isTrpcError(err: unknown): err is TRPCClientError<AppRouter> {
  return err instanceof TRPCClientError;
}

/** The HTTP status of a tRPC error (the API's error format status), if any. */
export function statusOf(err: unknown): number | undefined {
  return isTrpcError(err) ? err.data?.httpStatus : undefined;
}

/**
 * What a failed call says about the sign-in, once the 401 retry (a session refresh) has run:
 * `no_tenant` for a user whose sign-in is linked to no tenant yet (the API's message names
 * register / link); `signed_out` for any other 401: the session's credential no longer works (its
 * API key was revoked or rotated past its grace period, or the provider's session ended), so no
 * retry can succeed and only signing in again helps. Undefined for every other error.
 */
export function signInProblem(err: unknown): 'no_tenant' | 'signed_out' | undefined {
  if (statusOf(err) !== 401) return undefined;
  const message = err instanceof Error ? err.message : '';
  return /register|link/i.test(message) ? 'no_tenant' : 'signed_out';
}

export async function withSessionRetry<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (statusOf(err) !== 401) throw err;
    await getSession(); // next-auth's /api/auth/session refreshes the access token and the cookie
    return call();
  }
}
