import type { ReactNode } from 'react';
import { Toaster } from 'sonner';
import { DashboardNav } from '@/components/dashboard/nav';
import { SessionKeeper } from '@/components/session-keeper';
import { QueryProviders } from '@/client/trpc/react';
import { currentSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

/**
 * The signed-in part of the dashboard: section navigation, data through tRPC + TanStack Query
 * over /api/trpc (the session cookie authenticates it), and toasts. Each page checks the session
 * itself (requireSession), so a visit without one is redirected to /sign-in and comes back
 * afterwards. The session keeper refreshes the identity provider's access token while a page
 * stays open.
 */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  return (
    <SessionKeeper>
      <QueryProviders>
        {/* What every page asks first: the tenant (plan, limits), the user's role in it, and the
            webhooks needing attention (the navigation's badge). */}
        <WithData
          prefetch={({ trpc, queryClient }) =>
            session
              ? [
                  queryClient.prefetchQuery(trpc.tenants.me.queryOptions({})),
                  queryClient.prefetchQuery(trpc.members.me.queryOptions({})),
                  ...(session.tenantId !== null ? [queryClient.prefetchQuery(trpc.webhooks.health.queryOptions({}))] : []),
                ]
              : []
          }
        >
          <div className="mx-auto flex w-full max-w-7xl flex-col gap-6 px-4 py-6 sm:px-6 md:flex-row md:py-8">
            {session ? (
              <aside className="md:w-52 md:shrink-0 print:hidden">
                <DashboardNav admin={session.admin} tenant={session.tenantId !== null} />
              </aside>
            ) : null}
            <main id="main" className="min-w-0 flex-1">
              {children}
            </main>
          </div>
        </WithData>
        {/* theme="system": the toasts follow the colour scheme like the rest of the dashboard. At the
            top centre they cover neither the header's controls nor a table's row actions (on the right). */}
        <Toaster closeButton position="top-center" theme="system" />
      </QueryProviders>
    </SessionKeeper>
  );
}
