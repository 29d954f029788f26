import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { OverviewView } from '@/components/dashboard/overview/overview-view';
import { requireSession, tenantLinked } from '@/app/_lib/session';
import { WithData, type Prefetcher } from '@/app/_lib/prefetch';
import { allows, type Action, type Caller } from '@/components/dashboard/access-rules';
import { OVERVIEW_ANY, OVERVIEW_LATEST_EXECUTIONS } from '@/components/dashboard/first-queries';
import { planAllows } from '@/src/contract/plans';

export const metadata: Metadata = { title: 'Overview' };

/** What the overview asks first, but what the caller's role or plan is refused, as the view leaves it out. */
const overviewQueries: Prefetcher = async ({ trpc, queryClient }) => {
  const [me, caller] = await Promise.all([
    queryClient.fetchQuery(trpc.tenants.me.queryOptions({})),
    queryClient.fetchQuery(trpc.members.me.queryOptions({})),
  ]);
  const may = (action: Action) => allows(caller as Caller, action);
  await Promise.all([
    queryClient.prefetchQuery(trpc.tenants.requestRate.queryOptions({})),
    may('readBilling') && queryClient.prefetchQuery(trpc.billing.usage.queryOptions({})),
    may('readModules') && queryClient.prefetchQuery(trpc.executions.list.queryOptions(OVERVIEW_LATEST_EXECUTIONS)),
    may('readKeys') && queryClient.prefetchQuery(trpc.keys.list.queryOptions(OVERVIEW_ANY)),
    planAllows(me.plan, 'webhooks') && queryClient.prefetchQuery(trpc.webhooks.list.queryOptions(OVERVIEW_ANY)),
  ]);
};

/** The landing page: a user with no workspace yet names one first; an operator without one lands on Admin. */
export default async function OverviewPage() {
  const session = await requireSession('/dashboard');
  if (session.kind === 'password' && (await tenantLinked()) === 'none') redirect(session.admin ? '/dashboard/admin' : '/welcome');
  return (
    <WithData prefetch={overviewQueries}>
      <OverviewView />
    </WithData>
  );
}
