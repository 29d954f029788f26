import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('csv edge cases', () => {
  it('parse caps rows and flags truncation', () => {
    const csv = 'n\n' + Array.from({ length: 50 }, (_, i) => i).join('\n');
    const out = run('parse', { csv, max_rows: 10 });
    expect(out.row_count).toBe(10);
    expect(out.total_rows).toBe(50);
    expect(out.truncated).toBe(true);
  });

  it('parse handles a BOM, tabs, quotes with newlines, duplicate and blank headers, ragged rows', () => {
    const out = run('parse', { csv: '\uFEFFa\ta\t\n"x\ny"\t2\n3' });
    expect(out.delimiter).toBe('\t');
    expect(out.columns).toEqual(['a', 'a_2', 'column_3']);
    expect(out.rows).toEqual([
      { a: 'x\ny', a_2: 2, column_3: null },
      { a: 3, a_2: null, column_3: null },
    ]);
    expect(out.errors.length).toBeGreaterThan(0);
  });

  it('parse keeps big integers and leading zeros as strings', () => {
    const out = run('parse', { csv: 'id,code\n12345678901234567890,007' });
    expect(out.rows[0]).toEqual({ id: '12345678901234567890', code: '007' });
  });

  it('stringify escapes formulae and refuses mixed rows', () => {
    expect(run('stringify', { rows: [{ f: '=SUM(A1)' }], escape_formulae: true }).csv).toBe('f\n"\'=SUM(A1)"\n');
    expect(() => run('stringify', { rows: [{ a: 1 }, [1]] })).toThrow(ActionInputError);
    expect(run('stringify', { rows: [] })).toEqual({ csv: '', row_count: 0 });
  });

  it('filter: unknown column, missing value and bad regex are input errors', () => {
    const csv = 'a,b\n1,x\n2,y';
    expect(() => run('filter', { csv, conditions: [{ column: 'c', operator: 'equals', value: 1 }] })).toThrow(/unknown column "c"/);
    expect(() => run('filter', { csv, conditions: [{ column: 'a', operator: 'equals' }] })).toThrow(ActionInputError);
    expect(() => run('filter', { csv, conditions: [{ column: 'b', operator: 'regex', value: '[' }] })).toThrow(ActionInputError);
    expect(
      run('filter', {
        csv,
        conditions: [
          { column: 'a', operator: 'equals', value: 1 },
          { column: 'b', operator: 'equals', value: 'y' },
        ],
        match: 'any',
      }).matched,
    ).toBe(2);
    expect(run('filter', { csv, conditions: [{ column: 'b', operator: 'regex', value: '^[xz]$' }] }).rows).toEqual([{ a: 1, b: 'x' }]);
  });

  it('stats on an empty column and a mixed column', () => {
    const out = run('stats', { csv: 'a,b\n,1\n,x' });
    expect(out.columns[0]).toMatchObject({ name: 'a', type: 'empty', count: 0, empty: 2 });
    expect(out.columns[1]).toMatchObject({ name: 'b', type: 'mixed', min: 1, max: 1 });
  });

  it('sort keeps original cell text', () => {
    expect(run('sort', { csv: 'k,v\nb,007\na,1.50', by: [{ column: 'k' }] }).csv).toBe('k,v\na,1.50\nb,007\n');
  });
});
