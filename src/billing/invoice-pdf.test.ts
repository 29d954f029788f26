import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type { InvoiceView } from './invoice-schema';
import { drawable, renderInvoicePdf } from './invoice-pdf';

const invoice: InvoiceView = {
  id: 'inv_0123456789abcdefghij',
  number: 'AMP-ABCDEF12-0003',
  tenant_id: 'abcdef12-3456-4789-8abc-def012345678',
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
  paid_at: null,
  voided_at: null,
  pdf_url: '/api/v1/billing/invoices/inv_0123456789abcdefghij.pdf',
};

async function text(pdf: Buffer): Promise<string> {
  const { text: t } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
  return t;
}

describe('renderInvoicePdf', () => {
  it('renders a PDF with the tenant, number, period, every line, the totals and the status', async () => {
    const pdf = await renderInvoicePdf(invoice, { name: 'Acme research agent', email: 'owner@acme.test' });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const t = await text(pdf);
    for (const s of [
      'Invoice',
      'AMP-ABCDEF12-0003',
      'Acme research agent',
      'owner@acme.test',
      '1 November 2026',
      '30 November 2026',
      'open',
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
      await renderInvoicePdf({ ...invoice, status: 'paid', paid_at: '2026-12-03T10:00:00.000Z' }, { name: 'Agent 日本 émile', email: '' }),
    );
    expect(t).toContain('paid (3 December 2026)');
    expect(t).toContain('Agent ?? émile');
  });

  it('drawable keeps Latin-1 and the WinAnsi extras, replaces the rest', () => {
    expect(drawable('café – “ok” € ×')).toBe('café – “ok” € ×');
    expect(drawable('a\u0000b😀c\u4e2d')).toBe('a?b?c?');
  });
});
