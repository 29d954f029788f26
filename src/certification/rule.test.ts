import { describe, expect, it } from 'vitest';
import type { CertificationCheck } from '../db/schema';
import { malformedInputs } from './malformed';
import { MAX_MALFORMED_PER_ACTION, OVERSIZED_STRING_CHARS, tierFor } from './rule';

const checks = (passed: number, failed: string[] = []): CertificationCheck[] => [
  ...Array.from({ length: passed }, (_, i) => ({ name: `ok:${i}`, passed: true, detail: '' })),
  ...failed.map((name) => ({ name, passed: false, detail: '' })),
];

describe('tier rule', () => {
  it('gold when every check passes', () => {
    expect(tierFor(checks(8), false)).toBe('gold');
  });
  it('silver at 90% without a crash; a crash at 90% is bronze', () => {
    expect(tierFor(checks(9, ['examples:a']), false)).toBe('silver');
    expect(tierFor(checks(9, ['examples:a']), true)).toBe('bronze');
  });
  it('latency alone keeps a module silver, however few its checks', () => {
    expect(tierFor(checks(3, ['latency']), false)).toBe('silver');
    expect(tierFor(checks(3, ['latency']), true)).toBe('bronze');
  });
  it('bronze at 70%, none below; none without checks', () => {
    expect(tierFor(checks(7, ['a', 'b', 'c']), false)).toBe('bronze');
    expect(tierFor(checks(6, ['a', 'b', 'c', 'd']), false)).toBe('none');
    expect(tierFor([], false)).toBe('none');
  });
});

describe('malformed inputs', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['text', 'count'],
    properties: {
      text: { type: 'string', maxLength: 10, minLength: 2 },
      count: { type: 'integer', minimum: 1, maximum: 5 },
      note: { type: 'string' },
      mode: { enum: ['a', 'b'] },
    },
  };
  const valid = { text: 'hello', count: 2 };
  const labels = malformedInputs(schema, valid).map((c) => c.label);

  it('covers missing, wrong types, bounds, lengths, oversized strings and unknown fields, capped', () => {
    expect(labels.length).toBeLessThanOrEqual(MAX_MALFORMED_PER_ACTION);
    expect(labels).toEqual(
      expect.arrayContaining([
        "missing required 'text'",
        "missing required 'count'",
        "wrong type for 'text'",
        "just above the maximum for 'count'",
        `an oversized string (${OVERSIZED_STRING_CHARS} characters) for 'note'`,
        'an unknown field',
      ]),
    );
  });

  it('changes one field of the valid input at a time', () => {
    for (const { label, input } of malformedInputs(schema, valid)) {
      const changed = [...new Set([...Object.keys(input), ...Object.keys(valid)])].filter(
        (k) => JSON.stringify((input as Record<string, unknown>)[k]) !== JSON.stringify((valid as Record<string, unknown>)[k]),
      );
      expect(changed, label).toHaveLength(1);
    }
  });
});
