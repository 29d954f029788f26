import type { Metadata } from 'next';
import { MemoryView } from '@/components/dashboard/memory/memory-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { MEMORY_AGENTS } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Memory' };

export default async function MemoryPage() {
  await requireSession('/dashboard/memory');
  // The view reads its agent and query from the URL (useSearchParams).
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.memory.agents.queryOptions(MEMORY_AGENTS))]}>
      <MemoryView />
    </WithData>
  );
}
