import type { Metadata } from 'next';
import { InvoicesView } from '@/components/dashboard/invoices/invoices-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Invoices' };

export default async function InvoicesPage() {
  await requireSession('/dashboard/invoices');
  return <InvoicesView />;
}
