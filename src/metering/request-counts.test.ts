import { describe, expect, it } from 'vitest';
import { utcDay } from './request-counts';

describe('utcDay', () => {
  it('answers the UTC day of any instant, asked in any order', () => {
    const instants = [
      '2026-11-28T00:00:00.000Z',
      '2026-11-28T23:59:59.999Z',
      '2026-11-29T00:00:00.000Z',
      '2026-11-28T12:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '2024-02-29T10:00:00.000Z',
      '2026-11-27T23:59:59.999Z',
    ];
    for (const iso of [...instants, ...instants.reverse()]) expect(utcDay(new Date(iso))).toBe(iso.slice(0, 10));
  });
});
