'use client';
/**
 * tRPC over TanStack Query for the dashboard: `useTRPC()` gives typed `queryOptions` /
 * `mutationOptions` for every procedure (the same procedures the REST API serves), fetched through
 * the session-authenticated client in ./client.ts. Only the router's TYPE comes from src/.
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { getSession, signOut } from 'next-auth/react';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '@/src/server/router';
import { isForeignTenantRefusal } from '@/src/contract/tenant-cookie';
import { chosenTenant, forgetTenant } from '../tenant';
import { isTrpcError, statusOf, trpc } from './client';

/** Set once the page is leaving: one navigation per page, since a second would abort the first. */
let leaving = false;

/**
 * For a page about to leave on its own after removing what its queries read (deleting the tenant
 * or the account): the 401s and 404s they meet meanwhile are expected, and sending the user to
 * sign in, or reloading, would abort where the page is going. `false` when the removal failed and
 * the page stays.
 */
export function leavingPage(yes = true): void {
  leaving = yes;
}

/**
 * A 401 whose reason is an ended session (the user signed out on another device, or the session
 * was revoked): no retry helps, so the dashboard session ends here too and the user is sent to
 * sign in again, back to this page afterwards.
 */
function signInAgainIfSessionEnded(err: unknown): void {
  if (statusOf(err) !== 401 || !isTrpcError(err)) return;
  const reason = (err.data as { app?: { reason?: unknown } } | undefined)?.app?.reason;
  // Once per page: every query of the page fails alike.
  if (reason !== 'session_ended' || typeof window === 'undefined' || leaving) return;
  leaving = true;
  const back = `${window.location.pathname}${window.location.search}`;
  void signOut({ redirect: false }).then(() => window.location.assign(`/sign-in?callbackUrl=${encodeURIComponent(back)}`));
}

/**
 * A 404 for the chosen tenant (the user was removed from it, or left it in another tab): the
 * cookie is cleared and the page loaded again, now for the user's default tenant, instead of
 * every panel showing "not found". Once: without the cookie the same refusal cannot recur.
 */
function recoverFromForeignTenant(err: unknown): void {
  if (typeof window === 'undefined' || leaving || !chosenTenant()) return;
  if (!isForeignTenantRefusal(statusOf(err), err instanceof Error ? err.message : '')) return;
  leaving = true;
  forgetTenant();
  window.location.reload();
}

function onApiError(err: unknown): void {
  signInAgainIfSessionEnded(err);
  recoverFromForeignTenant(err);
}

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onApiError }),
    mutationCache: new MutationCache({ onError: onApiError }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        // A 401 may be an access token that expired while the page was open: refresh the session
        // once and retry. Other 4xx are answers, not outages: shown at once. 5xx/network: twice.
        retry(failureCount, err) {
          const status = statusOf(err);
          if (status === 401) {
            if (failureCount > 0) return false;
            void getSession();
            return true;
          }
          if (status !== undefined && status < 500) return false;
          return failureCount < 2;
        },
        retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4_000),
      },
      // An action sent while the browser is offline fails at once with the network's error
      // (react-query's default pauses it until the browser is back: a run stayed "Running").
      mutations: { networkMode: 'always' },
    },
  });
}

export function QueryProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpc} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
