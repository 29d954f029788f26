import type { Metadata } from 'next';
import { InvoiceDetail } from '@/components/dashboard/invoices/invoice-detail';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

export const metadata: Metadata = { title: 'Invoice' };

export default async function InvoicePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/invoices/${encodeURIComponent(id)}`);
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.invoices.get.queryOptions({ id }))]}>
      <InvoiceDetail invoiceId={id} />
    </WithData>
  );
}
