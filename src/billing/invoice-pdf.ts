import { invoiceDocument } from '../contract/invoice-document';
import type { InvoiceView } from './invoice-schema';

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

/**
 * Renders an invoice as an A4 PDF from its document (src/contract/invoice-document.ts, which the
 * dashboard's invoice page renders too): the issuer and the status, the fields, the lines as a table, the
 * totals and the note. Pure: the same invoice gives the same content (pdfkit stamps its own
 * creation date in the metadata).
 */
export async function renderInvoicePdf(invoice: InvoiceView): Promise<Buffer> {
  const document = invoiceDocument(invoice);
  // Loaded on the first invoice PDF, not at start-up: pdfkit and its fonts are a few MB of heap.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: document.title, Author: document.issuer, Subject: document.title },
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
  doc.font('Helvetica').fontSize(10).text(document.issuer, left, 50, { width, align: 'right' });
  // The status in one word under the issuer, where the page shows its badge.
  doc.font('Helvetica-Bold').text(document.statusLabel, left, doc.y + 2, { width, align: 'right' });
  doc.moveDown(2);

  for (const { label, value } of document.fields) {
    const y = doc.y;
    doc.font('Helvetica-Bold').text(label, left, y, { width: 110 });
    doc.font('Helvetica').text(drawable(value), left + 110, y, { width: width - 110 });
    doc.moveDown(0.2);
  }
  doc.moveDown(1.5);

  // The lines: description | quantity | unit price | amount.
  const cols = { description: left, quantity: left + 250, unit: left + 320, amount: left + 405 };
  const header = doc.y;
  doc.font('Helvetica-Bold');
  doc.text('Description', cols.description, header, { width: 245 });
  doc.text('Quantity', cols.quantity, header, { width: 65, align: 'right' });
  doc.text('Unit price', cols.unit, header, { width: 80, align: 'right' });
  doc.text('Amount', cols.amount, header, { width: right - cols.amount, align: 'right' });
  doc
    .moveTo(left, doc.y + 4)
    .lineTo(right, doc.y + 4)
    .stroke();
  doc.moveDown(0.8);
  doc.font('Helvetica');
  for (const line of document.lines) {
    if (doc.y > doc.page.height - doc.page.margins.bottom - 80) doc.addPage();
    const y = doc.y;
    doc.text(drawable(line.description), cols.description, y, { width: 245 });
    const bottom = doc.y;
    doc.text(line.quantity, cols.quantity, y, { width: 65, align: 'right' });
    doc.text(line.unitPrice, cols.unit, y, { width: 80, align: 'right' });
    doc.text(line.amount, cols.amount, y, { width: right - cols.amount, align: 'right' });
    doc.y = Math.max(bottom, doc.y);
    doc.moveDown(0.4);
  }
  doc.moveTo(left, doc.y).lineTo(right, doc.y).stroke();
  doc.moveDown(0.6);

  document.totals.forEach(({ label, value }, i) => {
    const last = i === document.totals.length - 1;
    const y = doc.y;
    doc.font(last ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, cols.unit - 60, y, { width: 140, align: 'right' });
    doc.text(value, cols.amount, y, { width: right - cols.amount, align: 'right' });
    doc.moveDown(0.3);
  });

  doc.moveDown(2);
  doc.font('Helvetica').fontSize(8).fillColor('#555555').text(drawable(document.note), left, doc.y, { width });
  doc.end();
  return done;
}
