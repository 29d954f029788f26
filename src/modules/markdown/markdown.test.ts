import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('markdown edge cases', () => {
  it('to_html removes dangerous HTML and URLs', () => {
    const { html } = run('to_html', {
      markdown:
        '[x](javascript:alert(1)) <img src=x onerror=alert(1)> <iframe src="https://evil"></iframe>\n\n<a href="data:text/html,hi" onclick="x()">d</a> <style>body{}</style>',
    });
    expect(html).not.toMatch(/javascript:|onerror|onclick|<iframe|<style|data:/i);
  });

  it('from_html handles empty input and drops scripts', () => {
    expect(run('from_html', { html: '' }).markdown).toBe('');
    expect(run('from_html', { html: '<p>a</p><style>p{}</style><script>b</script>' }).markdown).toBe('a');
  });

  it('headings dedupe slugs and handle an empty document', () => {
    expect(run('extract_headings', { markdown: '' }).headings).toEqual([]);
    expect(run('extract_headings', { markdown: '# A\n# A' }).headings.map((h: any) => h.slug)).toEqual(['a', 'a-1']);
    expect(run('toc', { markdown: 'no headings' })).toEqual({ toc: '', entries: 0 });
  });

  it('extract_links finds links inside lists and tables and can dedupe', () => {
    const md = '- [a](https://a.io)\n\n| x |\n|---|\n| [b](https://a.io) |';
    expect(run('extract_links', { markdown: md }).count).toBe(2);
    expect(run('extract_links', { markdown: md, unique: true }).count).toBe(1);
  });

  it('strip handles tables and code', () => {
    expect(run('strip', { markdown: '| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nx = 1\n```' }).text).toBe('a\tb\n1\t2\n\nx = 1');
  });
});
