/**
 * What an invoice says, in words: the one source of the invoice page in the dashboard and of its
 * PDF, so the two agree field by field. Pure, and the same in Node and in the browser (dates are
 * written out in English, in UTC).
 */

/** Payment terms: an invoice is due this many days after it is issued (the close sets `due_at` from it). */
export const INVOICE_NET_DAYS = 14;

/** The payment terms in the usual words: "Net 14". */
export const INVOICE_TERMS = `Net ${INVOICE_NET_DAYS}`;

export const ISSUER = 'Agent Module Platform';

/** The parts of an invoice (its API view) the document is made of. */
export interface InvoiceDocumentSource {
  id: string;
  number: string;
  tenant_id: string;
  status: 'open' | 'paid' | 'void';
  billed_to: { name: string; email: string };
  period_start: string;
  period_end: string;
  created_at: string;
  due_at: string;
  paid_at: string | null;
  voided_at: string | null;
  lines: { description: string; quantity: number; unit_amount_usd: string; amount_usd: string }[];
  subtotal_usd: string;
  total_usd: string;
}

export interface InvoiceDocument {
  title: string;
  issuer: string;
  /** Label and value, in the order both renderings show them. */
  fields: { label: string; value: string }[];
  /** The status in words, e.g. "Open: due 15 December 2026". */
  status: string;
  /** The status in one word: "Open", "Paid" or "Void". */
  statusLabel: string;
  /** e.g. "1 November 2026 – 30 November 2026". */
  period: string;
  lines: { description: string; quantity: string; unitPrice: string; amount: string }[];
  totals: { label: string; value: string }[];
  note: string;
}

/** e.g. "1 December 2026" (UTC). */
export function invoiceDay(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** The last day of a period whose end is exclusive (the first instant of the next cycle). */
function lastDay(endExclusive: string): string {
  return invoiceDay(new Date(new Date(endExclusive).getTime() - 1).toISOString());
}

const STATUS_LABELS = { open: 'Open', paid: 'Paid', void: 'Void' } as const;

/** The status in one word, for a badge or a list: "Open", "Paid", "Void". */
export function invoiceStatusLabel(status: InvoiceDocumentSource['status']): string {
  return STATUS_LABELS[status];
}

export function invoiceStatusText(invoice: Pick<InvoiceDocumentSource, 'status' | 'due_at' | 'paid_at' | 'voided_at'>): string {
  if (invoice.status === 'paid') return invoice.paid_at ? `Paid on ${invoiceDay(invoice.paid_at)}` : 'Paid';
  if (invoice.status === 'void') return invoice.voided_at ? `Void (cancelled on ${invoiceDay(invoice.voided_at)})` : 'Void';
  return `Open: due ${invoiceDay(invoice.due_at)}`;
}

const money = (usd: string) => `$${usd}`;

export function invoiceDocument(invoice: InvoiceDocumentSource): InvoiceDocument {
  const period = `${invoiceDay(invoice.period_start)} – ${lastDay(invoice.period_end)}`;
  const status = invoiceStatusText(invoice);
  return {
    title: `Invoice ${invoice.number}`,
    issuer: ISSUER,
    fields: [
      { label: 'Invoice number', value: invoice.number },
      { label: 'Billed to', value: invoice.billed_to.name },
      { label: 'Email', value: invoice.billed_to.email },
      { label: 'Account ID', value: invoice.tenant_id },
      { label: 'Billing period', value: period },
      { label: 'Issued', value: invoiceDay(invoice.created_at) },
      { label: 'Payment terms', value: `${INVOICE_TERMS} (due ${INVOICE_NET_DAYS} days after the issue date)` },
      { label: 'Due', value: invoiceDay(invoice.due_at) },
      { label: 'Status', value: status },
    ],
    status,
    statusLabel: invoiceStatusLabel(invoice.status),
    lines: invoice.lines.map((l) => ({
      description: l.description,
      quantity: l.quantity.toLocaleString('en-US'),
      unitPrice: money(l.unit_amount_usd),
      amount: money(l.amount_usd),
    })),
    totals: [
      { label: 'Subtotal', value: money(invoice.subtotal_usd) },
      { label: 'Tax', value: money('0.00') },
      { label: 'Total (USD)', value: money(invoice.total_usd) },
    ],
    period,
    note: `Amounts are in US dollars; dates are in UTC. Payment is due within ${INVOICE_NET_DAYS} days of the issue date. Reference: ${invoice.id}.`,
  };
}
