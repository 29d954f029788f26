'use client';
/**
 * tRPC over TanStack Query for the dashboard: `useTRPC()` gives typed `queryOptions` /
 * `mutationOptions` for every procedure (the same procedures the REST API serves), fetched through
 * the session-authenticated client in ./trpc.ts. Only the router's TYPE comes from src/.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { getSession } from 'next-auth/react';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '../../src/server/router';
import { statusOf, trpc } from './trpc';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient(): QueryClient {
  return new QueryClient({
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
