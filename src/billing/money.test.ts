import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatUnitUsd, formatUsd, MoneyFormatError, parseUsd, tryParseUsd } from './money';

describe('formatUsd', () => {
  it('has exactly two decimals, rounded half-up to the cent', () => {
    expect(formatUsd(0)).toBe('0.00');
    expect(formatUsd(29_000_000)).toBe('29.00');
    expect(formatUsd(29_250_000)).toBe('29.25');
    expect(formatUsd(250_000)).toBe('0.25');
    expect(formatUsd(4_999)).toBe('0.00');
    expect(formatUsd(5_000)).toBe('0.01');
    expect(formatUsd(14_999)).toBe('0.01');
    expect(formatUsd(15_000)).toBe('0.02');
    expect(formatUsd(1_234_567_890_000)).toBe('1234567.89');
    expect(formatUsd(Number.MAX_SAFE_INTEGER)).toBe('9007199254.74');
  });
  it('rounds negatives away from zero and never writes -0.00', () => {
    expect(formatUsd(-5_000)).toBe('-0.01');
    expect(formatUsd(-4_999)).toBe('0.00');
    expect(formatUsd(-29_250_000)).toBe('-29.25');
  });
  it('refuses non-integers', () => {
    expect(() => formatUsd(0.5)).toThrow(RangeError);
  });
});

describe('formatUnitUsd', () => {
  it('has as many decimals as needed, at least two', () => {
    expect(formatUnitUsd(1_000)).toBe('0.001');
    expect(formatUnitUsd(29_000_000)).toBe('29.00');
    expect(formatUnitUsd(29_500_000)).toBe('29.50');
    expect(formatUnitUsd(1)).toBe('0.000001');
    expect(formatUnitUsd(0)).toBe('0.00');
    expect(formatUnitUsd(1_234_500)).toBe('1.2345');
  });
});

describe('parseUsd', () => {
  it('reads strings and numbers exactly', () => {
    expect(parseUsd('0.001')).toBe(1_000);
    expect(parseUsd(0.001)).toBe(1_000);
    expect(parseUsd('29')).toBe(29_000_000);
    expect(parseUsd('29.00')).toBe(29_000_000);
    expect(parseUsd(29)).toBe(29_000_000);
    expect(parseUsd('0.000001')).toBe(1);
    expect(parseUsd(0.1)).toBe(100_000);
    expect(parseUsd(0)).toBe(0);
    expect(parseUsd('0')).toBe(0);
  });
  it('refuses negatives, more than 6 decimals, and other text', () => {
    for (const bad of [
      '-1',
      -0.5,
      '0.0000001',
      0.0000001,
      '1e3',
      'abc',
      '',
      ' 1',
      '1.',
      '.5',
      '+1',
      NaN,
      Infinity,
      1e300,
      '99999999999999',
    ]) {
      expect(() => parseUsd(bad), String(bad)).toThrow(MoneyFormatError);
      expect(tryParseUsd(bad)).toBeNull();
    }
    expect(() => parseUsd('0.0000001')).toThrow(/at most 6 decimals/);
    expect(() => parseUsd('-2')).toThrow(/negative/);
  });
  it('round-trips every micro amount through formatUnitUsd', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000_000 }), (micro) => {
        expect(parseUsd(formatUnitUsd(micro))).toBe(micro);
      }),
    );
  });
});
