import type { Metadata } from 'next';
import { WebhooksView } from '@/components/dashboard/webhooks/webhooks-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  await requireSession('/dashboard/webhooks');
  return <WebhooksView />;
}
