import { describe, expect, it } from 'vitest';
import { findUnstorable, isStorableText, storableJson } from './storable';

describe('storable text', () => {
  it('finds NUL and unpaired surrogates, in values and keys, with their path', () => {
    expect(isStorableText('plain 😀')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('half \ud83d')).toBe(false);
    expect(isStorableText('\ude00 low')).toBe(false);
    expect(findUnstorable({ a: [1, { b: 'x\u0000' }] })).toBe('a.1.b');
    expect(findUnstorable({ ['k\ud800']: 1 })).toBe('k\ud800');
    expect(findUnstorable({ a: 'fine', n: 1, z: null })).toBeUndefined();
    expect(findUnstorable('x\u0000')).toBe('');
  });

  it('tells text that spells an escape out from the character, and skips what JSON does not store', () => {
    expect(findUnstorable({ a: '\\u0000 and \\ud800 as text' })).toBeUndefined();
    expect(findUnstorable({ a: '\\u0000 as text', b: ['\ud800'] })).toBe('b.0');
    expect(findUnstorable({ ['k\u0000']: undefined, f: () => 1 })).toBeUndefined();
    const cyclic: Record<string, unknown> = { a: 'x\u0000' };
    cyclic.self = cyclic;
    expect(findUnstorable(cyclic)).toBe('a');
  });

  it('replaces them with U+FFFD for storage and leaves clean values untouched (same object)', () => {
    const clean = { a: 'ok 😀', b: [1, 'x'] };
    expect(storableJson(clean)).toBe(clean);
    expect(storableJson({ t: 'a\u0000b', l: ['\ud83d!'], ['k\u0000']: 1 })).toEqual({ t: 'a\uFFFDb', l: ['\uFFFD!'], ['k\uFFFD']: 1 });
    expect(JSON.stringify(storableJson('\udc00\ud83d\ude00'))).toBe('"\uFFFD😀"');
  });
});

describe('storable text at any depth', () => {
  const deep = (n: number, leaf: unknown) => {
    let v: unknown = leaf;
    for (let i = 0; i < n; i++) v = i % 2 ? { k: v } : [v];
    return v;
  };

  it('walks 100,000 levels without exhausting the stack', () => {
    expect(findUnstorable(deep(100_000, 'fine'))).toBeUndefined();
    const at = findUnstorable(deep(100_000, 'bad\u0000'));
    expect(at?.split('.').length).toBe(100_000);
    let copy = storableJson(deep(100_000, 'x\u0000'), '"\\u0000"') as unknown;
    while (typeof copy === 'object' && copy !== null) copy = Array.isArray(copy) ? copy[0] : (copy as { k: unknown }).k;
    expect(copy).toBe('x\uFFFD');
  });

  it('reports the first bad key or value in document order', () => {
    expect(findUnstorable({ a: { x: 'bad\u0000' }, ['b\u0000']: 1 })).toBe('a.x');
    expect(findUnstorable({ ['a\u0000']: { x: 'bad\u0000' } })).toBe('a\u0000');
    expect(storableJson({ b: 1, a: ['\u0000'], ['c\u0000']: { d: '\ud800' } })).toEqual({
      b: 1,
      a: ['\uFFFD'],
      ['c\uFFFD']: { d: '\uFFFD' },
    });
    expect(Object.keys(storableJson({ b: 1, a: '\u0000', c: 2 }) as object)).toEqual(['b', 'a', 'c']);
  });
});
