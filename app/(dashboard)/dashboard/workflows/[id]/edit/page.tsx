import type { Metadata } from 'next';
import { EditWorkflowView } from '@/components/dashboard/workflows/workflow-editor';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Edit workflow' };

export default async function EditWorkflowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/workflows/${encodeURIComponent(id)}/edit`);
  return <EditWorkflowView workflowId={id} />;
}
