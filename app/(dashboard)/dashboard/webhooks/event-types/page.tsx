import type { Metadata } from 'next';
import { EventCatalogView } from '@/components/dashboard/webhooks/event-catalog-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

export const metadata: Metadata = { title: 'Webhook event types' };

export default async function WebhookEventTypesPage() {
  await requireSession('/dashboard/webhooks/event-types');
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.webhooks.eventTypes.queryOptions({}))]}>
      <EventCatalogView />
    </WithData>
  );
}
