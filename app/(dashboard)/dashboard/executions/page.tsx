import type { Metadata } from 'next';
import { ExecutionsView } from '@/components/dashboard/executions/executions-view';
import { requireSession } from '@/app/_lib/session';
import { WithData, prefetchCursorPages } from '@/app/_lib/prefetch';
import { EXECUTIONS_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireSession('/dashboard/executions');
  // The latest executions are prefetched; a search or filter in the URL the view asks for itself.
  const unfiltered = Object.keys(await searchParams).length === 0;
  // The view reads its search and filters from the URL (useSearchParams).
  return (
    <WithData
      prefetch={({ trpc, client, queryClient }) =>
        unfiltered
          ? [
              prefetchCursorPages(queryClient, trpc.executions.list.queryKey(EXECUTIONS_LIST), () =>
                client.executions.list.query(EXECUTIONS_LIST),
              ),
            ]
          : []
      }
    >
      <ExecutionsView />
    </WithData>
  );
}
