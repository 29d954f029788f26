import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { OverviewView } from '@/components/dashboard/overview/overview-view';
import { requireSession, tenantLinked } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { OVERVIEW_ANY, OVERVIEW_LATEST_EXECUTIONS } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Overview' };

/** The landing page: a user with no workspace yet names one first; an operator without one lands on Admin. */
export default async function OverviewPage() {
  const session = await requireSession('/dashboard');
  if (session.kind === 'password' && (await tenantLinked()) === 'none') redirect(session.admin ? '/dashboard/admin' : '/welcome');
  return (
    <WithData
      prefetch={({ trpc, queryClient }) => [
        queryClient.prefetchQuery(trpc.tenants.requestRate.queryOptions({})),
        queryClient.prefetchQuery(trpc.billing.usage.queryOptions({})),
        queryClient.prefetchQuery(trpc.executions.list.queryOptions(OVERVIEW_LATEST_EXECUTIONS)),
        queryClient.prefetchQuery(trpc.keys.list.queryOptions(OVERVIEW_ANY)),
        queryClient.prefetchQuery(trpc.webhooks.list.queryOptions(OVERVIEW_ANY)),
      ]}
    >
      <OverviewView />
    </WithData>
  );
}
