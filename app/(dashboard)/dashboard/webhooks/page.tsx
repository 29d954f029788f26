import type { Metadata } from 'next';
import { WebhooksView } from '@/components/dashboard/webhooks/webhooks-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { WEBHOOKS_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  await requireSession('/dashboard/webhooks');
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.webhooks.list.queryOptions(WEBHOOKS_LIST))]}>
      <WebhooksView />
    </WithData>
  );
}
