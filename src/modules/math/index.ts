import { anyJson } from '../json-schema';
import { ActionInputError, type JsonSchema, type ModuleDefinition } from '../types';
import { evaluateSafe, formatValue, math, toJson, typeOf } from './safe-math';

type Matrix = number[][];

const matrixSchema = (description: string): JsonSchema => ({
  type: 'array',
  minItems: 1,
  maxItems: 100,
  description,
  items: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'number' } },
});

const matrixOutput: JsonSchema = { type: 'array', items: { type: 'array', items: { type: 'number' } } };

function assertRectangular(m: Matrix, field: string) {
  const width = m[0]!.length;
  if (m.some((row) => row.length !== width)) throw new ActionInputError(`${field} must be rectangular: every row needs ${width} numbers.`);
}

function assertSquare(m: Matrix, field: string) {
  assertRectangular(m, field);
  if (m.length !== m[0]!.length) throw new ActionInputError(`${field} must be square (it is ${m.length}×${m[0]!.length}).`);
}

/** Runs a mathjs matrix operation, turning its dimension/singularity errors into input errors. */
function matrixOp<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new ActionInputError((err as Error).message);
  }
}

/** Removes binary floating-point noise (0.1+0.2 → 0.3) by rounding to `digits` significant digits. */
function clean(x: number, digits = 15): number {
  return Number.isFinite(x) ? Number(x.toPrecision(digits)) : x;
}

const cleanMatrix = (m: unknown): number[][] =>
  (math.isMatrix(m) ? (m.toArray() as number[][]) : (m as number[][])).map((row) => row.map((x) => clean(Number(x))));

const mathModule: ModuleDefinition = {
  name: 'math',
  version: '1.0.0',
  title: 'Math',
  description:
    'Safe math expression evaluation (mathjs) with variables, units, matrices and complex numbers; descriptive statistics; unit conversion; rounding and locale-aware number formatting; matrix multiplication, determinant, inverse, transpose and linear systems.',
  category: 'math',
  tags: ['math', 'calculator', 'expression', 'statistics', 'units', 'conversion', 'matrix', 'linear algebra', 'rounding', 'number format'],
  actions: [
    {
      name: 'evaluate',
      description:
        'Evaluate a math expression such as "sqrt(3^2 + 4^2)", "5 cm to inch", "det([1,2;3,4])" or "x * 1.2" with optional variables. Supports functions, units, matrices, complex numbers and several statements separated by ";" (the last value is returned).',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['expression'],
        properties: {
          expression: { type: 'string', minLength: 1, maxLength: 2000, description: 'The expression (mathjs syntax).' },
          variables: {
            type: 'object',
            maxProperties: 100,
            propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
            additionalProperties: {
              anyOf: [{ type: 'number' }, { type: 'string', maxLength: 1000 }, { type: 'boolean' }, { type: 'array', maxItems: 10000 }],
            },
            default: {},
            description: 'Values for the symbols used in the expression, e.g. {"x": 2}.',
          },
          precision: { type: 'integer', minimum: 1, maximum: 64, default: 14, description: 'Significant digits in `text`.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['result', 'type', 'text'],
        properties: {
          result: anyJson(
            'The value as JSON, so any JSON value: a number (or "Infinity"/"NaN"), boolean, string, nested arrays for matrices, {re, im} for complex numbers, {value, unit} for units, a decimal string for BigNumbers, null for no value.',
          ),
          type: {
            type: 'string',
            enum: ['number', 'boolean', 'string', 'matrix', 'bignumber', 'fraction', 'complex', 'unit', 'object', 'null'],
          },
          text: { type: 'string', description: 'The value formatted for people.' },
        },
      },
      examples: [
        { input: { expression: 'sqrt(3^2 + 4^2)' }, output: { result: 5, type: 'number', text: '5' } },
        {
          input: { expression: 'price * (1 + vat)', variables: { price: 80, vat: 0.25 } },
          output: { result: 100, type: 'number', text: '100' },
        },
        { input: { expression: '5 cm + 2 inch to mm' }, output: { result: { value: 100.8, unit: 'mm' }, type: 'unit', text: '100.8 mm' } },
        { input: { expression: 'f(x) = x^2 + 1; f(3)' }, output: { result: 10, type: 'number', text: '10' } },
        { input: { expression: '[1, 2; 3, 4] * [1; 1]' }, output: { result: [[3], [7]], type: 'matrix', text: '[[3], [7]]' } },
        { input: { expression: 'sqrt(-4)' }, output: { result: { re: 0, im: 2 }, type: 'complex', text: '2i' } },
      ],
      run(input: { expression: string; variables?: Record<string, unknown>; precision?: number }) {
        const value = evaluateSafe(input.expression, input.variables ?? {});
        return { result: toJson(value), type: typeOf(value), text: formatValue(value, input.precision ?? 14) };
      },
    },
    {
      name: 'statistics',
      description:
        'Descriptive statistics of a list of numbers: count, sum, mean, median, mode, min, max, range, variance, standard deviation and quantiles (e.g. quartiles or percentiles).',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['values'],
        properties: {
          values: { type: 'array', minItems: 1, maxItems: 100_000, items: { type: 'number' }, description: 'The data.' },
          quantiles: {
            type: 'array',
            maxItems: 100,
            items: { type: 'number', minimum: 0, maximum: 1 },
            default: [0.25, 0.5, 0.75],
            description: 'Probabilities of the quantiles to compute (0.95 = 95th percentile).',
          },
          normalization: {
            type: 'string',
            enum: ['unbiased', 'uncorrected', 'biased'],
            default: 'unbiased',
            description: 'Variance divisor: unbiased = n-1 (sample), uncorrected = n (population), biased = n+1.',
          },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['count', 'sum', 'mean', 'median', 'mode', 'min', 'max', 'range', 'variance', 'std', 'quantiles'],
        properties: {
          count: { type: 'integer' },
          sum: { type: 'number' },
          mean: { type: 'number' },
          median: { type: 'number' },
          mode: { type: 'array', items: { type: 'number' }, description: 'The most frequent value(s).' },
          min: { type: 'number' },
          max: { type: 'number' },
          range: { type: 'number' },
          variance: { anyOf: [{ type: 'number' }, { type: 'null' }], description: 'null for a sample variance of one value.' },
          std: { anyOf: [{ type: 'number' }, { type: 'null' }] },
          quantiles: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['p', 'value'],
              properties: { p: { type: 'number' }, value: { type: 'number' } },
            },
          },
        },
      },
      examples: [
        {
          input: { values: [2, 4, 4, 4, 5, 5, 7, 9], normalization: 'uncorrected' },
          output: {
            count: 8,
            sum: 40,
            mean: 5,
            median: 4.5,
            mode: [4],
            min: 2,
            max: 9,
            range: 7,
            variance: 4,
            std: 2,
            quantiles: [
              { p: 0.25, value: 4 },
              { p: 0.5, value: 4.5 },
              { p: 0.75, value: 5.5 },
            ],
          },
        },
      ],
      run(input: { values: number[]; quantiles?: number[]; normalization?: 'unbiased' | 'uncorrected' | 'biased' }) {
        const v = input.values;
        const normalization = input.normalization ?? 'unbiased';
        const sample = normalization === 'unbiased' && v.length < 2;
        const min = math.min(v);
        const max = math.max(v);
        const variance = sample ? null : clean(Number(math.variance(v, normalization)));
        return {
          count: v.length,
          sum: clean(math.sum(v)),
          mean: clean(Number(math.mean(v))),
          median: clean(math.median(v)),
          mode: (math.mode(v) as number[]).map(Number),
          min,
          max,
          range: clean(max - min),
          variance,
          std: variance === null ? null : clean(Number(math.std(v, normalization))),
          quantiles: (input.quantiles ?? [0.25, 0.5, 0.75]).map((p) => ({ p, value: clean(Number(math.quantileSeq(v, p))) })),
        };
      },
    },
    {
      name: 'convert_units',
      description:
        'Convert a quantity between units: length, mass, volume, temperature (degC, degF, K), time, speed (km/h, mph), area, energy, pressure, data (byte, kB, MiB), and compound units such as "m/s" or "kWh".',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['value', 'from', 'to'],
        properties: {
          value: { type: 'number', description: 'The amount.' },
          from: { type: 'string', minLength: 1, maxLength: 100, description: 'Source unit, e.g. "km", "lb", "degF", "km/h", "GiB".' },
          to: { type: 'string', minLength: 1, maxLength: 100, description: 'Target unit (same dimension).' },
          precision: {
            type: 'integer',
            minimum: 1,
            maximum: 17,
            default: 15,
            description: 'Significant digits of the result (15 removes floating-point noise).',
          },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['value', 'unit', 'text'],
        properties: { value: { type: 'number' }, unit: { type: 'string' }, text: { type: 'string' } },
      },
      examples: [
        { input: { value: 100, from: 'degC', to: 'degF' }, output: { value: 212, unit: 'degF', text: '212 degF' } },
        { input: { value: 100, from: 'km/h', to: 'm/s', precision: 4 }, output: { value: 27.78, unit: 'm/s', text: '27.78 m/s' } },
        { input: { value: 26.2, from: 'mile', to: 'km' }, output: { value: 42.1648128, unit: 'km', text: '42.1648128 km' } },
      ],
      run(input: { value: number; from: string; to: string; precision?: number }) {
        let result: number;
        try {
          result = math.unit(input.value, input.from).toNumber(input.to);
        } catch (err) {
          throw new ActionInputError((err as Error).message);
        }
        const value = clean(result, input.precision ?? 15);
        return { value, unit: input.to, text: `${math.format(value, { precision: 17 })} ${input.to}` };
      },
    },
    {
      name: 'round',
      description:
        "Round a number to a number of decimal places (negative rounds to tens, hundreds…) with a chosen mode: half away from zero, half to even (banker's), floor, ceil or toward zero.",
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['value'],
        properties: {
          value: { type: 'number', description: 'The number to round.' },
          decimals: {
            type: 'integer',
            minimum: -15,
            maximum: 15,
            default: 0,
            description: 'Decimal places to keep (negative: round to 10^-decimals).',
          },
          mode: {
            type: 'string',
            enum: ['half_away_from_zero', 'half_even', 'floor', 'ceil', 'trunc'],
            default: 'half_away_from_zero',
            description: 'Rounding rule.',
          },
        },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['result'], properties: { result: { type: 'number' } } },
      examples: [
        { input: { value: 2.345, decimals: 2 }, output: { result: 2.35 } },
        { input: { value: 2.5, mode: 'half_even' }, output: { result: 2 } },
        { input: { value: 1234.5, decimals: -2 }, output: { result: 1200 } },
        { input: { value: -2.7, mode: 'trunc' }, output: { result: -2 } },
      ],
      run(input: { value: number; decimals?: number; mode?: string }) {
        const n = input.decimals ?? 0;
        const x = input.value;
        const factor = 10 ** Math.abs(n);
        const scaled = clean(n >= 0 ? x * factor : x / factor);
        const back = (y: number) => clean(n >= 0 ? y / factor : y * factor) + 0; // + 0 turns -0 into 0
        switch (input.mode ?? 'half_away_from_zero') {
          case 'floor':
            return { result: back(Math.floor(scaled)) };
          case 'ceil':
            return { result: back(Math.ceil(scaled)) };
          case 'trunc':
            return { result: back(Math.trunc(scaled)) };
          case 'half_even': {
            const floor = Math.floor(scaled);
            const diff = scaled - floor;
            const r = diff > 0.5 ? floor + 1 : diff < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
            return { result: back(r) };
          }
          default:
            return { result: back(Math.sign(scaled) * Math.round(Math.abs(scaled))) };
        }
      },
    },
    {
      name: 'format_number',
      description:
        'Format a number for display with locale rules (Intl): thousands separators, fixed decimals, percent, currency (e.g. "1.234,50 €"), scientific, engineering or compact ("1.2M") notation.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['value'],
        properties: {
          value: { type: 'number', description: 'The number.' },
          locale: {
            type: 'string',
            maxLength: 35,
            default: 'en-US',
            description: 'BCP 47 locale, e.g. "en-US", "de-DE", "ja-JP", "en-IN".',
          },
          style: {
            type: 'string',
            enum: ['decimal', 'percent', 'currency'],
            default: 'decimal',
            description: 'percent multiplies by 100; currency needs `currency`.',
          },
          currency: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code for style currency, e.g. "USD", "EUR".' },
          notation: {
            type: 'string',
            enum: ['standard', 'scientific', 'engineering', 'compact'],
            default: 'standard',
            description: 'Notation.',
          },
          minimum_fraction_digits: { type: 'integer', minimum: 0, maximum: 20, description: 'At least this many decimals.' },
          maximum_fraction_digits: { type: 'integer', minimum: 0, maximum: 20, description: 'At most this many decimals.' },
          use_grouping: { type: 'boolean', default: true, description: 'Thousands separators.' },
        },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' } } },
      examples: [
        { input: { value: 1234567.891, maximum_fraction_digits: 2 }, output: { text: '1,234,567.89' } },
        { input: { value: 1234.5, locale: 'de-DE', style: 'currency', currency: 'EUR' }, output: { text: '1.234,50\u00a0€' } },
        { input: { value: 0.256, style: 'percent', minimum_fraction_digits: 1 }, output: { text: '25.6%' } },
        { input: { value: 1234567, notation: 'compact' }, output: { text: '1.2M' } },
      ],
      run(input: {
        value: number;
        locale?: string;
        style?: 'decimal' | 'percent' | 'currency';
        currency?: string;
        notation?: 'standard' | 'scientific' | 'engineering' | 'compact';
        minimum_fraction_digits?: number;
        maximum_fraction_digits?: number;
        use_grouping?: boolean;
      }) {
        if (input.style === 'currency' && !input.currency)
          throw new ActionInputError('style "currency" needs a currency code, e.g. "USD".');
        if (
          input.minimum_fraction_digits !== undefined &&
          input.maximum_fraction_digits !== undefined &&
          input.minimum_fraction_digits > input.maximum_fraction_digits
        ) {
          throw new ActionInputError('minimum_fraction_digits must not exceed maximum_fraction_digits.');
        }
        try {
          const format = new Intl.NumberFormat(input.locale ?? 'en-US', {
            style: input.style ?? 'decimal',
            currency: input.currency?.toUpperCase(),
            notation: input.notation ?? 'standard',
            minimumFractionDigits: input.minimum_fraction_digits,
            maximumFractionDigits: input.maximum_fraction_digits,
            useGrouping: input.use_grouping ?? true,
          });
          return { text: format.format(input.value) };
        } catch (err) {
          throw new ActionInputError((err as Error).message);
        }
      },
    },
    {
      name: 'matrix_multiply',
      description: 'Multiply two matrices (A is m×n, B is n×p, result m×p). A vector B can be given as a one-column matrix.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['a', 'b'],
        properties: { a: matrixSchema('Left matrix, as rows of numbers.'), b: matrixSchema('Right matrix, as rows of numbers.') },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['result'], properties: { result: matrixOutput } },
      examples: [
        {
          input: {
            a: [
              [1, 2],
              [3, 4],
            ],
            b: [
              [5, 6],
              [7, 8],
            ],
          },
          output: {
            result: [
              [19, 22],
              [43, 50],
            ],
          },
        },
      ],
      run(input: { a: Matrix; b: Matrix }) {
        assertRectangular(input.a, 'a');
        assertRectangular(input.b, 'b');
        if (input.a[0]!.length !== input.b.length) {
          throw new ActionInputError(`Cannot multiply: a has ${input.a[0]!.length} columns but b has ${input.b.length} rows.`);
        }
        return { result: cleanMatrix(matrixOp(() => math.multiply(input.a, input.b))) };
      },
    },
    {
      name: 'matrix_determinant',
      description: 'Compute the determinant of a square matrix (zero means the matrix is singular and has no inverse).',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['matrix'],
        properties: { matrix: matrixSchema('A square matrix, as rows of numbers.') },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['determinant'],
        properties: { determinant: { type: 'number' } },
      },
      examples: [
        {
          input: {
            matrix: [
              [1, 2],
              [3, 4],
            ],
          },
          output: { determinant: -2 },
        },
        {
          input: {
            matrix: [
              [2, 0, 1],
              [1, 3, 2],
              [1, 1, 2],
            ],
          },
          output: { determinant: 6 },
        },
      ],
      run(input: { matrix: Matrix }) {
        assertSquare(input.matrix, 'matrix');
        return { determinant: clean(matrixOp(() => math.det(input.matrix))) + 0 };
      },
    },
    {
      name: 'matrix_inverse',
      description: 'Compute the inverse of a square, non-singular matrix. A singular matrix (determinant 0) is an input error.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['matrix'],
        properties: { matrix: matrixSchema('A square matrix, as rows of numbers.') },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['inverse'], properties: { inverse: matrixOutput } },
      examples: [
        {
          input: {
            matrix: [
              [4, 7],
              [2, 6],
            ],
          },
          output: {
            inverse: [
              [0.6, -0.7],
              [-0.2, 0.4],
            ],
          },
        },
      ],
      run(input: { matrix: Matrix }) {
        assertSquare(input.matrix, 'matrix');
        return { inverse: cleanMatrix(matrixOp(() => math.inv(input.matrix))) };
      },
    },
    {
      name: 'matrix_transpose',
      description: 'Transpose a matrix: rows become columns (m×n becomes n×m).',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['matrix'],
        properties: { matrix: matrixSchema('A matrix, as rows of numbers.') },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['result'], properties: { result: matrixOutput } },
      examples: [
        {
          input: {
            matrix: [
              [1, 2, 3],
              [4, 5, 6],
            ],
          },
          output: {
            result: [
              [1, 4],
              [2, 5],
              [3, 6],
            ],
          },
        },
      ],
      run(input: { matrix: Matrix }) {
        assertRectangular(input.matrix, 'matrix');
        return { result: math.transpose(input.matrix) as number[][] };
      },
    },
    {
      name: 'solve_linear',
      description:
        'Solve a system of linear equations A·x = b with a unique solution (A square and non-singular, b one value per row), e.g. 2x + y = 3 and x + 3y = 5 is a = [[2,1],[1,3]], b = [3,5].',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['a', 'b'],
        properties: {
          a: matrixSchema('Coefficient matrix (square).'),
          b: {
            type: 'array',
            minItems: 1,
            maxItems: 100,
            items: { type: 'number' },
            description: 'Right-hand side, one value per equation.',
          },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['x'],
        properties: { x: { type: 'array', items: { type: 'number' } } },
      },
      examples: [
        {
          input: {
            a: [
              [2, 1],
              [1, 3],
            ],
            b: [3, 5],
          },
          output: { x: [0.8, 1.4] },
        },
      ],
      run(input: { a: Matrix; b: number[] }) {
        assertSquare(input.a, 'a');
        if (input.b.length !== input.a.length) throw new ActionInputError(`b needs ${input.a.length} values, one per row of a.`);
        if (Math.abs(matrixOp(() => math.det(input.a))) < 1e-12)
          throw new ActionInputError('a is singular (determinant 0): the system has no unique solution.');
        const solution = matrixOp(() => math.lusolve(input.a, input.b));
        return { x: cleanMatrix(solution).map((row) => row[0]!) };
      },
    },
  ],
};

export default mathModule;
