import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};
const text = (b64: string) => Buffer.from(b64, 'base64').toString('latin1');

describe('pdf edge cases', () => {
  it('produces a real PDF with metadata and a fixed creation date', async () => {
    const out = await action('create')({ title: 'Q3', author: 'Ops', paragraphs: ['One', 'Two'], creation_date: '2024-05-06T07:08:09Z' });
    const raw = text(out.pdf);
    expect(raw.startsWith('%PDF-1.')).toBe(true);
    expect(raw.trimEnd().endsWith('%%EOF')).toBe(true);
    expect(raw).toMatch(/\/CreationDate \d+ 0 R/);
    expect(raw).toContain('(D:20240506070809Z)');
    expect(raw).toContain('(Q3)');
    expect(out.bytes).toBe(Buffer.from(out.pdf, 'base64').length);
  });

  it('is identical for identical input with a creation date, different without', async () => {
    const input = { paragraphs: ['x'], creation_date: '2024-01-01T00:00:00Z' };
    expect(await action('create')(input)).toEqual(await action('create')(input));
    const a = await action('create')({ paragraphs: ['x'] });
    expect(a.pages).toBe(1);
  });

  it('long text flows over several pages; form feeds break pages', async () => {
    const long = await action('text_to_pdf')({ text: Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n') });
    expect(long.pages).toBeGreaterThan(3);
    const ff = await action('text_to_pdf')({ text: 'page one\fpage two\fpage three' });
    expect(ff.pages).toBe(3);
  });

  it('counts characters the standard fonts cannot show', async () => {
    const out = await action('create')({ paragraphs: ['café € “ok” 世界 😀'] });
    expect(out.replaced_characters).toBe(3);
  });

  it('tables with ragged rows and many rows span pages', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => [`row ${i}`, String(i * 2), i % 2 ? 'odd' : '']);
    const out = await action('create_document')({
      blocks: [
        { type: 'table', headers: ['Name', 'Double'], rows },
        { type: 'code', text: 'const x = 1;\n\tindent' },
        { type: 'list', ordered: true, items: ['a', 'b'] },
      ],
    });
    expect(out.pages).toBeGreaterThan(1);
  });

  it('refuses a bad creation date and runaway page counts', async () => {
    await expect(action('create')({ paragraphs: ['x'], creation_date: 'yesterday' })).rejects.toBeInstanceOf(ActionInputError);
    const blocks = Array.from({ length: 501 }, () => ({ type: 'page_break' }));
    await expect(action('create_document')({ blocks })).rejects.toThrow(/500 pages/);
  });
});
