import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOnce, encodeJson, isChecked, markChecked, markTrusted } from './checked-output';

const item = z.object({ name: z.string(), tags: z.array(z.string()), score: z.number() });

describe('outputs checked once', () => {
  it('parses as the output parser would (unknown keys stripped, wrong types refused), then freezes and marks', () => {
    const value = checkOnce(item, { name: 'a', tags: ['x'], score: 1, secret: 'internal' });
    expect(value).toEqual({ name: 'a', tags: ['x'], score: 1 });
    expect(Object.isFrozen(value) && Object.isFrozen(value.tags)).toBe(true);
    expect(isChecked(value)).toBe(true);
    expect(() => checkOnce(item, { name: 'a', tags: [], score: 'high' })).toThrow();
  });

  it('encodes a checked envelope exactly as JSON.stringify does, reusing the parts texts', () => {
    const parts = [
      checkOnce(item, { name: 'b"\u2028', tags: ['é', '😀'], score: 0.5 }),
      checkOnce(item, { name: 'c', tags: [], score: -0 }),
    ];
    const envelope = markChecked({
      data: parts,
      has_more: false,
      next_cursor: null,
      skipped: undefined,
      nested: { at: new Date(0), list: [1, undefined, 'x', () => 1], deep: { n: 2 } },
      total: 2,
    });
    expect(encodeJson(envelope).toString()).toBe(JSON.stringify(envelope));
    expect(encodeJson(envelope).equals(encodeJson(envelope))).toBe(true);
    expect(encodeJson(parts[0]).toString()).toBe(JSON.stringify(parts[0]));
    const sparse = markChecked({ first: undefined, list: [undefined, parts[1], () => 1], last: () => 1, symbol: Symbol('s') });
    expect(encodeJson(sparse).toString()).toBe(JSON.stringify(sparse));
    expect(encodeJson(markChecked([undefined, 1])).toString()).toBe('[null,1]');
  });

  it('leaves every other value to JSON.stringify', () => {
    const plain = { a: 1, b: [checkOnce(item, { name: 'd', tags: [], score: 2 })] };
    expect(isChecked(plain)).toBe(false);
    expect(encodeJson(plain).toString()).toBe(JSON.stringify(plain));
    expect(encodeJson('text').toString()).toBe('"text"');
    expect(encodeJson(null).toString()).toBe('null');
    expect(encodeJson({ text: 'é😀\u2028' }).toString('utf8')).toBe(JSON.stringify({ text: 'é😀\u2028' }));
  });

  it('skips the output parser for a trusted value and encodes it as JSON.stringify does', () => {
    const value = markTrusted({ id: 'exe_1', output: { nested: [1, 'é'], checked: checkOnce(item, { name: 'e', tags: [], score: 3 }) } });
    expect(isChecked(value)).toBe(true);
    expect(encodeJson(value).toString()).toBe(JSON.stringify(value));
  });
});
