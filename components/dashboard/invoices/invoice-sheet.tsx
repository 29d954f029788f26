import type { InvoiceDocument } from '@/src/contract/invoice-document';
import { InvoiceStatusBadge } from './invoice-status';

/**
 * The invoice itself, as the page shows and prints it: every word comes from the invoice document
 * (src/contract/invoice-document.ts), which the PDF draws too, so the two say the same.
 */
export function InvoiceSheet({ document: doc, status }: { document: InvoiceDocument; status: 'open' | 'paid' | 'void' }) {
  return (
    <article
      aria-label={doc.title}
      className="grid gap-6 rounded-xl border border-slate-200 bg-white p-6 sm:p-8 dark:border-slate-800 dark:bg-slate-900 print:border-0 print:p-0 print:text-black print:shadow-none"
    >
      <div className="flex flex-wrap items-start justify-between gap-4 text-sm">
        <p className="font-semibold">{doc.issuer}</p>
        <InvoiceStatusBadge status={status} />
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

      <table className="w-full text-left text-sm max-sm:block" data-testid="invoice-lines">
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
        <tbody className="divide-y divide-slate-200 max-sm:block dark:divide-slate-800">
          {doc.lines.map((line, i) => (
            // Below 640 px each line is a card across the whole width (the table is a block there):
            // the description, then quantity × unit price and the amount.
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
        <tfoot className="border-t border-slate-300 max-sm:block dark:border-slate-700">
          {doc.totals.map(({ label, value }, i) => {
            const last = i === doc.totals.length - 1;
            return (
              <tr key={label} className="max-sm:flex max-sm:justify-end">
                <th scope="row" colSpan={3} className={`py-2 pr-4 text-right max-sm:flex-1 ${last ? 'font-semibold' : 'font-medium'}`}>
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
  );
}
