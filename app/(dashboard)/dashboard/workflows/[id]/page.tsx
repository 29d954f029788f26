import type { Metadata } from 'next';
import { WorkflowDetail } from '@/components/dashboard/workflows/workflow-detail';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { WORKFLOW_RUNS_PAGE_SIZE } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Workflow' };

export default async function WorkflowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/workflows/${encodeURIComponent(id)}`);
  return (
    <WithData
      prefetch={({ trpc, queryClient }) => [
        queryClient.prefetchQuery(trpc.workflows.get.queryOptions({ id })),
        queryClient.prefetchQuery(trpc.workflows.listRuns.queryOptions({ id, limit: WORKFLOW_RUNS_PAGE_SIZE })),
      ]}
    >
      <WorkflowDetail workflowId={id} />
    </WithData>
  );
}
