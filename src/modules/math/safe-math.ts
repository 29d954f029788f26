/**
 * A restricted mathjs instance for evaluating untrusted expressions, following mathjs's
 * security guidance: the functions that parse, compile or extend (import, createUnit, evaluate,
 * parse, compile, simplify, derivative, resolve, …) are replaced by throwing stubs, and the
 * expression tree is checked before evaluation so no symbol can reach them, nor `config`/`typed`
 * (which would change the shared instance for later expressions).
 */
import { createRequire } from 'node:module';
import type { MathJsInstance, MathNode } from 'mathjs';
import { ActionInputError } from '../types';

const DISABLED = [
  'import',
  'createUnit',
  'reviver',
  'replacer',
  'evaluate',
  'parse',
  'compile',
  'parser',
  'chain',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'derivative',
  'resolve',
  'rationalize',
  'leafCount',
  'symbolicEqual',
  'help',
] as const;

const requireCjs = createRequire(import.meta.url);
let built: { instance: MathJsInstance; parse: MathJsInstance['parse'] } | undefined;

/**
 * Built on first use: loading mathjs and creating a full instance takes seconds, and every
 * worker thread loads every module pack at start-up.
 */
function mathjs() {
  if (built) return built;
  const { all, create } = requireCjs('mathjs') as typeof import('mathjs');
  const instance = create(all!, { number: 'number', matrix: 'Matrix' });
  /** Captured before the stubs replace `parse` in the namespace. */
  const parse = instance.parse;
  instance.import(
    Object.fromEntries(
      DISABLED.map((name) => [
        name,
        () => {
          throw new Error(`Function ${name} is disabled`);
        },
      ]),
    ),
    { override: true },
  );
  built = { instance, parse };
  return built;
}

/** The restricted instance (created lazily). */
export const math = new Proxy({} as MathJsInstance, { get: (_target, prop) => Reflect.get(mathjs().instance, prop) });
const parse = (expression: string) => mathjs().parse(expression);

/** Names an expression may not mention at all. */
const DENIED = new Set<string>([...DISABLED, 'config', 'typed', 'on', 'off', 'once', 'emit', 'expression', 'json']);

/** Parses and checks an expression; throws ActionInputError on syntax errors or denied names. */
export function parseSafe(expression: string): MathNode {
  let node: MathNode;
  try {
    node = parse(expression);
  } catch (err) {
    throw new ActionInputError(`Invalid expression: ${(err as Error).message}`);
  }
  node.traverse((n) => {
    const name = (n as MathNode & { name?: string }).name;
    if (
      (n.type === 'SymbolNode' || n.type === 'FunctionNode' || n.type === 'FunctionAssignmentNode' || n.type === 'AssignmentNode') &&
      typeof name === 'string' &&
      DENIED.has(name)
    ) {
      throw new ActionInputError(`"${name}" is not available in expressions.`);
    }
  });
  return node;
}

/** Evaluates a checked expression with the given variables; errors become ActionInputError. */
export function evaluateSafe(expression: string, variables: Record<string, unknown> = {}): unknown {
  const node = parseSafe(expression);
  const scope = new Map<string, unknown>(Object.entries(variables));
  try {
    return node.compile().evaluate(scope);
  } catch (err) {
    throw new ActionInputError(`Could not evaluate the expression: ${(err as Error).message}`);
  }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** Converts a mathjs value (number, BigNumber, Fraction, Complex, Unit, Matrix…) to plain JSON. */
export function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'function') throw new ActionInputError('The expression evaluates to a function; call it instead (e.g. f(2)).');
  if (math.isBigNumber(value)) return value.toString();
  if (math.isFraction(value)) return Number(value.valueOf());
  if (math.isComplex(value)) return { re: toJson(value.re) as number, im: toJson(value.im) as number };
  if (math.isUnit(value)) {
    const unit = value.formatUnits();
    const number = value.toNumber(unit);
    return { value: Number.isFinite(number) ? number : null, unit };
  }
  if (math.isMatrix(value)) return toJson(value.toArray());
  if (math.isResultSet(value)) return toJson((value as unknown as { entries: unknown[] }).entries.at(-1));
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = toJson(v);
    return out;
  }
  return String(value);
}

export function typeOf(value: unknown): string {
  if (math.isResultSet(value)) return typeOf((value as unknown as { entries: unknown[] }).entries.at(-1));
  if (value === null || value === undefined) return 'null';
  if (math.isMatrix(value) || Array.isArray(value)) return 'matrix';
  if (math.isBigNumber(value)) return 'bignumber';
  if (math.isFraction(value)) return 'fraction';
  if (math.isComplex(value)) return 'complex';
  if (math.isUnit(value)) return 'unit';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return typeof value;
  return 'object';
}

export function formatValue(value: unknown, precision: number): string {
  if (math.isResultSet(value)) return formatValue((value as unknown as { entries: unknown[] }).entries.at(-1), precision);
  if (value === undefined || value === null) return 'null';
  return math.format(value, { precision });
}
