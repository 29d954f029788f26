/**
 * Data with the first paint: a page's server component asks the API for what its client
 * components will ask first, with the browser's own cookies (the same session, tenant and
 * limits as the browser's calls; src/server/session.ts), and hands the answers to TanStack
 * Query through a HydrationBoundary. The client components then render with data in the first
 * HTML instead of a skeleton and a round trip. A query that fails here (a session whose access
 * token needs refreshing, a role without the scope, the API busy) is left out: the browser asks
 * for it as before and handles the failure as before.
 */
import { dehydrate, HydrationBoundary, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';
import { createTRPCOptionsProxy, type TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { headers as requestHeaders } from 'next/headers';
import { cache, type ReactNode } from 'react';
import { TRPC_BATCH_MAX_CALLS } from '@/src/contract/limits';
import type { AppRouter } from '@/src/server/router';
import { cursorPagesOptions } from '@/components/dashboard/cursor-pages-key';
import { allows, type Action, type Caller } from '@/components/dashboard/access-rules';
import { dashboardEnv } from './env';
import { forwardedClient } from './gotrue';

export interface Prefetch {
  trpc: TRPCOptionsProxy<AppRouter>;
  client: TRPCClient<AppRouter>;
  queryClient: QueryClient;
}

/**
 * What a page prefetches: queries started with `queryClient.prefetchQuery(trpc.x.y.queryOptions(input))`,
 * or one async step that first reads what decides the rest (`fetchQuery`), as a view leaves out a
 * query the caller's role or plan is known to be refused.
 */
export type Prefetcher = (p: Prefetch) => Promise<unknown> | Promise<unknown>[];

/**
 * One query cache per request, shared by the layout's and the page's prefetches: what the layout
 * asked (the tenant, the caller's role) a page reads from it instead of asking the API again, and
 * each boundary hands the browser only the answers no boundary above it handed already. Fresh for
 * the request's whole render (staleTime), so nothing is asked twice; no retries: a failure is the
 * browser's to retry, with its session refresh.
 */
const requestCache = cache(() => ({
  queryClient: new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } }),
  handedOver: new Set<string>(),
}));

async function prefetched(prefetch: Prefetcher): Promise<ReturnType<typeof dehydrate> | null> {
  const env = dashboardEnv();
  const cookie = (await requestHeaders()).get('cookie');
  if (!cookie) return null;
  const forwarded = await forwardedClient(env);
  const client = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${env.apiUrl}/api/trpc`, maxItems: TRPC_BATCH_MAX_CALLS, headers: () => ({ ...forwarded, cookie }) })],
  });
  const { queryClient, handedOver } = requestCache();
  const trpc = createTRPCOptionsProxy<AppRouter>({ client, queryClient });
  await Promise.allSettled([prefetch({ trpc, client, queryClient })].flat());
  const state = dehydrate(queryClient, {
    shouldDehydrateQuery: (query) => query.state.status === 'success' && !handedOver.has(query.queryHash),
  });
  for (const query of state.queries) handedOver.add(query.queryHash);
  return state;
}

/** `children` rendered with the answers `prefetch` got (those that succeeded) already in the query cache. */
export async function WithData({ prefetch, children }: { prefetch: Prefetcher; children: ReactNode }) {
  const state = await prefetched(prefetch).catch(() => null);
  return state ? <HydrationBoundary state={state}>{children}</HydrationBoundary> : children;
}

/** The first page of a "Load more" list (components/dashboard/use-cursor-pages.ts), as useCursorPages keeps it. */
export function prefetchCursorPages<P extends { next_cursor: string | null }>(
  queryClient: QueryClient,
  key: readonly unknown[],
  firstPage: () => Promise<P>,
): Promise<void> {
  return queryClient.prefetchInfiniteQuery(cursorPagesOptions(key, () => firstPage()));
}

/** Whether the caller's role allows `action` (components/dashboard/access-rules.ts), for a page that leaves out what its view would not ask. */
export async function callerMay({ trpc, queryClient }: Prefetch, action: Action): Promise<boolean> {
  return allows((await queryClient.fetchQuery(trpc.members.me.queryOptions({}))) as Caller, action);
}
