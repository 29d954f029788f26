import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId, newTimeOrderedId } from './ids';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const decodeTime = (id: string) => [...id.slice(4, 12)].reduce((ms, c) => ms * 62 + BASE62.indexOf(c), 0);

describe('identifiers', () => {
  afterEach(() => vi.useRealTimers());

  it('are a prefix and 20 base62 characters, random or time-ordered alike (docs/decisions.md, Wire conventions)', () => {
    expect(newId('key')).toMatch(/^key_[0-9A-Za-z]{20}$/);
    expect(newTimeOrderedId('exe')).toMatch(/^exe_[0-9A-Za-z]{20}$/);
  });

  it('time-ordered: begin with the creation time in milliseconds, so later ids sort after earlier ones', () => {
    vi.useFakeTimers();
    const times = [
      Date.UTC(2026, 10, 27, 13, 0, 0, 0),
      Date.UTC(2026, 10, 27, 13, 0, 0, 1),
      Date.UTC(2026, 10, 27, 13, 0, 1, 0),
      Date.UTC(2100, 0, 1),
    ];
    const ids = times.map((t) => {
      vi.setSystemTime(t);
      return newTimeOrderedId('evt');
    });
    expect(ids.map(decodeTime)).toEqual(times);
    expect([...ids].sort()).toEqual(ids);
  });

  it('time-ordered: ids of the same millisecond differ in their 12 random characters', () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2026, 10, 27));
    const ids = Array.from({ length: 20_000 }, () => newTimeOrderedId('dlv'));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBe(1);
  });
});
