'use client';

import { useQuery } from '@tanstack/react-query';
import { Download, Printer } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useState } from 'react';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import { statusOf } from '@/client/trpc/client';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ForDevelopers } from '@/components/ui/for-developers';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { invoiceDocument } from '@/src/contract/invoice-document';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { InvoiceSheet } from './invoice-sheet';

/**
 * One invoice as a printable page (the print stylesheet hides the navigation: `print:hidden`),
 * with its PDF. The REST PDF (`pdf_url`) needs an API key; in the browser the same PDF comes
 * from the `invoices.pdf` procedure over the session cookie, saved as a file.
 */
export function InvoiceDetail({ invoiceId }: { invoiceId: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const invoice = useQuery(trpc.invoices.get.queryOptions({ id: invoiceId }));
  const [downloading, setDownloading] = useState(false);
  const [pdfError, setPdfError] = useState<string>();

  const back = (
    <Link
      href="/dashboard/invoices"
      className="text-sm font-medium text-indigo-700 underline-offset-2 hover:underline print:hidden dark:text-indigo-300"
    >
      ← All invoices
    </Link>
  );
  if (invoice.isPending) {
    return (
      <div className="grid gap-6">
        {back}
        <PageHeader title="Invoice" />
        <SkeletonRows rows={6} label="Loading the invoice" />
      </div>
    );
  }
  if (invoice.isError) {
    return (
      <div className="grid gap-6">
        {back}
        <PageHeader title="Invoice" />
        {statusOf(invoice.error) === 404 ? (
          <EmptyState title="Invoice not found">{invoice.error.message}</EmptyState>
        ) : (
          <QueryError error={invoice.error} retry={() => void invoice.refetch()} />
        )}
      </div>
    );
  }
  const inv = invoice.data;
  const doc = invoiceDocument(inv);

  const downloadPdf = async () => {
    setDownloading(true);
    setPdfError(undefined);
    try {
      const file = await client.invoices.pdf.query({ id: inv.id });
      const bytes = Uint8Array.from(atob(file.data_base64), (c) => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([bytes], { type: file.content_type }));
      const a = document.createElement('a');
      a.href = url;
      a.download = file.filename;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setPdfError(errorMessage(err));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <div className="grid gap-6">
      {back}
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">Invoice {inv.number}</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400 print:text-black">Billing period {doc.period} (UTC)</p>
        </div>
        <div className="flex flex-wrap gap-2 print:hidden">
          <Button variant="secondary" onClick={() => window.print()}>
            <Printer aria-hidden="true" className="size-4" />
            Print
          </Button>
          <Button variant="secondary" loading={downloading} onClick={() => void downloadPdf()} data-testid="invoice-pdf">
            <Download aria-hidden="true" className="size-4" />
            Download PDF
          </Button>
        </div>
      </div>
      {pdfError ? <Alert variant="error">{pdfError}</Alert> : null}

      <InvoiceSheet document={doc} status={inv.status} />
      <ForDevelopers className="text-slate-600 print:hidden dark:text-slate-400">
        <p>
          Scripts fetch this invoice as a PDF with an API key holding scope billing:read:{' '}
          <code className="font-mono break-all">GET {inv.pdf_url}</code>
        </p>
      </ForDevelopers>
    </div>
  );
}
