/**
 * The playground's form, derived from an action's input JSON Schema: one field per top-level
 * property when every property is a string, number, integer, boolean, enum or array of those;
 * anything else (nested objects, unions, type arrays) is edited as raw JSON. Field values are
 * kept as text and turned into the input object only when it is sent, so what the API receives
 * is exactly what the form shows (an unparsable number is sent as typed, and the API says why).
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

export type Primitive = 'string' | 'number' | 'integer' | 'boolean';

export interface FormFieldSpec {
  name: string;
  kind: 'text' | 'number' | 'boolean' | 'enum' | 'list';
  /** For numbers and list items. */
  itemType: Primitive;
  required: boolean;
  description?: string;
  /** enum: the allowed values; list: allowed item values, if any. */
  options?: Json[];
  defaultValue?: unknown;
  /** For long strings: a textarea. */
  multiline: boolean;
}

const PRIMITIVES = new Set<string>(['string', 'number', 'integer', 'boolean']);
const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrimitiveValue = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function fieldOf(name: string, prop: unknown, required: boolean): FormFieldSpec | null {
  if (!isRecord(prop)) return null;
  if (['oneOf', 'anyOf', 'allOf', '$ref', 'not', 'if'].some((k) => k in prop)) return null;
  const base = {
    name,
    required,
    description: typeof prop.description === 'string' ? prop.description : undefined,
    defaultValue: prop.default,
    multiline: false,
  };
  if (Array.isArray(prop.enum)) {
    if (!prop.enum.every(isPrimitiveValue)) return null;
    return { ...base, kind: 'enum', itemType: 'string', options: prop.enum as Json[] };
  }
  const type = prop.type;
  if (typeof type !== 'string') return null;
  if (type === 'string')
    return { ...base, kind: 'text', itemType: 'string', multiline: !(typeof prop.maxLength === 'number' && prop.maxLength <= 200) };
  if (type === 'number' || type === 'integer') return { ...base, kind: 'number', itemType: type };
  if (type === 'boolean') return { ...base, kind: 'boolean', itemType: 'boolean' };
  if (type === 'array' && isRecord(prop.items)) {
    const items = prop.items;
    if (Array.isArray(items.enum) && items.enum.every((v) => typeof v === 'string'))
      return { ...base, kind: 'list', itemType: 'string', options: items.enum as Json[] };
    if (
      typeof items.type === 'string' &&
      PRIMITIVES.has(items.type) &&
      Object.keys(items).every((k) => !['oneOf', 'anyOf', 'enum', '$ref'].includes(k))
    ) {
      return { ...base, kind: 'list', itemType: items.type as Primitive };
    }
  }
  return null;
}

/** The form's fields, or null when the schema needs the raw JSON editor. */
export function formFields(schema: Schema): FormFieldSpec[] | null {
  if (schema.type !== 'object' || !isRecord(schema.properties)) return null;
  if (['oneOf', 'anyOf', 'allOf', '$ref', 'not', 'if', 'patternProperties'].some((k) => k in schema)) return null;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: FormFieldSpec[] = [];
  for (const [name, prop] of Object.entries(schema.properties)) {
    const field = fieldOf(name, prop, required.has(name));
    if (!field) return null;
    fields.push(field);
  }
  return fields;
}

export type FormValues = Record<string, string>;

function itemText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The form's text values for an input object, or null when the object cannot be shown by these fields. */
export function valuesFromInput(fields: FormFieldSpec[], input: unknown): FormValues | null {
  if (!isRecord(input)) return null;
  const names = new Set(fields.map((f) => f.name));
  if (Object.keys(input).some((k) => !names.has(k))) return null;
  const values: FormValues = {};
  for (const f of fields) {
    const v = input[f.name];
    if (v === undefined) {
      values[f.name] = '';
      continue;
    }
    if (f.kind === 'list') {
      if (!Array.isArray(v) || !v.every(isPrimitiveValue)) return null;
      values[f.name] = v.map(itemText).join('\n');
    } else if (f.kind === 'enum') {
      values[f.name] = JSON.stringify(v);
    } else if (f.kind === 'text') {
      if (typeof v !== 'string') return null;
      values[f.name] = v;
    } else if (f.kind === 'boolean') {
      if (typeof v !== 'boolean') return null;
      values[f.name] = String(v);
    } else {
      if (typeof v !== 'number') return null;
      values[f.name] = String(v);
    }
  }
  return values;
}

function parseItem(text: string, type: Primitive): unknown {
  if (type === 'string') return text;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

/** The input object the form stands for: empty optional fields are left out (the action's defaults apply). */
export function inputFromValues(fields: FormFieldSpec[], values: FormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of fields) {
    const text = values[f.name] ?? '';
    if (text === '' && !(f.required && f.kind === 'text')) continue;
    if (f.kind === 'text') input[f.name] = text;
    else if (f.kind === 'enum') input[f.name] = JSON.parse(text) as unknown;
    else if (f.kind === 'list')
      input[f.name] = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => parseItem(line, f.itemType));
    else input[f.name] = parseItem(text, f.itemType);
  }
  return input;
}

/** The first segment of an issue's path (`tags.0` -> `tags`): the form field it belongs to. */
export const fieldOfIssue = (path: string) => path.split('.')[0] ?? '';
