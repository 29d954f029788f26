import { describe, expect, it } from 'vitest';
import { countValues, lineDot, MAX_BAR_SIZE, SPARSE_POINTS } from '../../components/dashboard/charts/sparse';

describe('charts with few values', () => {
  it('counts the numbers of a series, gaps left out', () => {
    expect(countValues([])).toBe(0);
    expect(countValues([null, undefined, null])).toBe(0);
    expect(countValues([null, 12, null])).toBe(1);
    expect(countValues([0, 5, null, 7])).toBe(3);
    expect(countValues([Number.NaN, 1])).toBe(1);
  });

  it('draws the points of a sparse line large enough to see, and small ones on a full line', () => {
    // A single value has no segment to draw: its point is all there is.
    expect(lineDot(1).r).toBeGreaterThanOrEqual(4);
    expect(lineDot(SPARSE_POINTS).r).toBeGreaterThanOrEqual(4);
    expect(lineDot(SPARSE_POINTS + 1).r).toBeLessThan(lineDot(1).r);
    expect(lineDot(24)).toEqual({ r: 2, strokeWidth: 1 });
  });

  it('holds a lone bar to a bar’s width', () => {
    expect(MAX_BAR_SIZE).toBeGreaterThan(0);
    expect(MAX_BAR_SIZE).toBeLessThanOrEqual(64);
  });
});
