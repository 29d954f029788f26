import type { Metadata } from 'next';
import { InvoicesView } from '@/components/dashboard/invoices/invoices-view';
import { requireSession } from '@/app/_lib/session';
import { WithData, prefetchCursorPages } from '@/app/_lib/prefetch';
import { INVOICES_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Invoices' };

export default async function InvoicesPage() {
  await requireSession('/dashboard/invoices');
  return (
    <WithData
      prefetch={({ trpc, client, queryClient }) => [
        prefetchCursorPages(queryClient, trpc.invoices.list.queryKey(INVOICES_LIST), () => client.invoices.list.query(INVOICES_LIST)),
      ]}
    >
      <InvoicesView />
    </WithData>
  );
}
