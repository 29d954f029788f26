import type { Metadata } from 'next';
import { EditWorkflowView } from '@/components/dashboard/workflows/workflow-editor';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

export const metadata: Metadata = { title: 'Edit workflow' };

export default async function EditWorkflowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/workflows/${encodeURIComponent(id)}/edit`);
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.workflows.get.queryOptions({ id }))]}>
      <EditWorkflowView workflowId={id} />
    </WithData>
  );
}
