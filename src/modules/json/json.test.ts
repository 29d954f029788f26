import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('json edge cases', () => {
  it('query_jsonata: bad expression and runaway evaluation are input errors, no match is null', async () => {
    await expect(run('query_jsonata', { data: {}, expression: 'foo[' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(run('query_jsonata', { data: {}, expression: '($f := function($n){ $f($n + 1) }; $f(0))' })).rejects.toThrow(
      /JSONata evaluation failed/,
    );
    expect(await run('query_jsonata', { data: { a: 1 }, expression: 'b' })).toEqual({ result: null });
    expect(await run('query_jsonata', { data: { a: [1] }, expression: 'a' })).toEqual({ result: [1] });
  });

  it('query_jmespath rejects a bad expression', () => {
    expect(() => run('query_jmespath', { data: {}, expression: 'a[?' })).toThrow(ActionInputError);
    expect(run('query_jmespath', { data: { a: 1 }, expression: 'b' })).toEqual({ result: null });
  });

  it('validate_schema rejects an invalid schema and supports draft-07', () => {
    expect(() => run('validate_schema', { data: 1, schema: { type: 'nope' } })).toThrow(ActionInputError);
    expect(() => run('validate_schema', { data: 1, schema: { $ref: 'https://example.com/s.json' } })).toThrow(ActionInputError);
    const out = run('validate_schema', { data: 'x', schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'integer' } });
    expect(out).toEqual({ valid: false, errors: [{ path: '', message: 'must be integer', keyword: 'type' }] });
  });

  it('flatten and unflatten round-trip; unflatten refuses prototype keys and conflicts', () => {
    const data = { a: { b: [1, { c: null }], d: [] }, e: 'x' };
    const flat = run('flatten', { data }).result;
    expect(run('unflatten', { data: flat }).result).toEqual(data);
    expect(run('unflatten', { data: { '0': 'a', '1': 'b' } }).result).toEqual(['a', 'b']);
    expect(() => run('unflatten', { data: { '__proto__.polluted': true } })).toThrow(ActionInputError);
    expect(() => run('unflatten', { data: { a: 1, 'a.b': 2 } })).toThrow(/conflicting/);
    expect(({} as any).polluted).toBeUndefined();
  });

  it('merge refuses __proto__ and merges arrays by index', () => {
    expect(() => run('merge', { objects: [{}, JSON.parse('{"__proto__": {"x": 1}}')] })).toThrow(ActionInputError);
    expect(run('merge', { objects: [{ a: [{ x: 1 }, 2] }, { a: [{ y: 2 }] }], arrays: 'merge_by_index' }).result).toEqual({
      a: [{ x: 1, y: 2 }, 2],
    });
  });

  it('diff reports type changes and escapes pointer segments', () => {
    expect(run('diff', { a: { 'a/b': 1 }, b: { 'a/b': '1' } }).differences).toEqual([{ path: '/a~1b', type: 'changed', old: 1, new: '1' }]);
    expect(run('diff', { a: 1, b: [1] }).differences).toEqual([{ path: '', type: 'changed', old: 1, new: [1] }]);
  });

  it('parse reports where the error is', () => {
    expect(() => run('parse', { text: '{\n  "a": 1,\n}' })).toThrow(/line 3/);
  });
});
