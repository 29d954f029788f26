import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { invoiceDocument } from '../contract/invoice-document';
import type { InvoiceView } from './invoice-schema';
import { drawable, renderInvoicePdf } from './invoice-pdf';

const invoice: InvoiceView = {
  id: 'inv_0123456789abcdefghij',
  number: 'AMP-ABCDEF12-0003',
  tenant_id: 'abcdef12-3456-4789-8abc-def012345678',
  billed_to: { name: 'Acme research agent', email: 'owner@acme.test' },
  status: 'open',
  currency: 'usd',
  period_start: '2026-11-01T00:00:00.000Z',
  period_end: '2026-12-01T00:00:00.000Z',
  lines: [
    { description: 'Free plan, 1 Nov – 10 Nov (10 of 30 days)', quantity: 1, unit_amount_usd: '0.00', amount_usd: '0.00' },
    { description: 'Pro plan, 11 Nov – 30 Nov (20 of 30 days)', quantity: 1, unit_amount_usd: '19.33', amount_usd: '19.33' },
    { description: 'Overage: 250 executions × 0.001 USD', quantity: 250, unit_amount_usd: '0.001', amount_usd: '0.25' },
  ],
  subtotal_usd: '19.58',
  total_usd: '19.58',
  created_at: '2026-12-01T00:07:00.000Z',
  due_at: '2026-12-15T00:07:00.000Z',
  paid_at: null,
  voided_at: null,
  pdf_url: '/api/v1/billing/invoices/inv_0123456789abcdefghij.pdf',
};

async function text(pdf: Buffer): Promise<string> {
  const { text: t } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
  return t;
}

describe('renderInvoicePdf', () => {
  it('renders a PDF with the tenant, number, period, due date, every line, the totals and the status in words', async () => {
    const pdf = await renderInvoicePdf(invoice);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const t = (await text(pdf)).replace(/\s+/g, ' ');
    for (const s of [
      'Invoice',
      'AMP-ABCDEF12-0003',
      'Acme research agent',
      'owner@acme.test',
      '1 November 2026',
      '30 November 2026',
      'Due',
      'Payment terms Net 14 (due 14 days after the issue date)',
      'Due 15 December 2026',
      'Open: due 15 December 2026',
      '19.58',
      '0.001',
      'Overage: 250 executions × 0.001 USD',
      'Pro plan, 11 Nov – 30 Nov (20 of 30 days)',
    ]) {
      expect(t).toContain(s);
    }
  });

  it('a paid invoice says when; text outside the standard fonts becomes ? instead of garbage', async () => {
    const t = await text(
      await renderInvoicePdf({
        ...invoice,
        status: 'paid',
        paid_at: '2026-12-03T10:00:00.000Z',
        billed_to: { name: 'Agent 日本 émile', email: 'a@b.test' },
      }),
    );
    expect(t).toContain('Paid on 3 December 2026');
    expect(t).toContain('Agent ?? émile');
  });

  it('every field, line and total of the invoice document is in the PDF, and no raw timestamp', async () => {
    const t = (await text(await renderInvoicePdf(invoice))).replace(/\s+/g, ' ');
    const document = invoiceDocument(invoice);
    for (const { label, value } of [...document.fields, ...document.totals]) expect(t).toContain(`${label} ${value}`);
    for (const line of document.lines) expect(t).toContain(line.description);
    expect(t).toContain('Payment is due within 14 days of the issue date.');
    expect(t).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it('drawable keeps Latin-1 and the WinAnsi extras, replaces the rest', () => {
    expect(drawable('café – “ok” € ×')).toBe('café – “ok” € ×');
    expect(drawable('a\u0000b😀c\u4e2d')).toBe('a?b?c?');
  });
});
