import type { Metadata } from 'next';
import { WorkflowDetail } from '@/components/dashboard/workflows/workflow-detail';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Workflow' };

export default async function WorkflowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/workflows/${encodeURIComponent(id)}`);
  return <WorkflowDetail workflowId={id} />;
}
