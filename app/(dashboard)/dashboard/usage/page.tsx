import type { Metadata } from 'next';
import { UsageView } from '@/components/dashboard/usage/usage-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { INVOICES_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Usage' };

export default async function UsagePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireSession('/dashboard/usage');
  // The current cycle's usage is prefetched; another cycle (?cycle=) the view asks for itself.
  const current = (await searchParams).cycle === undefined;
  // The view reads the cycle from the URL (useSearchParams).
  return (
    <WithData
      prefetch={({ trpc, queryClient }) => [
        ...(current ? [queryClient.prefetchQuery(trpc.billing.usage.queryOptions({}))] : []),
        queryClient.prefetchQuery(trpc.plans.list.queryOptions({})),
        queryClient.prefetchQuery(trpc.invoices.list.queryOptions(INVOICES_LIST)),
      ]}
    >
      <UsageView />
    </WithData>
  );
}
