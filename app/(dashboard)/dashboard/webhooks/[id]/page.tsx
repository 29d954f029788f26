import type { Metadata } from 'next';
import { WebhookDetailView } from '@/components/dashboard/webhooks/webhook-detail-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Webhook' };

export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/webhooks/${encodeURIComponent(id)}`);
  return <WebhookDetailView id={id} />;
}
