import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { InvoiceSheet } from '../../components/dashboard/invoices/invoice-sheet';
import type { InvoiceView } from '../../src/billing/invoice-schema';
import { renderInvoicePdf } from '../../src/billing/invoice-pdf';
import { invoiceDocument } from '../../src/contract/invoice-document';

/** A pro invoice as the close drafts it: the fee, the executions within the quota at 0.00, the overage. */
const invoice: InvoiceView = {
  id: 'inv_0123456789abcdefghij',
  number: 'AMP-E1F022E4-0002',
  tenant_id: 'e1f022e4-3456-4789-8abc-def012345678',
  billed_to: { name: 'Acme support agent', email: 'owner@example.com' },
  status: 'open',
  currency: 'usd',
  period_start: '2026-11-01T00:00:00.000Z',
  period_end: '2026-12-01T00:00:00.000Z',
  lines: [
    { description: 'Pro plan, November 2026', quantity: 1, unit_amount_usd: '29.00', amount_usd: '29.00' },
    { description: 'Executions included in the plan: 50,000', quantity: 50_000, unit_amount_usd: '0.00', amount_usd: '0.00' },
    { description: 'Overage: 250 executions × 0.001 USD', quantity: 250, unit_amount_usd: '0.001', amount_usd: '0.25' },
  ],
  subtotal_usd: '29.25',
  total_usd: '29.25',
  created_at: '2026-12-01T00:07:02.118Z',
  due_at: '2026-12-15T00:07:02.118Z',
  paid_at: null,
  voided_at: null,
  pdf_url: '/api/v1/billing/invoices/inv_0123456789abcdefghij.pdf',
};

const decode = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .trim();

/** What the invoice page shows: its fields, lines, totals and status badge, read from the rendered markup. */
function pageText(inv: InvoiceView) {
  const html = renderToStaticMarkup(createElement(InvoiceSheet, { document: invoiceDocument(inv), status: inv.status }));
  const all = (re: RegExp) => [...html.matchAll(re)].map((m) => decode(m[1]!));
  const labels = all(/<dt[^>]*>(.*?)<\/dt>/g);
  const values = all(/<dd[^>]*>(.*?)<\/dd>/g);
  const tbody = html.slice(html.indexOf('<tbody'), html.indexOf('</tbody>'));
  const lines = [...tbody.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((row) => {
    const cells = [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!);
    // The quantity cell carries words only a phone shows ("Quantity … × unit price"); the columns are the rest.
    const quantity = decode(cells[1]!.replace(/<span class="sm:hidden">.*?<\/span>/g, ''));
    return { description: decode(cells[0]!), quantity, unitPrice: decode(cells[2]!), amount: decode(cells[3]!) };
  });
  const tfoot = html.slice(html.indexOf('<tfoot'), html.indexOf('</tfoot>'));
  const totals = [...tfoot.matchAll(/<th[^>]*>(.*?)<\/th><td[^>]*>(.*?)<\/td>/g)].map((m) => ({
    label: decode(m[1]!),
    value: decode(m[2]!),
  }));
  const status = decode(/data-testid="invoice-status"[^>]*>(.*?)<\/span>/.exec(html)![1]!);
  return { fields: labels.map((label, i) => ({ label, value: values[i]! })), lines, totals, status };
}

async function pdfText(inv: InvoiceView): Promise<string> {
  const pdf = await renderInvoicePdf(inv);
  return (await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true })).text.replace(/\s+/g, ' ');
}

describe('the invoice page and the PDF', () => {
  for (const [name, inv] of [
    ['open', invoice],
    ['paid', { ...invoice, status: 'paid', paid_at: '2026-12-03T10:00:00.000Z' }],
    ['void', { ...invoice, status: 'void', voided_at: '2026-12-04T09:00:00.000Z' }],
  ] as const) {
    it(`say the same, field by field, line by line (${name})`, async () => {
      const page = pageText(inv);
      const document = invoiceDocument(inv);
      // The page shows exactly the document's fields, lines and totals...
      expect(page.fields).toEqual(document.fields);
      expect(page.lines).toEqual(document.lines);
      expect(page.totals).toEqual(document.totals);
      expect(page.status).toBe(document.statusLabel);
      expect(page.fields.map((f) => f.label)).toEqual([
        'Invoice number',
        'Billed to',
        'Email',
        'Account ID',
        'Billing period',
        'Issued',
        'Payment terms',
        'Due',
        'Status',
      ]);
      // ...and the PDF has each of them, as the page writes it.
      const pdf = await pdfText(inv);
      expect(pdf).toContain(`${document.issuer} ${page.status}`);
      for (const { label, value } of [...page.fields, ...page.totals]) expect(pdf).toContain(`${label} ${value}`);
      for (const line of page.lines) expect(pdf).toContain(`${line.description} ${line.quantity} ${line.unitPrice} ${line.amount}`);
      expect(pdf).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    });
  }

  it('are human: names, not ids, dates written out, the status in words, terms and the included executions at 0.00', () => {
    const page = pageText(invoice);
    const field = (label: string) => page.fields.find((f) => f.label === label)?.value;
    expect(field('Billed to')).toBe('Acme support agent');
    expect(field('Email')).toBe('owner@example.com');
    expect(field('Billing period')).toBe('1 November 2026 – 30 November 2026');
    expect(field('Issued')).toBe('1 December 2026');
    expect(field('Payment terms')).toBe('Net 14 (due 14 days after the issue date)');
    expect(field('Due')).toBe('15 December 2026');
    expect(field('Status')).toBe('Open: due 15 December 2026');
    expect(page.status).toBe('Open');
    expect(page.lines[1]).toEqual({
      description: 'Executions included in the plan: 50,000',
      quantity: '50,000',
      unitPrice: '$0.00',
      amount: '$0.00',
    });
    expect(pageText({ ...invoice, status: 'paid', paid_at: '2026-12-03T10:00:00.000Z' }).status).toBe('Paid');
    expect(pageText({ ...invoice, status: 'void', voided_at: '2026-12-04T09:00:00.000Z' }).fields.at(-1)).toEqual({
      label: 'Status',
      value: 'Void (cancelled on 4 December 2026)',
    });
  });
});
