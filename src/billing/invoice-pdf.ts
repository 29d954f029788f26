import type { InvoiceView } from './invoice-schema';

export interface InvoiceCustomer {
  name: string;
  email: string;
}

/** Characters beyond Latin-1 that the standard PDF fonts (WinAnsi encoding) can still draw. */
const WIN_ANSI_EXTRA = new Set([
  0x192, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c, 0x201d, 0x201e, 0x2020, 0x2021, 0x2022, 0x2026, 0x20ac, 0x2030, 0x2039, 0x203a,
  0x2c6, 0x2122, 0x152, 0x153, 0x2dc, 0x160, 0x161, 0x178, 0x17d, 0x17e,
]);

/**
 * Text the built-in Helvetica can draw: anything else (other scripts, emoji, control characters)
 * becomes `?` instead of garbled glyphs. Tenant names are free text.
 */
export function drawable(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    out += (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRA.has(c) ? ch : '?';
  }
  return out;
}

const day = (iso: string) => new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The last day of a period whose end is exclusive (the first instant of the next cycle). */
const lastDay = (endExclusive: string) => day(new Date(new Date(endExclusive).getTime() - 1).toISOString());

/**
 * Renders an invoice as a one-page (or longer) A4 PDF: the issuer, the tenant, number, period and
 * status, the lines as a table, subtotal and total. Pure: the same invoice gives the same content
 * (pdfkit stamps its own creation date in the metadata).
 */
export async function renderInvoicePdf(invoice: InvoiceView, customer: InvoiceCustomer): Promise<Buffer> {
  // Loaded on the first invoice PDF, not at start-up: pdfkit and its fonts are a few MB of heap.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `Invoice ${invoice.number}`, Author: 'Agent Module Platform', Subject: `Invoice ${invoice.number}` },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const width = right - left;

  doc.font('Helvetica-Bold').fontSize(20).text('Invoice', left, 50);
  doc.font('Helvetica').fontSize(10).text('Agent Module Platform', left, 50, { width, align: 'right' });
  doc.moveDown(2);

  const field = (label: string, value: string) => {
    const y = doc.y;
    doc.font('Helvetica-Bold').text(label, left, y, { width: 110 });
    doc.font('Helvetica').text(drawable(value), left + 110, y, { width: width - 110 });
    doc.moveDown(0.2);
  };
  field('Invoice number', invoice.number);
  field('Billed to', customer.name || invoice.tenant_id);
  if (customer.email) field('Contact', customer.email);
  field('Tenant', invoice.tenant_id);
  field('Period', `${day(invoice.period_start)} – ${lastDay(invoice.period_end)}`);
  field('Issued', day(invoice.created_at));
  field(
    'Status',
    invoice.status === 'paid' && invoice.paid_at ? `paid (${day(invoice.paid_at)})` : invoice.status === 'void' ? 'void' : 'open',
  );
  field('Currency', invoice.currency.toUpperCase());
  doc.moveDown(1.5);

  // The lines: description | quantity | unit price | amount.
  const cols = { description: left, quantity: left + 270, unit: left + 330, amount: left + 415 };
  const header = doc.y;
  doc.font('Helvetica-Bold');
  doc.text('Description', cols.description, header, { width: 265 });
  doc.text('Qty', cols.quantity, header, { width: 55, align: 'right' });
  doc.text('Unit (USD)', cols.unit, header, { width: 80, align: 'right' });
  doc.text('Amount (USD)', cols.amount, header, { width: right - cols.amount, align: 'right' });
  doc
    .moveTo(left, doc.y + 4)
    .lineTo(right, doc.y + 4)
    .stroke();
  doc.moveDown(0.8);
  doc.font('Helvetica');
  for (const line of invoice.lines) {
    if (doc.y > doc.page.height - doc.page.margins.bottom - 80) doc.addPage();
    const y = doc.y;
    doc.text(drawable(line.description), cols.description, y, { width: 265 });
    const bottom = doc.y;
    doc.text(String(line.quantity), cols.quantity, y, { width: 55, align: 'right' });
    doc.text(line.unit_amount_usd, cols.unit, y, { width: 80, align: 'right' });
    doc.text(line.amount_usd, cols.amount, y, { width: right - cols.amount, align: 'right' });
    doc.y = Math.max(bottom, doc.y);
    doc.moveDown(0.4);
  }
  doc.moveTo(left, doc.y).lineTo(right, doc.y).stroke();
  doc.moveDown(0.6);

  const total = (label: string, value: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, cols.unit - 60, y, { width: 140, align: 'right' });
    doc.text(value, cols.amount, y, { width: right - cols.amount, align: 'right' });
    doc.moveDown(0.3);
  };
  total('Subtotal', invoice.subtotal_usd);
  total('Tax', '0.00');
  total('Total (USD)', invoice.total_usd, true);

  doc.moveDown(2);
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor('#555555')
    .text(
      `Invoice ${invoice.id}. Amounts in US dollars; the period ends before ${new Date(invoice.period_end).toISOString()}.`,
      left,
      doc.y,
      { width },
    );
  doc.end();
  return done;
}
