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
import { ForDevelopers } from '@/components/ui/for-developers';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { invoiceDocument } from '@/src/contract/invoice-document';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { InvoiceStatusBadge } from './invoice-status';

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

      <article
        aria-label={doc.title}
        className="grid gap-6 rounded-xl border border-slate-200 bg-white p-6 sm:p-8 dark:border-slate-800 dark:bg-slate-900 print:border-0 print:p-0 print:text-black print:shadow-none"
      >
        <div className="flex flex-wrap items-start justify-between gap-4 text-sm">
          <p className="font-semibold">{doc.issuer}</p>
          <InvoiceStatusBadge status={inv.status} />
        </div>
        <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]" data-testid="invoice-fields">
          {doc.fields.map(({ label, value }) => (
            <div key={label} className="contents">
              <dt className="text-slate-600 dark:text-slate-400 print:text-black">{label}</dt>
              <dd
                className={
                  label === 'Account ID' || label === 'Invoice number' ? 'mb-2 font-mono break-all sm:mb-0' : 'mb-2 break-words sm:mb-0'
                }
              >
                {value}
              </dd>
            </div>
          ))}
        </dl>

        <table className="w-full text-left text-sm" data-testid="invoice-lines">
          <caption className="sr-only">Invoice lines</caption>
          <thead className="border-b border-slate-300 text-xs text-slate-600 uppercase max-sm:sr-only dark:border-slate-700 dark:text-slate-400 print:text-black">
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
            {doc.lines.map((line, i) => (
              // Below 640 px each line is a card: the description, then quantity × unit price = amount.
              <tr key={i} className="max-sm:grid max-sm:grid-cols-[1fr_auto] max-sm:gap-x-2 max-sm:py-2">
                <td className="py-2 pr-4 max-sm:col-span-2 max-sm:p-0 max-sm:font-medium">{line.description}</td>
                <td className="py-2 pr-4 text-right whitespace-nowrap tabular-nums max-sm:col-start-1 max-sm:p-0 max-sm:text-left max-sm:text-slate-600 max-sm:dark:text-slate-400">
                  <span className="sm:hidden">Quantity </span>
                  {line.quantity}
                  <span className="sm:hidden"> × {line.unitPrice}</span>
                </td>
                <td className="py-2 pr-4 text-right whitespace-nowrap tabular-nums max-sm:hidden">{line.unitPrice}</td>
                <td className="py-2 text-right whitespace-nowrap tabular-nums max-sm:col-start-2 max-sm:row-start-2 max-sm:p-0">
                  {line.amount}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t border-slate-300 dark:border-slate-700">
            {doc.totals.map(({ label, value }, i) => {
              const last = i === doc.totals.length - 1;
              return (
                <tr key={label}>
                  <th scope="row" colSpan={3} className={`py-2 pr-4 text-right ${last ? 'font-semibold' : 'font-medium'}`}>
                    {label}
                  </th>
                  <td
                    className={`py-2 text-right whitespace-nowrap tabular-nums ${last ? 'font-semibold' : ''}`}
                    data-testid={last ? 'invoice-total' : undefined}
                  >
                    {value}
                  </td>
                </tr>
              );
            })}
          </tfoot>
        </table>
        <p className="text-xs text-slate-600 dark:text-slate-400 print:text-black">{doc.note}</p>
      </article>
      <ForDevelopers className="text-slate-600 print:hidden dark:text-slate-400">
        <p>
          Scripts fetch this invoice as a PDF with an API key holding scope billing:read:{' '}
          <code className="font-mono break-all">GET {inv.pdf_url}</code>
        </p>
      </ForDevelopers>
    </div>
  );
}
