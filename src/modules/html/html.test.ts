import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('html edge cases', () => {
  it('select rejects an invalid selector and honours limit', () => {
    expect(() => run('select', { html: '<p>x</p>', selector: 'p[' })).toThrow(ActionInputError);
    const out = run('select', { html: '<p>1</p><p>2</p><p>3</p>', selector: 'p', limit: 2 });
    expect(out.count).toBe(3);
    expect(out.matches).toHaveLength(2);
  });

  it('text of a selector, tables and hidden content; truncation', () => {
    const html =
      '<div><main><p>Keep <span style="display:none">no</span>this</p><table><tr><td>a</td><td>b</td></tr></table></main><footer>x</footer></div>';
    expect(run('text', { html, selector: 'main' }).text).toBe('Keep this\n\na\tb');
    expect(run('text', { html: '<p>abcdef</p>', max_length: 3 })).toEqual({ text: 'abc', length: 3, truncated: true });
    expect(run('text', { html: '' }).text).toBe('');
  });

  it('links: <base href> is honoured and a selector restricts the scope', () => {
    const html = '<head><base href="https://cdn.example.com/x/"></head><nav><a href="a">A</a></nav><main><a href="b">B</a></main>';
    expect(run('links', { html }).links).toEqual([
      { url: 'https://cdn.example.com/x/a', text: 'A', internal: true },
      { url: 'https://cdn.example.com/x/b', text: 'B', internal: true },
    ]);
    expect(run('links', { html, selector: 'main' }).links.map((l: any) => l.url)).toEqual(['https://cdn.example.com/x/b']);
  });

  it('meta of an empty document', () => {
    expect(run('meta', { html: '' })).toEqual({
      title: null,
      description: null,
      canonical: null,
      lang: null,
      keywords: [],
      robots: null,
      icon: null,
      open_graph: {},
      twitter: {},
    });
  });

  it('tables ignores nested tables rows and pads ragged rows', () => {
    const html = '<table><tr><td>a</td><td><table><tr><td>inner</td></tr></table></td></tr><tr><td>only</td></tr></table>';
    const out = run('tables', { html, selector: 'body > table' });
    expect(out.tables[0].rows).toEqual([
      ['a', 'inner'],
      ['only', ''],
    ]);
  });
});
