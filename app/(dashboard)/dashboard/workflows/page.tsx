import type { Metadata } from 'next';
import { WorkflowsView } from '@/components/dashboard/workflows/workflows-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { WORKFLOWS_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Workflows' };

export default async function WorkflowsPage() {
  await requireSession('/dashboard/workflows');
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.workflows.list.queryOptions(WORKFLOWS_LIST))]}>
      <WorkflowsView />
    </WithData>
  );
}
