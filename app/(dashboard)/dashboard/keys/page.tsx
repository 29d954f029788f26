import type { Metadata } from 'next';
import { KeysView } from '@/components/dashboard/keys/keys-view';
import { requireSession } from '@/app/_lib/session';
import { WithData, prefetchCursorPages } from '@/app/_lib/prefetch';
import { KEYS_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'API keys' };

export default async function KeysPage() {
  await requireSession('/dashboard/keys');
  return (
    <WithData
      prefetch={({ trpc, client, queryClient }) => [
        prefetchCursorPages(queryClient, trpc.keys.list.queryKey(KEYS_LIST), () => client.keys.list.query(KEYS_LIST)),
      ]}
    >
      <KeysView />
    </WithData>
  );
}
