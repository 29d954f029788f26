import type { Metadata } from 'next';
import { NewWorkflowView } from '@/components/dashboard/workflows/workflow-editor';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'New workflow' };

export default async function NewWorkflowPage({ searchParams }: { searchParams: Promise<{ template?: string | string[] }> }) {
  const { template } = await searchParams;
  await requireSession('/dashboard/workflows/new');
  return <NewWorkflowView templateId={typeof template === 'string' ? template : undefined} />;
}
