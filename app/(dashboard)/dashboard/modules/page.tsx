import type { Metadata } from 'next';
import { ModulesView } from '@/components/dashboard/modules/modules-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Modules' };

export default async function ModulesPage() {
  await requireSession('/dashboard/modules');
  return <ModulesView />;
}
