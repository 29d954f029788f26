import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};
const evaluate = action('evaluate');

describe('math.evaluate is sandboxed', () => {
  it.each([
    'import({pi: 3}, {override: true})',
    'createUnit("foo", "1 m")',
    'evaluate("1+1")',
    'parse("1+1")',
    'compile("1")',
    'simplify("x + x")',
    'derivative("x^2", "x")',
    'resolve("x", {x: 1})',
    'config({number: "BigNumber"})',
    'typed("f", {})',
    'chain(3)',
    'help(sin)',
    'expression.parse("1")',
    'x = evaluate; x("1")',
    'f(x) = evaluate(x); f("1")',
    'cos.constructor("return process")()',
    '[].constructor.constructor("return process")()',
    'sin["constructor"]',
    '"".__proto__',
  ])('%s is refused with ActionInputError', async (expression) => {
    await expect(evaluate({ expression })).rejects.toBeInstanceOf(ActionInputError);
  });

  it('config cannot be changed for later expressions', async () => {
    await evaluate({ expression: 'config({number: "BigNumber"})' }).catch(() => undefined);
    expect(await evaluate({ expression: '0.1 + 0.2', precision: 17 })).toEqual({
      result: 0.30000000000000004,
      type: 'number',
      text: '0.30000000000000004',
    });
  });

  it('variables do not leak between calls', async () => {
    await evaluate({ expression: 'leak = 42' });
    await expect(evaluate({ expression: 'leak' })).rejects.toBeInstanceOf(ActionInputError);
  });
});

describe('math.evaluate values', () => {
  it('reports syntax errors and unknown symbols as input errors', async () => {
    await expect(evaluate({ expression: '2 +* 3' })).rejects.toThrow(/Invalid expression/);
    await expect(evaluate({ expression: 'y + 1' })).rejects.toThrow(/Undefined symbol y/);
    await expect(evaluate({ expression: 'f(x) = x' })).rejects.toThrow(/function/);
  });

  it('converts special values to JSON', async () => {
    expect(await evaluate({ expression: '1/0' })).toEqual({ result: 'Infinity', type: 'number', text: 'Infinity' });
    expect(await evaluate({ expression: '2 > 1' })).toEqual({ result: true, type: 'boolean', text: 'true' });
    expect(await evaluate({ expression: 'bignumber("0.1") + bignumber("0.2")' })).toMatchObject({ result: '0.3', type: 'bignumber' });
    expect(await evaluate({ expression: 'fraction(1, 4) + fraction(1, 4)' })).toMatchObject({ result: 0.5, type: 'fraction', text: '1/2' });
    expect(await evaluate({ expression: 'a = 1; b = 2;' })).toMatchObject({ result: null, type: 'null' });
    expect(await evaluate({ expression: 'mean(xs)', variables: { xs: [1, 2, 3] } })).toMatchObject({ result: 2 });
    expect(await evaluate({ expression: 'concat(s, "!")', variables: { s: 'hi' } })).toMatchObject({ result: 'hi!', type: 'string' });
    expect(await evaluate({ expression: '1:4' })).toMatchObject({ result: [1, 2, 3, 4], type: 'matrix' });
  });
});

describe('math actions', () => {
  it('statistics of one value has no sample variance', async () => {
    const s = await action('statistics')({ values: [5] });
    expect(s).toMatchObject({ count: 1, mean: 5, median: 5, variance: null, std: null, mode: [5] });
    const pop = await action('statistics')({ values: [1, 2, 3, 4], quantiles: [0.9] });
    expect(pop.variance).toBe(1.66666666666667);
    expect(pop.quantiles).toEqual([{ p: 0.9, value: 3.7 }]);
  });

  it('convert_units rejects unknown and mismatched units', async () => {
    await expect(action('convert_units')({ value: 1, from: 'kg', to: 'm' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('convert_units')({ value: 1, from: 'florp', to: 'm' })).rejects.toBeInstanceOf(ActionInputError);
    expect(await action('convert_units')({ value: 1, from: 'GiB', to: 'MiB' })).toMatchObject({ value: 1024 });
  });

  it('round modes', async () => {
    const round = action('round');
    expect(await round({ value: -2.5 })).toEqual({ result: -3 });
    expect(await round({ value: 3.5, mode: 'half_even' })).toEqual({ result: 4 });
    expect(await round({ value: -2.5, mode: 'half_even' })).toEqual({ result: -2 });
    expect(await round({ value: 1.005, decimals: 2 })).toEqual({ result: 1.01 });
    expect(await round({ value: 2.349, decimals: 2, mode: 'floor' })).toEqual({ result: 2.34 });
    expect(await round({ value: -0.4, mode: 'ceil' })).toEqual({ result: 0 });
    expect(Object.is((await round({ value: -0.4, mode: 'ceil' })).result, 0)).toBe(true);
  });

  it('format_number refuses a bad locale, currency or digit range', async () => {
    await expect(action('format_number')({ value: 1, style: 'currency' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('format_number')({ value: 1, locale: 'not a locale!!' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('format_number')({ value: 1, minimum_fraction_digits: 3, maximum_fraction_digits: 1 })).rejects.toBeInstanceOf(
      ActionInputError,
    );
    expect(await action('format_number')({ value: 12345678.9, locale: 'en-IN' })).toEqual({ text: '1,23,45,678.9' });
  });

  it('matrix errors are input errors', async () => {
    await expect(
      action('matrix_inverse')({
        matrix: [
          [1, 2],
          [2, 4],
        ],
      }),
    ).rejects.toThrow(/determinant is zero/);
    await expect(
      action('matrix_determinant')({
        matrix: [
          [1, 2, 3],
          [4, 5, 6],
        ],
      }),
    ).rejects.toThrow(/square/);
    await expect(action('matrix_multiply')({ a: [[1, 2]], b: [[1, 2]] })).rejects.toThrow(/columns/);
    await expect(action('matrix_transpose')({ matrix: [[1, 2], [3]] })).rejects.toThrow(/rectangular/);
    await expect(
      action('solve_linear')({
        a: [
          [1, 2],
          [3, 4],
        ],
        b: [1],
      }),
    ).rejects.toBeInstanceOf(ActionInputError);
    await expect(
      action('solve_linear')({
        a: [
          [1, 2],
          [2, 4],
        ],
        b: [1, 2],
      }),
    ).rejects.toBeInstanceOf(ActionInputError);
  });
});
