import { evaluateExpression as evaluateInWorker, parseExpression } from '../executions/expressions';
import type { Services } from '../services';

/**
 * Step inputs are templates: a string holding `{{input.a.b}}` or `{{steps.<id>.output.x}}`
 * references. A string that is exactly one reference takes the referenced value with its JSON
 * type (a number stays a number, an object an object); references inside other text are
 * interpolated (strings as they are, anything else as JSON). `if` and `map` are JSONata
 * expressions over the same context `{ input, steps: { <id>: { output } } }`.
 */
export interface RunContext {
  input: Record<string, unknown>;
  steps: Record<string, { output: unknown }>;
}

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const STEP_IN_EXPRESSION = /\bsteps\.([A-Za-z][A-Za-z0-9_]*)/g;

/** A parsed reference: `input.*` or `steps.<id>.output.*`, with the path below it. */
export type Reference = { root: 'input'; path: string[] } | { root: 'step'; step: string; path: string[] };

/** The reference a `{{...}}` body names, or a message saying why it names none. */
export function parseReference(body: string): Reference | string {
  const parts = body.split('.');
  if (parts.some((p) => p === '')) return `'{{${body}}}' is not a reference: use {{input.x}} or {{steps.<id>.output.x}}.`;
  if (parts[0] === 'input') return { root: 'input', path: parts.slice(1) };
  if (parts[0] === 'steps' && parts.length >= 3 && parts[2] === 'output') return { root: 'step', step: parts[1]!, path: parts.slice(3) };
  return `'{{${body}}}' is not a reference: use {{input.x}} or {{steps.<id>.output.x}}.`;
}

/** Every `{{...}}` body in a template value (strings anywhere inside objects and arrays). */
export function referencesIn(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(REFERENCE)].map((m) => m[1]!);
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(referencesIn);
  return [];
}

/** Step ids a JSONata expression reads as `steps.<id>`. */
export function stepsInExpression(expression: string): string[] {
  return [...expression.matchAll(STEP_IN_EXPRESSION)].map((m) => m[1]!);
}

function lookup(context: RunContext, ref: Reference): unknown {
  let value: unknown = ref.root === 'input' ? context.input : context.steps[ref.step]?.output;
  for (const key of ref.path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Array.isArray(value) ? (/^\d+$/.test(key) ? value[Number(key)] : undefined) : (value as Record<string, unknown>)[key];
  }
  return value;
}

function resolveString(text: string, context: RunContext): unknown {
  const whole = WHOLE.exec(text);
  if (whole) {
    const ref = parseReference(whole[1]!);
    return typeof ref === 'string' ? text : lookup(context, ref);
  }
  return text.replace(REFERENCE, (match, body: string) => {
    const ref = parseReference(body);
    if (typeof ref === 'string') return match;
    const value = lookup(context, ref);
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The template with every reference replaced; a reference to nothing leaves its key out. */
export function resolveTemplate(value: unknown, context: RunContext): unknown {
  if (typeof value === 'string') return resolveString(value, context);
  if (Array.isArray(value)) return value.map((v) => resolveTemplate(v, context) ?? null);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = resolveTemplate(v, context);
      if (resolved !== undefined) out[k] = resolved;
    }
    return out;
  }
  return value;
}

/** Checks a JSONata expression's syntax (nothing runs), or throws a readable Error. */
export function compileExpression(expression: string): void {
  try {
    parseExpression(expression);
  } catch (err) {
    throw new Error(`Invalid JSONata expression: ${(err as Error).message}`, { cause: err });
  }
}

/** A `map` or `if` over the run's context, evaluated off the event loop (executions/expressions.ts). */
export async function evaluateExpression(svc: Services, tenantId: string, expression: string, context: RunContext): Promise<unknown> {
  compileExpression(expression);
  try {
    return await evaluateInWorker(svc, tenantId, expression, context);
  } catch (err) {
    throw new Error(`The JSONata expression failed: ${(err as Error).message}`, { cause: err });
  }
}

/** An `if` condition, with JSONata's own truthiness ($boolean). */
export async function evaluateCondition(svc: Services, tenantId: string, expression: string, context: RunContext): Promise<boolean> {
  return (await evaluateExpression(svc, tenantId, `$boolean((${expression}))`, context)) === true;
}
