import type { Metadata } from 'next';
import { ExecutionDetail } from '@/components/dashboard/executions/execution-detail';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Execution' };

export default async function ExecutionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/executions/${encodeURIComponent(id)}`);
  return <ExecutionDetail executionId={id} />;
}
