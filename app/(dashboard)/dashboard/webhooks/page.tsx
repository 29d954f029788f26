import type { Metadata } from 'next';
import { WebhooksView } from '@/components/dashboard/webhooks/webhooks-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { WEBHOOKS_LIST } from '@/components/dashboard/first-queries';
import { planAllows } from '@/src/contract/plans';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  await requireSession('/dashboard/webhooks');
  return (
    <WithData
      prefetch={async ({ trpc, queryClient }) => {
        // Asked only of a plan that has webhooks, as the view does (another plan's answer is a 403).
        const me = await queryClient.fetchQuery(trpc.tenants.me.queryOptions({}));
        if (planAllows(me.plan, 'webhooks')) await queryClient.prefetchQuery(trpc.webhooks.list.queryOptions(WEBHOOKS_LIST));
      }}
    >
      <WebhooksView />
    </WithData>
  );
}
