import { describe, expect, it } from 'vitest';
import { closeHorizon, futureCloseRefusal } from './close-at';

describe('how far ahead a close may be asked for', () => {
  it('up to the end of the next cycle (UTC months), exclusive', () => {
    expect(closeHorizon(new Date('2026-11-27T03:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(closeHorizon(new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2027-02-01T00:00:00.000Z');
    expect(closeHorizon(new Date('2027-01-01T00:00:00Z')).toISOString()).toBe('2027-03-01T00:00:00.000Z');
  });

  it('refuses an instant that would close a cycle that has not begun, and nothing earlier', () => {
    const now = new Date('2026-11-27T03:00:00Z');
    for (const at of ['1970-01-01T00:00:00Z', '2026-11-27T03:00:00Z', '2026-12-01T00:00:00Z', '2026-12-31T23:59:59.999Z']) {
      expect(futureCloseRefusal(new Date(at), now)).toBeUndefined();
    }
    for (const at of ['2027-01-01T00:00:00Z', '2031-03-01T00:00:00Z', '9999-12-31T23:59:59.999Z']) {
      expect(futureCloseRefusal(new Date(at), now)).toContain('must be before 2027-01-01T00:00:00.000Z');
    }
  });
});
