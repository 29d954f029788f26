/**
 * Malformed inputs generated from an action's input_schema, each a mutation of one field of a
 * valid input (the first example's): a required field missing, a field of the wrong type, a
 * number just past its bound, a string just past its length limits, an oversized string where
 * no `maxLength` is set, an unknown field where `additionalProperties` is false.
 */
import { MAX_MALFORMED_PER_ACTION, OVERSIZED_STRING_CHARS } from './rule';

export interface MalformedInput {
  /** What was done to the valid input, e.g. `missing required 'text'`. */
  label: string;
  input: Record<string, unknown>;
}

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export function malformedInputs(inputSchema: Schema, validInput: Record<string, unknown>): MalformedInput[] {
  const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
  const required = Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  const withField = (field: string, value: unknown) => ({ ...validInput, [field]: value });
  const missing: MalformedInput[] = [];
  const wrongTypes: MalformedInput[] = [];
  const numbers: MalformedInput[] = [];
  const strings: MalformedInput[] = [];
  const unknown: MalformedInput[] = [];

  for (const field of required) {
    const input = { ...validInput };
    delete input[field];
    missing.push({ label: `missing required '${field}'`, input });
  }
  // Required fields first, then those the example uses: the ones most likely to be read.
  const weight = (field: string) => (required.includes(field) ? 2 : 0) + (field in validInput ? 1 : 0);
  const fields = Object.keys(properties).sort((a, b) => weight(b) - weight(a));
  for (const field of fields) {
    const schema = properties[field];
    if (!isObject(schema)) continue;
    const wrong = wrongType(schema);
    if (wrong !== undefined) wrongTypes.push({ label: `wrong type for '${field}'`, input: withField(field, wrong) });
    for (const { label, value } of boundaryValues(schema)) {
      (typeof value === 'string' ? strings : numbers).push({ label: `${label} for '${field}'`, input: withField(field, value) });
    }
  }
  if (inputSchema.additionalProperties === false)
    unknown.push({ label: 'an unknown field', input: { ...validInput, __unexpected_field: true } });
  return interleave([unknown, missing, wrongTypes, strings, numbers], MAX_MALFORMED_PER_ACTION);
}

/** At most `n` cases, one of each kind in turn, so every kind is represented. */
function interleave<T>(kinds: T[][], n: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < n && kinds.some((k) => i < k.length); i++) {
    for (const kind of kinds) if (i < kind.length && out.length < n) out.push(kind[i]!);
  }
  return out;
}

/** A value of a type the schema does not allow; undefined when it allows any. */
function wrongType(schema: Schema): unknown {
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'number':
    case 'integer':
      return 'not a number';
    case 'boolean':
      return 'yes';
    case 'array':
      return { not: 'an array' };
    case 'object':
      return 'not an object';
    default:
      if (Array.isArray(schema.enum) || 'const' in schema) return { not: 'one of the allowed values' };
      return undefined;
  }
}

function boundaryValues(schema: Schema): { label: string; value: unknown }[] {
  const out: { label: string; value: unknown }[] = [];
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  if (schema.type === 'number' || schema.type === 'integer') {
    const max = num('maximum');
    const min = num('minimum');
    const exMax = num('exclusiveMaximum');
    const exMin = num('exclusiveMinimum');
    if (max !== undefined) out.push({ label: 'just above the maximum', value: max + 1 });
    if (min !== undefined) out.push({ label: 'just below the minimum', value: min - 1 });
    if (exMax !== undefined) out.push({ label: 'the exclusive maximum', value: exMax });
    if (exMin !== undefined) out.push({ label: 'the exclusive minimum', value: exMin });
    if (schema.type === 'integer') out.push({ label: 'a fraction', value: 0.5 });
  }
  if (schema.type === 'string') {
    const maxLength = num('maxLength');
    const minLength = num('minLength');
    if (maxLength !== undefined) out.push({ label: 'a string one past maxLength', value: 'x'.repeat(maxLength + 1) });
    else out.push({ label: `an oversized string (${OVERSIZED_STRING_CHARS} characters)`, value: 'x'.repeat(OVERSIZED_STRING_CHARS) });
    if (minLength !== undefined && minLength > 0) out.push({ label: 'a string one short of minLength', value: 'x'.repeat(minLength - 1) });
  }
  return out;
}
