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
  });

  it('replaces them with U+FFFD for storage and leaves clean values untouched (same object)', () => {
    const clean = { a: 'ok 😀', b: [1, 'x'] };
    expect(storableJson(clean)).toBe(clean);
    expect(storableJson({ t: 'a\u0000b', l: ['\ud83d!'], ['k\u0000']: 1 })).toEqual({ t: 'a\uFFFDb', l: ['\uFFFD!'], ['k\uFFFD']: 1 });
    expect(JSON.stringify(storableJson('\udc00\ud83d\ude00'))).toBe('"\uFFFD😀"');
  });
});
