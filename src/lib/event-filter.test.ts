import { describe, expect, it } from 'vitest';
import { compileFilter, FILTER_MAX_DEPTH, FilterSyntaxError, matchesFilter, type FilterSubject } from './event-filter';

const failed = {
  type: 'execution.failed',
  data: { module: 'http', action: 'fetch', latency_ms: 120, status: 'error', tags: ['a', 'b'], nested: { list: [{ n: 1 }] }, none: null },
};
const completed = { type: 'execution.completed', data: { module: 'text', action: 'slugify', latency_ms: 3, status: 'success' } };

const matches = (filter: string, event: FilterSubject = failed) => compileFilter(filter)(event);

function syntaxError(filter: string): FilterSyntaxError {
  try {
    compileFilter(filter);
  } catch (err) {
    expect(err).toBeInstanceOf(FilterSyntaxError);
    return err as FilterSyntaxError;
  }
  throw new Error(`${filter} compiled`);
}

describe('webhook filters', () => {
  it('compares the kind and data fields', () => {
    const f = 'event == "execution.failed" && data.module == "http"';
    expect(matches(f)).toBe(true);
    expect(matches(f, completed)).toBe(false);
    expect(matches('data.latency_ms > 100')).toBe(true);
    expect(matches('data.latency_ms >= 120 && data.latency_ms <= 120')).toBe(true);
    expect(matches('data.latency_ms < 100', completed)).toBe(true);
    expect(matches("data.module != 'http'")).toBe(false);
    expect(matches('event in ["execution.failed", "workflow.failed"]')).toBe(true);
    expect(matches('event in ["execution.failed", "workflow.failed"]', completed)).toBe(false);
    expect(matches('"b" in data.tags')).toBe(true);
    expect(matches('data.nested.list.0.n == 1')).toBe(true);
    expect(matches('!(data.module == "http") || data.latency_ms > 1e2')).toBe(true);
    expect(matches('!data.module == "text"')).toBe(true); // `!` binds looser than `==`
    expect(matches('data.none == null && data.missing == null && data.missing.deeper == null')).toBe(true);
    expect(matches('data.module')).toBe(true);
    expect(matches('!data.missing')).toBe(true);
    expect(matches('(event == "x" || event == "execution.failed") && (data.status == "error")')).toBe(true);
  });

  it('never coerces, never reads a prototype', () => {
    expect(matches('data.latency_ms == "120"')).toBe(false);
    expect(matches('data.latency_ms > "1"')).toBe(false);
    expect(matches('data.tags == data.tags')).toBe(false);
    expect(matches('data.constructor != null || data.__proto__ != null || data.toString != null')).toBe(false);
    expect(matches('data.module.length == 4')).toBe(false);
  });

  it('refuses what does not parse, with the position', () => {
    const cases: [string, number, RegExp][] = [
      ['event = "x"', 6, /'=='/],
      ['event == "x" & data.a == 1', 13, /'&&'/],
      ['event ==', 8, /expected a value/],
      ['(event == "x"', 13, /'\)'/],
      ['event == "x', 9, /unterminated/],
      ['foo == 1', 0, /unknown field 'foo'/],
      ['event.kind == 1', 0, /no fields/],
      ['data.a == 1 == 2', 12, /do not chain/],
      ['data.a in [1, data.b]', 14, /literals only/],
      ['data.a == 1 data.b', 12, /expected '&&'/],
      ['data.a == $x', 10, /unexpected character/],
      ['   ', 0, /empty/],
    ];
    for (const [filter, position, reason] of cases) {
      const err = syntaxError(filter);
      expect(err.position, filter).toBe(position);
      expect(err.reason, filter).toMatch(reason);
    }
  });

  it('bounds the length and the nesting', () => {
    expect(syntaxError(`data.a == "${'x'.repeat(1100)}"`).reason).toMatch(/1024 characters/);
    const deep = `${'('.repeat(FILTER_MAX_DEPTH + 1)}data.a${')'.repeat(FILTER_MAX_DEPTH + 1)}`;
    expect(syntaxError(deep).reason).toMatch(/nested/);
    expect(syntaxError('!'.repeat(40) + 'data.a').reason).toMatch(/nested/);
    expect(matches(`${'('.repeat(FILTER_MAX_DEPTH)}data.module${')'.repeat(FILTER_MAX_DEPTH)}`)).toBe(true);
  });

  it('matchesFilter: no filter matches all; compiled once by text', () => {
    expect(matchesFilter({ filter: null }, completed)).toBe(true);
    expect(matchesFilter({}, completed)).toBe(true);
    expect(matchesFilter({ filter: 'data.module == "http"' }, completed)).toBe(false);
    expect(matchesFilter({ filter: 'data.module == "http"' }, failed)).toBe(true);
  });
});
