import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';

describe('JSON nesting depth', () => {
  const nested = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown;

  it('allows MAX_JSON_DEPTH levels and refuses one more', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(exceedsJsonDepth(nested(64))).toBe(false);
    expect(exceedsJsonDepth(nested(65))).toBe(true);
    expect(exceedsJsonDepth({ a: [1, { b: 'x' }] }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(exceedsJsonDepth('scalar', 0)).toBe(false);
  });

  it('handles any depth iteratively, and a cycle counts as too deep', () => {
    expect(exceedsJsonDepth(nested(200_000))).toBe(true);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(exceedsJsonDepth(cycle)).toBe(true);
  });
});
