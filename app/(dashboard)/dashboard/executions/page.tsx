import type { Metadata } from 'next';
import { ExecutionsView } from '../../../../components/dashboard/executions/executions-view';
import { requireSession } from '../../../_lib/session';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage() {
  await requireSession('/dashboard/executions');
  return <ExecutionsView />;
}
