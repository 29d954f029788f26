import type { Metadata } from 'next';
import { RunDetail } from '@/components/dashboard/workflows/run-detail';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

export const metadata: Metadata = { title: 'Workflow run' };

export default async function WorkflowRunPage({ params }: { params: Promise<{ id: string; runId: string }> }) {
  const { id, runId } = await params;
  await requireSession(`/dashboard/workflows/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}`);
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.workflows.getRun.queryOptions({ id, run_id: runId }))]}>
      <RunDetail workflowId={id} runId={runId} />
    </WithData>
  );
}
