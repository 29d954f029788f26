import type { Metadata } from 'next';
import { WorkflowsView } from '@/components/dashboard/workflows/workflows-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Workflows' };

export default async function WorkflowsPage() {
  await requireSession('/dashboard/workflows');
  return <WorkflowsView />;
}
