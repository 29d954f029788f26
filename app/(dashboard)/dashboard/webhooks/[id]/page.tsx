import type { Metadata } from 'next';
import { WebhookDetailView } from '@/components/dashboard/webhooks/webhook-detail-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { WEBHOOK_STATS_RANGE } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Webhook' };

export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/webhooks/${encodeURIComponent(id)}`);
  return (
    <WithData
      prefetch={({ trpc, queryClient }) => [
        queryClient.prefetchQuery(trpc.webhooks.get.queryOptions({ id })),
        queryClient.prefetchQuery(trpc.webhooks.stats.queryOptions({ id, range: WEBHOOK_STATS_RANGE })),
      ]}
    >
      <WebhookDetailView id={id} />
    </WithData>
  );
}
