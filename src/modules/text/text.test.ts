import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import validator from 'validator';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('text edge cases', () => {
  it('change_case handles every case', () => {
    expect(run('change_case', { text: 'foo bar baz', to: 'constant' }).result).toBe('FOO_BAR_BAZ');
    expect(run('change_case', { text: 'fooBarBaz', to: 'kebab' }).result).toBe('foo-bar-baz');
    expect(run('change_case', { text: 'foo_bar', to: 'pascal' }).result).toBe('FooBar');
    expect(run('change_case', { text: '', to: 'camel' }).result).toBe('');
  });

  it('slugify of only symbols is empty', () => {
    expect(run('slugify', { text: '!!!' }).slug).toBe('');
  });

  it('extract_emails ignores invalid candidates and respects max_results', () => {
    expect(run('extract_emails', { text: 'x@y a@b.c d@e.fr f@g.de', max_results: 1 }).emails).toEqual(['d@e.fr']);
    expect(run('extract_emails', { text: 'A@x.io a@x.io', unique: false, lowercase: true }).emails).toEqual(['a@x.io', 'a@x.io']);
  });

  it('extract_emails finds what one regex over the text found, on any text', () => {
    const regex = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
    const pieces = ['a', 'Z', '9', '.', '-', "'", '+', '%', '_', '@', ' ', ',', 'é', '𝒜', '日', 'x.io', 'b.co', '\n'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => {
        const text = parts.join('');
        const expected = [...text.matchAll(regex)].map((m) => m[0].replace(/^[.'-]+|[.'-]+$/g, '')).filter((e) => validator.isEmail(e));
        expect(run('extract_emails', { text, unique: false, max_results: 10_000 }).emails).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('extract_emails reads a long run of letters once (it re-read it from every start before)', () => {
    const text = `${'x'.repeat(400_000)} then ann@example.com and ${'y'.repeat(300_000)}@ nothing, ${'@'.repeat(200_000)} bo@example.org`;
    expect(run('extract_emails', { text }).emails).toEqual(['ann@example.com', 'bo@example.org']);
  });

  it('extract_urls trims punctuation and ignores non-URLs', () => {
    expect(run('extract_urls', { text: 'Go to https://a.io/x, then "https://b.io".' }).urls.map((u: any) => u.url)).toEqual([
      'https://a.io/x',
      'https://b.io',
    ]);
    expect(run('extract_urls', { text: 'no links here' }).count).toBe(0);
  });

  it('word_count of empty text is all zeros', () => {
    expect(run('word_count', { text: '' })).toEqual({
      words: 0,
      characters: 0,
      characters_no_spaces: 0,
      sentences: 0,
      paragraphs: 0,
      lines: 0,
      reading_time_seconds: 0,
      reading_time_minutes: 0,
    });
  });

  it('diff of identical texts', () => {
    const out = run('diff', { old: 'a\n', new: 'a\n' });
    expect(out.identical).toBe(true);
    expect(out.patch).toBe('');
  });

  it('truncate leaves short text alone and never splits emoji', () => {
    expect(run('truncate', { text: 'short', max_length: 10 })).toEqual({ result: 'short', truncated: false, length: 5 });
    expect(run('truncate', { text: '👍🏽👍🏽👍🏽👍🏽', max_length: 3, ending: '…', word_boundary: false }).result).toBe('👍🏽👍🏽…');
    expect(run('truncate', { text: 'abcdef', max_length: 2, ending: '...' }).result).toBe('..');
  });

  it('replace keeps $ literal in literal mode and rejects a bad regex', () => {
    expect(run('replace', { text: 'price: X', find: 'X', replacement: '$1.00' }).result).toBe('price: $1.00');
    expect(run('replace', { text: 'aaa', find: 'a', replacement: 'b', all: false })).toEqual({ result: 'baa', replacements: 1 });
    expect(() => run('replace', { text: 'x', find: '(', replacement: '', regex: true })).toThrow(ActionInputError);
  });
});
