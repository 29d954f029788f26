import PDFDocument from 'pdfkit';
import { ActionInputError, type JsonSchema, type ModuleDefinition } from '../types';

type Doc = PDFKit.PDFDocument;

const FONTS = {
  Helvetica: { regular: 'Helvetica', bold: 'Helvetica-Bold', italic: 'Helvetica-Oblique' },
  Times: { regular: 'Times-Roman', bold: 'Times-Bold', italic: 'Times-Italic' },
  Courier: { regular: 'Courier', bold: 'Courier-Bold', italic: 'Courier-Oblique' },
} as const;
type FontName = keyof typeof FONTS;

const MAX_PAGES = 500;

/** Characters the 14 standard PDF fonts can show (Windows-1252); others become "?". */
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
function toWinAnsi(text: string, counter: { replaced: number }): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n' || ch === '\t' || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || CP1252_EXTRA.has(ch)) out += ch;
    else if (ch === '\r') continue;
    else {
      out += '?';
      counter.replaced++;
    }
  }
  return out;
}

interface CommonInput {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  page_size?: 'A4' | 'LETTER' | 'LEGAL' | 'A5';
  landscape?: boolean;
  font?: FontName;
  font_size?: number;
  margin?: number;
  page_numbers?: boolean;
  creation_date?: string;
}

interface Rendered {
  pdf: string;
  pages: number;
  bytes: number;
  replaced_characters: number;
}

/** Builds a PDF with pdfkit and returns it as base64 with its page count. */
async function renderPdf(
  input: CommonInput,
  build: (doc: Doc, clean: (s: string) => string, fonts: (typeof FONTS)[FontName]) => void,
): Promise<Rendered> {
  let creationDate: Date | undefined;
  if (input.creation_date !== undefined) {
    creationDate = new Date(input.creation_date);
    if (Number.isNaN(creationDate.getTime())) throw new ActionInputError('creation_date is not a valid ISO 8601 date-time.');
  }
  const counter = { replaced: 0 };
  const clean = (s: string) => toWinAnsi(s, counter);
  const fonts = FONTS[input.font ?? 'Helvetica'];
  const doc = new PDFDocument({
    size: input.page_size ?? 'A4',
    layout: input.landscape ? 'landscape' : 'portrait',
    margin: input.margin ?? 56,
    bufferPages: true,
    compress: true,
    info: {
      ...(input.title && { Title: clean(input.title) }),
      ...(input.author && { Author: clean(input.author) }),
      ...(input.subject && { Subject: clean(input.subject) }),
      ...(input.keywords && { Keywords: clean(input.keywords) }),
      Producer: 'Agent Module Platform (PDFKit)',
      Creator: 'Agent Module Platform',
      ...(creationDate && { CreationDate: creationDate }),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  doc.font(fonts.regular).fontSize(input.font_size ?? 11);
  doc.on('pageAdded', () => {
    // Thrown out of the doc.text()/addPage() call that overflowed, i.e. out of build().
    if (doc.bufferedPageRange().count > MAX_PAGES) throw new ActionInputError(`The document would have more than ${MAX_PAGES} pages.`);
  });
  build(doc, clean, fonts);
  const { count } = doc.bufferedPageRange();
  if (input.page_numbers ?? true) {
    for (let i = 0; i < count; i++) {
      doc.switchToPage(i);
      const bottom = doc.page.margins.bottom;
      doc.page.margins.bottom = 0;
      doc
        .font(fonts.regular)
        .fontSize(9)
        .fillColor('#666666')
        .text(`${i + 1} / ${count}`, doc.page.margins.left, doc.page.height - bottom / 2 - 5, {
          width: doc.page.width - doc.page.margins.left - doc.page.margins.right,
          align: 'center',
          lineBreak: false,
        });
      doc.page.margins.bottom = bottom;
    }
  }
  doc.end();
  await finished;
  const pdf = Buffer.concat(chunks);
  return { pdf: pdf.toString('base64'), pages: count, bytes: pdf.length, replaced_characters: counter.replaced };
}

function heading(doc: Doc, text: string, size: number, font: string) {
  doc
    .font(font)
    .fontSize(size)
    .fillColor('#000000')
    .text(text, { paragraphGap: size * 0.4 });
}

interface TableInput {
  headers?: string[];
  rows: string[][];
}

function drawTable(doc: Doc, table: TableInput, clean: (s: string) => string, fonts: (typeof FONTS)[FontName], fontSize: number) {
  const width = Math.max(table.headers?.length ?? 0, ...table.rows.map((r) => r.length));
  if (width === 0) return;
  const pad = (r: string[]) => [...r.map((c) => clean(String(c))), ...Array<string>(width - r.length).fill('')];
  const data: (string | PDFKit.Mixins.CellOptions)[][] = [];
  if (table.headers?.length)
    data.push(pad(table.headers).map((text) => ({ text, font: { src: fonts.bold }, backgroundColor: '#eeeeee', type: 'TH' as const })));
  for (const row of table.rows) data.push(pad(row));
  doc.font(fonts.regular).fontSize(fontSize).fillColor('#000000');
  doc.moveDown(0.5);
  doc.table({ data, defaultStyle: { border: 0.5, borderColor: '#999999', padding: 4 } });
  doc.x = doc.page.margins.left;
  doc.moveDown(0.5);
}

const pdfOutput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['pdf', 'pages', 'bytes', 'replaced_characters'],
  properties: {
    pdf: { type: 'string', description: 'The PDF file, base64.' },
    pages: { type: 'integer', minimum: 1 },
    bytes: { type: 'integer' },
    replaced_characters: {
      type: 'integer',
      description: 'Characters outside Windows-1252 (e.g. CJK, emoji) that the standard fonts cannot show, printed as "?".',
    },
  },
};

const commonProperties = {
  title: { type: 'string', maxLength: 500, description: 'Document title (also shown as the heading where applicable).' },
  author: { type: 'string', maxLength: 200, description: 'Author metadata.' },
  subject: { type: 'string', maxLength: 500, description: 'Subject metadata.' },
  keywords: { type: 'string', maxLength: 500, description: 'Keywords metadata.' },
  page_size: { type: 'string', enum: ['A4', 'LETTER', 'LEGAL', 'A5'], default: 'A4', description: 'Paper size.' },
  landscape: { type: 'boolean', default: false, description: 'Landscape orientation.' },
  font: {
    type: 'string',
    enum: Object.keys(FONTS),
    default: 'Helvetica',
    description: 'Standard font family (Latin text; other scripts print as "?").',
  },
  font_size: { type: 'number', minimum: 6, maximum: 32, default: 11, description: 'Body text size in points.' },
  margin: { type: 'number', minimum: 18, maximum: 144, default: 56, description: 'Page margin in points (72 = 1 inch).' },
  page_numbers: { type: 'boolean', default: true, description: 'Print "n / total" at the bottom of each page.' },
  creation_date: {
    type: 'string',
    format: 'date-time',
    description: 'Creation date stored in the PDF (ISO 8601). Without it the current time is used, so the output differs between runs.',
  },
};

const tableSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rows'],
  description: 'A simple table: optional header row plus rows of cell texts.',
  properties: {
    headers: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 200 } },
    rows: { type: 'array', maxItems: 2000, items: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 2000 } } },
  },
};

const BLOCK_TYPES = ['heading', 'paragraph', 'list', 'table', 'page_break', 'code'] as const;

interface Block {
  type: (typeof BLOCK_TYPES)[number];
  text?: string;
  level?: number;
  items?: string[];
  ordered?: boolean;
  headers?: string[];
  rows?: string[][];
}

const pdf: ModuleDefinition = {
  name: 'pdf',
  version: '1.0.0',
  title: 'PDF documents',
  description:
    'Create PDF documents (PDFKit): reports from a title, paragraphs and a table; plain text to PDF; or structured documents with headings, lists, tables, code blocks and page breaks. Returns the PDF as base64 with its page count.',
  category: 'documents',
  tags: ['pdf', 'document', 'report', 'export', 'table', 'print', 'pdfkit'],
  actions: [
    {
      name: 'create',
      description:
        'Create a simple PDF report: a title, paragraphs of text and an optional table with a header row. Returns base64 PDF and the page count.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['paragraphs'],
        properties: {
          paragraphs: {
            type: 'array',
            maxItems: 2000,
            items: { type: 'string', maxLength: 20_000 },
            description: 'Body paragraphs, in order.',
          },
          table: tableSchema,
          ...commonProperties,
        },
      },
      outputSchema: pdfOutput,
      examples: [
        {
          input: {
            title: 'Invoice 42',
            paragraphs: ['Thank you for your order.'],
            table: { headers: ['Item', 'Qty'], rows: [['Widget', '2']] },
            creation_date: '2024-01-01T00:00:00Z',
          },
          output: {
            pdf: 'JVBERi0xLjMKJf////8KNyAwIG9iago8PAovVHlwZSAvUGFnZQovUGFyZW50IDEgMCBSCi9NZWRpYUJveCBbMCAwIDU5NS4yOCA4NDEuODldCi9Db250ZW50cyA1IDAgUgovUmVzb3VyY2VzIDYgMCBSCi9Vc2VyVW5pdCAxCj4+CmVuZG9iago2IDAgb2JqCjw8Ci9Qcm9jU2V0IFsvUERGIC9UZXh0IC9JbWFnZUIgL0ltYWdlQyAvSW1hZ2VJXQovRm9udCA8PAovRjIgOCAwIFIKL0YxIDkgMCBSCj4+Ci9Db2xvclNwYWNlIDw8Cj4+Cj4+CmVuZG9iago1IDAgb2JqCjw8Ci9MZW5ndGggMzkzCi9GaWx0ZXIgL0ZsYXRlRGVjb2RlCj4+CnN0cmVhbQp4nL1Uy2ocQQy891fUD6QtqdVSNyxzsGMHcghsdiCHkEs2s5CDDbbB/n0zLyezztpLnHigD6MuVKqSWgwC4R2DUJRjqdhehpP33d3Pbff5wym2t4EGyO32KlwH/hP8tJ3ijGxwp0hV0V6GkwuBCNpd+LrSal0DJazcGiTCynZWLVkWSpqkAX1D+zGct2H9ygI0RWIZC2AwjwVktWJsnX0X8tpAhhI8C9ljQS7Lu/6/j5padmmQCSvpjix17ybWtPxwXKhPlg3MFi0rRDmaQjhSxU0XdmEdrgPFjPvfGc82gaJhPpuzT88l2QxJjMBCIyClHsBpAnzB1UGle6xDvOd7uVlGcE4xpTJPy9wsra6W7cfC6vW/NVWqDxpfbewLiUZzEw3RtzV4Ij1gcmbXftr3LD52lpJH119yKTrbcpiUR8SkVWbEf5smqxJFy5On71ZNzS27/pXcucPPS55b/LayJ9YD0vcW65N9FRXzOW7BSimxlETEEIs5PTLWiZCFZCeUeEH8AEqRZKwKZW5kc3RyZWFtCmVuZG9iagoxMSAwIG9iagooQWdlbnQgTW9kdWxlIFBsYXRmb3JtIFwoUERGS2l0XCkpCmVuZG9iagoxMiAwIG9iagooQWdlbnQgTW9kdWxlIFBsYXRmb3JtKQplbmRvYmoKMTMgMCBvYmoKKEQ6MjAyNDAxMDEwMDAwMDBaKQplbmRvYmoKMTQgMCBvYmoKKEludm9pY2UgNDIpCmVuZG9iagoxMCAwIG9iago8PAovUHJvZHVjZXIgMTEgMCBSCi9DcmVhdG9yIDEyIDAgUgovQ3JlYXRpb25EYXRlIDEzIDAgUgovVGl0bGUgMTQgMCBSCj4+CmVuZG9iago5IDAgb2JqCjw8Ci9UeXBlIC9Gb250Ci9CYXNlRm9udCAvSGVsdmV0aWNhCi9TdWJ0eXBlIC9UeXBlMQovRW5jb2RpbmcgL1dpbkFuc2lFbmNvZGluZwo+PgplbmRvYmoKOCAwIG9iago8PAovVHlwZSAvRm9udAovQmFzZUZvbnQgL0hlbHZldGljYS1Cb2xkCi9TdWJ0eXBlIC9UeXBlMQovRW5jb2RpbmcgL1dpbkFuc2lFbmNvZGluZwo+PgplbmRvYmoKNCAwIG9iago8PAo+PgplbmRvYmoKMyAwIG9iago8PAovVHlwZSAvQ2F0YWxvZwovUGFnZXMgMSAwIFIKL05hbWVzIDIgMCBSCj4+CmVuZG9iagoxIDAgb2JqCjw8Ci9UeXBlIC9QYWdlcwovQ291bnQgMQovS2lkcyBbNyAwIFJdCj4+CmVuZG9iagoyIDAgb2JqCjw8Ci9EZXN0cyA8PAogIC9OYW1lcyBbCl0KPj4KPj4KZW5kb2JqCnhyZWYKMCAxNQowMDAwMDAwMDAwIDY1NTM1IGYgCjAwMDAwMDEyNDcgMDAwMDAgbiAKMDAwMDAwMTMwNCAwMDAwMCBuIAowMDAwMDAxMTg1IDAwMDAwIG4gCjAwMDAwMDExNjQgMDAwMDAgbiAKMDAwMDAwMDI1NCAwMDAwMCBuIAowMDAwMDAwMTM3IDAwMDAwIG4gCjAwMDAwMDAwMTUgMDAwMDAgbiAKMDAwMDAwMTA2MiAwMDAwMCBuIAowMDAwMDAwOTY1IDAwMDAwIG4gCjAwMDAwMDA4NzUgMDAwMDAgbiAKMDAwMDAwMDcxOSAwMDAwMCBuIAowMDAwMDAwNzcwIDAwMDAwIG4gCjAwMDAwMDA4MTAgMDAwMDAgbiAKMDAwMDAwMDg0NiAwMDAwMCBuIAp0cmFpbGVyCjw8Ci9TaXplIDE1Ci9Sb290IDMgMCBSCi9JbmZvIDEwIDAgUgovSUQgWzxlMzUwYjAxMWI4MDM5OTUzZDViYTZmZTAzMzFmNGFkMD4gPGUzNTBiMDExYjgwMzk5NTNkNWJhNmZlMDMzMWY0YWQwPl0KPj4Kc3RhcnR4cmVmCjEzNTEKJSVFT0YK',
            pages: 1,
            bytes: 1806,
            replaced_characters: 0,
          },
        },
      ],
      run(input: CommonInput & { paragraphs: string[]; table?: TableInput }) {
        return renderPdf(input, (doc, clean, fonts) => {
          const size = input.font_size ?? 11;
          if (input.title) heading(doc, clean(input.title), size * 2, fonts.bold);
          doc.font(fonts.regular).fontSize(size);
          for (const p of input.paragraphs)
            doc
              .font(fonts.regular)
              .fontSize(size)
              .fillColor('#000000')
              .text(clean(p), { paragraphGap: size * 0.6, align: 'left' });
          if (input.table) drawTable(doc, input.table, clean, fonts, size);
        });
      },
    },
    {
      name: 'text_to_pdf',
      description:
        'Turn plain text (line breaks kept, long lines wrapped) into a PDF, e.g. to export a log, a letter or a transcript. Courier keeps columns aligned.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: { type: 'string', maxLength: 500_000, description: 'The text; "\\n" starts a new line, "\\f" a new page.' },
          ...commonProperties,
          font: { ...commonProperties.font, default: 'Courier' },
          font_size: { ...commonProperties.font_size, default: 10 },
        },
      },
      outputSchema: pdfOutput,
      examples: [
        {
          input: { text: 'Hello, PDF!\nSecond line.', creation_date: '2024-01-01T00:00:00Z' },
          output: {
            pdf: 'JVBERi0xLjMKJf////8KNyAwIG9iago8PAovVHlwZSAvUGFnZQovUGFyZW50IDEgMCBSCi9NZWRpYUJveCBbMCAwIDU5NS4yOCA4NDEuODldCi9Db250ZW50cyA1IDAgUgovUmVzb3VyY2VzIDYgMCBSCi9Vc2VyVW5pdCAxCj4+CmVuZG9iago2IDAgb2JqCjw8Ci9Qcm9jU2V0IFsvUERGIC9UZXh0IC9JbWFnZUIgL0ltYWdlQyAvSW1hZ2VJXQovRm9udCA8PAovRjIgOCAwIFIKPj4KL0NvbG9yU3BhY2UgPDwKPj4KPj4KZW5kb2JqCjUgMCBvYmoKPDwKL0xlbmd0aCAxNzIKL0ZpbHRlciAvRmxhdGVEZWNvZGUKPj4Kc3RyZWFtCnicjY+9CgIxEIT7PMW+gHF3s5lLQCzEH7BT0olVyIHFCSL4/IJ6xYmFxTTD8DGfEBPTTIgpmfiUqQ5uvm6PS23H3Yrq3fFrcq9Xd3Pya74qn14ogroue1AZ3HyrJEyld6eFJURUVPRalSObGVSWxGcqe7cp7vAnHMlz/KbHgIiAHg2mjIqMhqhtwv+S8kZj/lPTZF6MmYW08yHk8UV+nwiirL1ymGo9AY6cS7YKZW5kc3RyZWFtCmVuZG9iagoxMCAwIG9iagooQWdlbnQgTW9kdWxlIFBsYXRmb3JtIFwoUERGS2l0XCkpCmVuZG9iagoxMSAwIG9iagooQWdlbnQgTW9kdWxlIFBsYXRmb3JtKQplbmRvYmoKMTIgMCBvYmoKKEQ6MjAyNDAxMDEwMDAwMDBaKQplbmRvYmoKOSAwIG9iago8PAovUHJvZHVjZXIgMTAgMCBSCi9DcmVhdG9yIDExIDAgUgovQ3JlYXRpb25EYXRlIDEyIDAgUgo+PgplbmRvYmoKOCAwIG9iago8PAovVHlwZSAvRm9udAovQmFzZUZvbnQgL0NvdXJpZXIKL1N1YnR5cGUgL1R5cGUxCi9FbmNvZGluZyAvV2luQW5zaUVuY29kaW5nCj4+CmVuZG9iago0IDAgb2JqCjw8Cj4+CmVuZG9iagozIDAgb2JqCjw8Ci9UeXBlIC9DYXRhbG9nCi9QYWdlcyAxIDAgUgovTmFtZXMgMiAwIFIKPj4KZW5kb2JqCjEgMCBvYmoKPDwKL1R5cGUgL1BhZ2VzCi9Db3VudCAxCi9LaWRzIFs3IDAgUl0KPj4KZW5kb2JqCjIgMCBvYmoKPDwKL0Rlc3RzIDw8CiAgL05hbWVzIFsKXQo+Pgo+PgplbmRvYmoKeHJlZgowIDEzCjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAwMDAwMDg2OCAwMDAwMCBuIAowMDAwMDAwOTI1IDAwMDAwIG4gCjAwMDAwMDA4MDYgMDAwMDAgbiAKMDAwMDAwMDc4NSAwMDAwMCBuIAowMDAwMDAwMjQ0IDAwMDAwIG4gCjAwMDAwMDAxMzcgMDAwMDAgbiAKMDAwMDAwMDAxNSAwMDAwMCBuIAowMDAwMDAwNjkwIDAwMDAwIG4gCjAwMDAwMDA2MTUgMDAwMDAgbiAKMDAwMDAwMDQ4OCAwMDAwMCBuIAowMDAwMDAwNTM5IDAwMDAwIG4gCjAwMDAwMDA1NzkgMDAwMDAgbiAKdHJhaWxlcgo8PAovU2l6ZSAxMwovUm9vdCAzIDAgUgovSW5mbyA5IDAgUgovSUQgWzw4MGQyMzllMTJmOTI3NTcxM2NlMTQzZTkwYzE4NjljMz4gPDgwZDIzOWUxMmY5Mjc1NzEzY2UxNDNlOTBjMTg2OWMzPl0KPj4Kc3RhcnR4cmVmCjk3MgolJUVPRgo=',
            pages: 1,
            bytes: 1385,
            replaced_characters: 0,
          },
        },
      ],
      run(input: CommonInput & { text: string }) {
        const options = { ...input, font: input.font ?? 'Courier', font_size: input.font_size ?? 10 };
        return renderPdf(options, (doc, clean, fonts) => {
          if (input.title) heading(doc, clean(input.title), options.font_size * 1.6, fonts.bold);
          doc.font(fonts.regular).fontSize(options.font_size).fillColor('#000000');
          input.text.split('\f').forEach((page, i) => {
            if (i > 0) doc.addPage();
            doc.text(clean(page.replace(/\t/g, '    ')), { lineGap: 1 });
          });
        });
      },
    },
    {
      name: 'create_document',
      description:
        'Create a structured PDF from a list of blocks: heading (level 1-3), paragraph, list (bulleted or numbered), table, code (monospace) and page_break. Use it to render a report an agent has composed.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['blocks'],
        properties: {
          blocks: {
            type: 'array',
            minItems: 1,
            maxItems: 5000,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['type'],
              properties: {
                type: { type: 'string', enum: BLOCK_TYPES },
                text: { type: 'string', maxLength: 50_000, description: 'heading, paragraph, code.' },
                level: { type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'heading level.' },
                items: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 5000 }, description: 'list items.' },
                ordered: { type: 'boolean', default: false, description: 'numbered list.' },
                headers: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 200 }, description: 'table header row.' },
                rows: {
                  type: 'array',
                  maxItems: 2000,
                  items: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 2000 } },
                  description: 'table rows.',
                },
              },
            },
          },
          ...commonProperties,
        },
      },
      outputSchema: pdfOutput,
      examples: [
        {
          input: {
            title: 'Weekly report',
            blocks: [
              { type: 'heading', text: 'Summary' },
              { type: 'paragraph', text: 'All systems nominal.' },
              { type: 'list', items: ['Uptime 99.9%', 'No incidents'] },
              { type: 'page_break' },
              { type: 'heading', text: 'Numbers', level: 2 },
              { type: 'table', headers: ['Metric', 'Value'], rows: [['Requests', '1200']] },
            ],
            creation_date: '2024-01-01T00:00:00Z',
          },
          output: {
            pdf: 'JVBERi0xLjMKJf////8KNyAwIG9iago8PAovVHlwZSAvUGFnZQovUGFyZW50IDEgMCBSCi9NZWRpYUJveCBbMCAwIDU5NS4yOCA4NDEuODldCi9Db250ZW50cyA1IDAgUgovUmVzb3VyY2VzIDYgMCBSCi9Vc2VyVW5pdCAxCj4+CmVuZG9iago2IDAgb2JqCjw8Ci9Qcm9jU2V0IFsvUERGIC9UZXh0IC9JbWFnZUIgL0ltYWdlQyAvSW1hZ2VJXQovRm9udCA8PAovRjIgOCAwIFIKL0YxIDkgMCBSCj4+Ci9Db2xvclNwYWNlIDw8Cj4+Cj4+CmVuZG9iago1IDAgb2JqCjw8Ci9MZW5ndGggNDAzCi9GaWx0ZXIgL0ZsYXRlRGVjb2RlCj4+CnN0cmVhbQp4nK2TzYrcQAyE7/0UeoHVSupWqQXDHJb8QG4Jcwu5xGOzOUwgLOT5w4w9P96EMJAcDK5Grip/lpWEhB6UhHpT7knDoTy+GX9+G8ZP759oeClyGnkZvpcfRf80/rRbzpUcFCEs2Wh3KI/vjMxoN5XPG48tVacNHI6vGLakTptIkzB4CKawLT2Y0CbaluQL7T6Ut7vy8R/bWDLsWkc7x1KohmOPPfQUrMfg/I/B4tzM51wl1Tm1KQYMJlEjo0aDYx/VBCMm7JEYoRhsvKuIg9SVe690mIUwEBmNHJy9He+0JaNX8s52EUPx5KYuhssZhNutxaJn/6EssrJkPz52Y+CN5ZKwiKHcVDgPYGWAG/fnMt3BFUHoYJV8zdU9JBoSe7hJzZo21jRfcTwmAhyZCy84e6+veKGxZy5vs4gVr+VsBnK1WPTsf+aFzqLtFS90zmvCLFa8zgNYGeDG/X5eoaxZf9vDEZPJad8qEsc9HKNF/dvecaPzdd9vYL0fP6+IkoG99nOLnEtUNbHJpNoq9hf1OPTDCmVuZHN0cmVhbQplbmRvYmoKMTIgMCBvYmoKPDwKL1R5cGUgL1BhZ2UKL1BhcmVudCAxIDAgUgovTWVkaWFCb3ggWzAgMCA1OTUuMjggODQxLjg5XQovQ29udGVudHMgMTAgMCBSCi9SZXNvdXJjZXMgMTEgMCBSCi9Vc2VyVW5pdCAxCj4+CmVuZG9iagoxMSAwIG9iago8PAovUHJvY1NldCBbL1BERiAvVGV4dCAvSW1hZ2VCIC9JbWFnZUMgL0ltYWdlSV0KL0ZvbnQgPDwKL0YyIDggMCBSCi9GMSA5IDAgUgo+PgovQ29sb3JTcGFjZSA8PAo+Pgo+PgplbmRvYmoKMTAgMCBvYmoKPDwKL0xlbmd0aCAzNTUKL0ZpbHRlciAvRmxhdGVEZWNvZGUKPj4Kc3RyZWFtCnicvZTPasJAEMbv+xTzAl1nZndndkE8aP9ADwVroIfSU4zQg4IV2tcviYk1sVFLWwN7mf2Yj+83syFAQLgiQIiebEyQL83gunh/zYvHuzHkG4OVZJOvzNrQd/JxVtcJgoAqWaQI2dIMbhkoWA/ZwjwPfaFB5sISlEdAAYbqRoAvkN2bm8xMj9h2bmxy7Q/OK5XNgkBCi+yAPVnxQMlqJHgrzMJMzdqgDfCx7ziZGbQCzZlNHo41mVVNBCH5rcC5SkCN4AlWvUk7rlW99DsNXhDUo9UQd+STTTX4uQT1ypKkDXz6t2g5aRn193hPNNoidliVL4u5Nu1FHWRUjmIoJLkGCQe4z9wuwmQj+r3s3nvf2i8it5XskjeS/9swRptU69i0F7t81FQGVqdeD7fsB1M/Fb0ewaXjN5PvQ+DIsUOHnejd5+WhOef9UDlGG6NDJGCxwX0Z17bMyAtGxy3jTwTbRUIKZW5kc3RyZWFtCmVuZG9iagoxNCAwIG9iagooQWdlbnQgTW9kdWxlIFBsYXRmb3JtIFwoUERGS2l0XCkpCmVuZG9iagoxNSAwIG9iagooQWdlbnQgTW9kdWxlIFBsYXRmb3JtKQplbmRvYmoKMTYgMCBvYmoKKEQ6MjAyNDAxMDEwMDAwMDBaKQplbmRvYmoKMTcgMCBvYmoKKFdlZWtseSByZXBvcnQpCmVuZG9iagoxMyAwIG9iago8PAovUHJvZHVjZXIgMTQgMCBSCi9DcmVhdG9yIDE1IDAgUgovQ3JlYXRpb25EYXRlIDE2IDAgUgovVGl0bGUgMTcgMCBSCj4+CmVuZG9iago5IDAgb2JqCjw8Ci9UeXBlIC9Gb250Ci9CYXNlRm9udCAvSGVsdmV0aWNhCi9TdWJ0eXBlIC9UeXBlMQovRW5jb2RpbmcgL1dpbkFuc2lFbmNvZGluZwo+PgplbmRvYmoKOCAwIG9iago8PAovVHlwZSAvRm9udAovQmFzZUZvbnQgL0hlbHZldGljYS1Cb2xkCi9TdWJ0eXBlIC9UeXBlMQovRW5jb2RpbmcgL1dpbkFuc2lFbmNvZGluZwo+PgplbmRvYmoKNCAwIG9iago8PAo+PgplbmRvYmoKMyAwIG9iago8PAovVHlwZSAvQ2F0YWxvZwovUGFnZXMgMSAwIFIKL05hbWVzIDIgMCBSCj4+CmVuZG9iagoxIDAgb2JqCjw8Ci9UeXBlIC9QYWdlcwovQ291bnQgMgovS2lkcyBbNyAwIFIgMTIgMCBSXQo+PgplbmRvYmoKMiAwIG9iago8PAovRGVzdHMgPDwKICAvTmFtZXMgWwpdCj4+Cj4+CmVuZG9iagp4cmVmCjAgMTgKMDAwMDAwMDAwMCA2NTUzNSBmIAowMDAwMDAxOTMxIDAwMDAwIG4gCjAwMDAwMDE5OTUgMDAwMDAgbiAKMDAwMDAwMTg2OSAwMDAwMCBuIAowMDAwMDAxODQ4IDAwMDAwIG4gCjAwMDAwMDAyNTQgMDAwMDAgbiAKMDAwMDAwMDEzNyAwMDAwMCBuIAowMDAwMDAwMDE1IDAwMDAwIG4gCjAwMDAwMDE3NDYgMDAwMDAgbiAKMDAwMDAwMTY0OSAwMDAwMCBuIAowMDAwMDAwOTcyIDAwMDAwIG4gCjAwMDAwMDA4NTQgMDAwMDAgbiAKMDAwMDAwMDcyOSAwMDAwMCBuIAowMDAwMDAxNTU5IDAwMDAwIG4gCjAwMDAwMDE0MDAgMDAwMDAgbiAKMDAwMDAwMTQ1MSAwMDAwMCBuIAowMDAwMDAxNDkxIDAwMDAwIG4gCjAwMDAwMDE1MjcgMDAwMDAgbiAKdHJhaWxlcgo8PAovU2l6ZSAxOAovUm9vdCAzIDAgUgovSW5mbyAxMyAwIFIKL0lEIFs8MzcwNjQ3ZWU1YWNiZGIxODRmMTQ0MmRkNTMyOGQ5NGQ+IDwzNzA2NDdlZTVhY2JkYjE4NGYxNDQyZGQ1MzI4ZDk0ZD5dCj4+CnN0YXJ0eHJlZgoyMDQyCiUlRU9GCg==',
            pages: 2,
            bytes: 2557,
            replaced_characters: 0,
          },
        },
      ],
      run(input: CommonInput & { blocks: Block[] }) {
        return renderPdf(input, (doc, clean, fonts) => {
          const size = input.font_size ?? 11;
          const body = () => doc.font(fonts.regular).fontSize(size).fillColor('#000000');
          if (input.title) heading(doc, clean(input.title), size * 2, fonts.bold);
          for (const block of input.blocks) {
            switch (block.type) {
              case 'heading':
                doc.moveDown(0.3);
                heading(doc, clean(block.text ?? ''), size * [1.7, 1.4, 1.2][(block.level ?? 1) - 1]!, fonts.bold);
                break;
              case 'paragraph':
                body().text(clean(block.text ?? ''), { paragraphGap: size * 0.6 });
                break;
              case 'list':
                body().list(
                  (block.items ?? []).map((item) => clean(item)),
                  { listType: block.ordered ? 'numbered' : 'bullet', bulletRadius: size / 5, textIndent: size, paragraphGap: size * 0.2 },
                );
                doc.moveDown(0.5);
                break;
              case 'code':
                doc
                  .font(FONTS.Courier.regular)
                  .fontSize(size * 0.9)
                  .fillColor('#222222')
                  .text(clean((block.text ?? '').replace(/\t/g, '    ')), { paragraphGap: size * 0.6 });
                break;
              case 'table':
                drawTable(doc, { headers: block.headers, rows: block.rows ?? [] }, clean, fonts, size * 0.9);
                break;
              case 'page_break':
                doc.addPage();
                break;
            }
          }
        });
      },
    },
  ],
};

export default pdf;
