'use client';

import { useQuery } from '@tanstack/react-query';
import { Download, Printer } from 'lucide-react';
import Link from 'next/link';
import { useState } from 'react';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import { statusOf } from '@/client/trpc/client';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDate, formatDateTime } from '@/components/dashboard/format';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { InvoiceStatusBadge } from './invoice-status';
import { lastDayOf } from './invoices-view';

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
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400 print:text-black">
            Billing cycle {formatDate(inv.period_start)} – {formatDate(lastDayOf(inv.period_end))} (UTC)
          </p>
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

      <article
        aria-label={`Invoice ${inv.number}`}
        className="grid gap-6 rounded-xl border border-slate-200 bg-white p-6 sm:p-8 dark:border-slate-800 dark:bg-slate-900 print:border-0 print:p-0 print:text-black print:shadow-none"
      >
        <div className="flex flex-wrap justify-between gap-4 text-sm">
          <div>
            <p className="font-semibold">Agent Module Platform</p>
            <p className="text-slate-600 dark:text-slate-400 print:text-black">Billed to tenant</p>
            <p className="font-mono text-xs break-all">{inv.tenant_id}</p>
          </div>
          <dl className="grid grid-cols-[auto_auto] gap-x-4 gap-y-1">
            <dt className="text-slate-600 dark:text-slate-400 print:text-black">Number</dt>
            <dd className="font-mono">{inv.number}</dd>
            <dt className="text-slate-600 dark:text-slate-400 print:text-black">Issued</dt>
            <dd>{formatDate(inv.created_at)}</dd>
            <dt className="text-slate-600 dark:text-slate-400 print:text-black">Status</dt>
            <dd data-testid="invoice-status">
              <InvoiceStatusBadge status={inv.status} />
            </dd>
            {inv.paid_at ? (
              <>
                <dt className="text-slate-600 dark:text-slate-400 print:text-black">Paid</dt>
                <dd>{formatDateTime(inv.paid_at)}</dd>
              </>
            ) : null}
            {inv.voided_at ? (
              <>
                <dt className="text-slate-600 dark:text-slate-400 print:text-black">Voided</dt>
                <dd>{formatDateTime(inv.voided_at)}</dd>
              </>
            ) : null}
          </dl>
        </div>

        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="invoice-lines">
            <caption className="sr-only">Invoice lines</caption>
            <thead className="border-b border-slate-300 text-xs text-slate-600 uppercase dark:border-slate-700 dark:text-slate-400 print:text-black">
              <tr>
                <th scope="col" className="py-2 pr-4">
                  Description
                </th>
                <th scope="col" className="py-2 pr-4 text-right">
                  Quantity
                </th>
                <th scope="col" className="py-2 pr-4 text-right">
                  Unit price
                </th>
                <th scope="col" className="py-2 text-right">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
              {inv.lines.map((line, i) => (
                <tr key={i}>
                  <td className="py-2 pr-4">{line.description}</td>
                  <td className="py-2 pr-4 text-right tabular-nums">{line.quantity}</td>
                  <td className="py-2 pr-4 text-right tabular-nums">${line.unit_amount_usd}</td>
                  <td className="py-2 text-right tabular-nums">${line.amount_usd}</td>
                </tr>
              ))}
            </tbody>
            <tfoot className="border-t border-slate-300 dark:border-slate-700">
              <tr>
                <th scope="row" colSpan={3} className="py-2 pr-4 text-right font-medium">
                  Subtotal
                </th>
                <td className="py-2 text-right tabular-nums">${inv.subtotal_usd}</td>
              </tr>
              <tr>
                <th scope="row" colSpan={3} className="py-2 pr-4 text-right font-semibold">
                  Total (USD, no tax)
                </th>
                <td className="py-2 text-right font-semibold tabular-nums" data-testid="invoice-total">
                  ${inv.total_usd}
                </td>
              </tr>
            </tfoot>
          </table>
        </div>
        <p className="text-xs text-slate-600 dark:text-slate-400 print:text-black">
          Scripts fetch this invoice as PDF with an API key (scope billing:read):{' '}
          <code className="font-mono break-all">GET {inv.pdf_url}</code>
        </p>
      </article>
    </div>
  );
}
