import type { Metadata } from 'next';
import { InvoiceDetail } from '@/components/dashboard/invoices/invoice-detail';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Invoice' };

export default async function InvoicePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireSession(`/dashboard/invoices/${encodeURIComponent(id)}`);
  return <InvoiceDetail invoiceId={id} />;
}
