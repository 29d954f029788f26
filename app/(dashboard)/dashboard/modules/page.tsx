import type { Metadata } from 'next';
import { ModulesView } from '@/components/dashboard/modules/modules-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { MODULES_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Modules' };

export default async function ModulesPage() {
  await requireSession('/dashboard/modules');
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.modules.list.queryOptions(MODULES_LIST))]}>
      <ModulesView />
    </WithData>
  );
}
