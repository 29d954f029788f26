import type { Metadata } from 'next';
import { ExecutionDetail } from '@/components/dashboard/executions/execution-detail';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

export const metadata: Metadata = { title: 'Execution' };

export default async function ExecutionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/executions/${encodeURIComponent(id)}`);
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.executions.get.queryOptions({ execution_id: id }))]}>
      <ExecutionDetail executionId={id} />
    </WithData>
  );
}
