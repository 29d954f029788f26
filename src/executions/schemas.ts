import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';

/**
 * Compiled action input schemas, compiled once per (module, version, action). Publishing a new
 * version compiles afresh; old entries simply stop being asked for.
 */
/**
 * `pattern` keywords run on RE2 (linear time): a published schema with a catastrophic pattern
 * cannot stall the request thread, where validation runs.
 */
export function linearRegExp(pattern: string, flags?: string) {
  const re = RE2JS.compile(pattern, flags?.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  // ajv shares compiled patterns by their toString(), so it must name the pattern.
  return { test: (value: string) => re.test(value), toString: () => `/${pattern}/${flags ?? ''}` };
}

export class SchemaCache {
  private ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, code: { regExp: linearRegExp as never } });
  private compiled = new Map<string, ValidateFunction>();

  constructor() {
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
  }

  validator(key: string, schema: Record<string, unknown>): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(schema);
      if (this.compiled.size > 10_000) this.compiled.clear();
      this.compiled.set(key, fn);
    }
    return fn;
  }
}

/** ajv errors as `{ path, message }`, the shape of every validation issue in this API. */
/**
 * Whether `value` passes `validate`; undefined when validation recursed without end (a `$ref`
 * cycle that reads no deeper into the value, e.g. `{"$ref": "#"}`: ajv overflows the stack).
 */
export function validatesBounded(validate: ValidateFunction, value: unknown): boolean | undefined {
  try {
    return validate(value) as boolean;
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

export function schemaIssues(fn: ValidateFunction): { path: string; message: string }[] {
  return (fn.errors ?? []).slice(0, 20).map((e) => {
    const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty?: string }).additionalProperty : undefined;
    const where = [path, missing ?? extra].filter(Boolean).join('.');
    return { path: where, message: extra ? `unknown property '${extra}'` : (e.message ?? 'invalid') };
  });
}

/**
 * A value checked against a schema: valid, invalid with its issues, or not decided: `unbounded`
 * (validation recursed without end), `slow` (past its deadline, off the request thread) or
 * `crashed` (the worker checking it died).
 */
export type SchemaCheck =
  | { valid: true }
  | { valid: false; issues: { path: string; message: string }[] }
  | { valid: undefined; reason: 'unbounded' | 'slow' | 'crashed' };

/** Checks `value` against `schema`, compiled once per `key` in `cache`, on the calling thread. */
export function checkValue(cache: SchemaCache, key: string, schema: Record<string, unknown>, value: unknown): SchemaCheck {
  const validate = cache.validator(key, schema);
  const valid = validatesBounded(validate, value);
  if (valid === undefined) return { valid: undefined, reason: 'unbounded' };
  return valid ? { valid: true } : { valid: false, issues: schemaIssues(validate) };
}
