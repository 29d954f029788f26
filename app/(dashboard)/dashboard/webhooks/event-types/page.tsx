import type { Metadata } from 'next';
import { EventCatalogView } from '@/components/dashboard/webhooks/event-catalog-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Webhook event types' };

export default async function WebhookEventTypesPage() {
  await requireSession('/dashboard/webhooks/event-types');
  return <EventCatalogView />;
}
