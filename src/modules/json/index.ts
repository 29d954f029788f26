import Ajv from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import jmespath from 'jmespath';
import jsonata from 'jsonata';
import { anyJson } from '../json-schema';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Normalises a library result to plain JSON (undefined -> null, functions dropped, sequences -> arrays). */
function toJson(value: unknown): Json {
  if (value === undefined) return null;
  const text = JSON.stringify(value, (_k, v) => (typeof v === 'function' ? undefined : v));
  return text === undefined ? null : (JSON.parse(text) as Json);
}

function pointer(path: (string | number)[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function errorMessage(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e && typeof (e as { message: unknown }).message === 'string')
    return (e as { message: string }).message;
  return String(e);
}

const queryJsonata: ActionDefinition = {
  name: 'query_jsonata',
  description:
    'Queries and transforms JSON with a JSONata expression (paths, filters like items[price > 10], aggregation with $sum/$count, object construction, string and date functions). Use to reshape or summarise data. Evaluation is limited to 5 s and a bounded recursion depth; no result gives null.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data', 'expression'],
    properties: {
      data: anyJson('The JSON document to query, any JSON value (the context of the expression).'),
      expression: {
        type: 'string',
        minLength: 1,
        maxLength: 10_000,
        description: 'JSONata expression, e.g. "$sum(orders.(price * qty))".',
      },
      bindings: { type: 'object', maxProperties: 100, description: 'Variables available as $name in the expression.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result'],
    properties: { result: anyJson('The value of the expression, any JSON value (null when it selects nothing).') },
  },
  examples: [
    {
      input: {
        data: {
          orders: [
            { item: 'pen', price: 2, qty: 3 },
            { item: 'book', price: 12.5, qty: 1 },
          ],
        },
        expression: '$sum(orders.(price * qty))',
      },
      output: { result: 18.5 },
    },
    {
      input: {
        data: {
          people: [
            { name: 'Ann', age: 31 },
            { name: 'Bob', age: 17 },
            { name: 'Cy', age: 45 },
          ],
        },
        expression: 'people[age >= $min].name',
        bindings: { min: 18 },
      },
      output: { result: ['Ann', 'Cy'] },
    },
  ],
  timeoutMs: 10_000,
  async run({ data, expression, bindings }: { data: unknown; expression: string; bindings?: Record<string, unknown> }) {
    let expr: jsonata.Expression;
    try {
      expr = jsonata(expression, { timeout: 5000, stack: 500, sequence: 1_000_000 } as jsonata.JsonataOptions);
    } catch (e) {
      throw new ActionInputError(`invalid JSONata expression: ${errorMessage(e)}`);
    }
    try {
      return { result: toJson(await expr.evaluate(data, bindings)) };
    } catch (e) {
      throw new ActionInputError(`JSONata evaluation failed: ${errorMessage(e)}`);
    }
  },
};

const queryJmespath: ActionDefinition = {
  name: 'query_jmespath',
  description:
    'Queries JSON with a JMESPath expression (the query language of the AWS CLI): projections like people[*].name, filters like [?age > `30`], functions like length() and sort_by(). Returns null when nothing matches.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data', 'expression'],
    properties: {
      data: anyJson('The JSON document to query, any JSON value.'),
      expression: { type: 'string', minLength: 1, maxLength: 10_000, description: 'JMESPath expression, e.g. "people[?age > `30`].name".' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result'],
    properties: { result: anyJson('The selected value, any JSON value (null when nothing matches).') },
  },
  examples: [
    {
      input: {
        data: {
          people: [
            { name: 'Ann', age: 31 },
            { name: 'Bob', age: 17 },
            { name: 'Cy', age: 45 },
          ],
        },
        expression: 'people[?age > `30`].name',
      },
      output: { result: ['Ann', 'Cy'] },
    },
    {
      input: { data: { items: [{ id: 3 }, { id: 1 }, { id: 2 }] }, expression: 'sort_by(items, &id)[0].id' },
      output: { result: 1 },
    },
  ],
  run({ data, expression }: { data: unknown; expression: string }) {
    try {
      return { result: toJson(jmespath.search(data, expression)) };
    } catch (e) {
      throw new ActionInputError(`invalid JMESPath expression: ${errorMessage(e)}`);
    }
  },
};

function newValidator(schema: Record<string, unknown>) {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  const opts = { allErrors: true, strict: false, loadSchema: undefined, validateFormats: true } as const;
  const ajv = /draft-0[67]/.test(draft) ? new Ajv(opts) : new Ajv2020(opts);
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv;
}

const validateSchema: ActionDefinition = {
  name: 'validate_schema',
  description:
    'Validates JSON data against a JSON Schema (draft 2020-12 by default; draft-07 when the schema says so; formats like email, date-time, uri and uuid are checked). Returns valid plus every error with its JSON Pointer path. An invalid schema is rejected as bad input; remote $refs are not fetched.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data', 'schema'],
    properties: {
      data: anyJson('The value to validate, any JSON value.'),
      schema: { type: 'object', description: 'The JSON Schema.' },
      max_errors: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'Report at most this many errors.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'errors'],
    properties: {
      valid: { type: 'boolean' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'message', 'keyword'],
          properties: {
            path: { type: 'string', description: 'JSON Pointer to the invalid value ("" is the root).' },
            message: { type: 'string' },
            keyword: { type: 'string', description: 'The failing schema keyword (type, required, format, …).' },
          },
        },
      },
    },
  },
  examples: [
    {
      input: {
        data: { name: 'Ann', email: 'not-an-email', age: -3 },
        schema: {
          type: 'object',
          required: ['name', 'email', 'id'],
          properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' }, age: { type: 'integer', minimum: 0 } },
        },
      },
      output: {
        valid: false,
        errors: [
          { path: '', message: "must have required property 'id'", keyword: 'required' },
          { path: '/email', message: 'must match format "email"', keyword: 'format' },
          { path: '/age', message: 'must be >= 0', keyword: 'minimum' },
        ],
      },
    },
    { input: { data: [1, 2, 3], schema: { type: 'array', items: { type: 'integer' }, maxItems: 5 } }, output: { valid: true, errors: [] } },
  ],
  run({ data, schema, max_errors = 100 }: { data: unknown; schema: Record<string, unknown>; max_errors?: number }) {
    let validate;
    try {
      validate = newValidator(schema).compile(schema);
    } catch (e) {
      throw new ActionInputError(`invalid JSON Schema: ${errorMessage(e)}`);
    }
    const valid = validate(data) as boolean;
    const errors = (validate.errors ?? []).slice(0, max_errors).map((err) => ({
      path: err.instancePath,
      message: err.message ?? 'is invalid',
      keyword: err.keyword,
    }));
    return { valid, errors };
  },
};

function flattenInto(value: unknown, prefix: string, sep: string, out: Record<string, Json>, depth: number, maxDepth: number) {
  const container = Array.isArray(value) || isPlainObject(value);
  if (!container || (prefix && depth >= maxDepth)) {
    out[prefix] = value as Json;
    return;
  }
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (entries.length === 0) {
    if (prefix) out[prefix] = (Array.isArray(value) ? [] : {}) as Json;
    return;
  }
  for (const [k, v] of entries) flattenInto(v, prefix ? `${prefix}${sep}${k}` : k, sep, out, depth + 1, maxDepth);
}

const flatten: ActionDefinition = {
  name: 'flatten',
  description:
    'Flattens nested JSON into a single-level object whose keys are dot paths ({"a":{"b":[1]}} -> {"a.b.0":1}). Empty objects and arrays are kept as values. Use before writing to CSV or key-value stores; unflatten reverses it.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: { anyOf: [{ type: 'object' }, { type: 'array' }], description: 'The object or array to flatten.' },
      separator: { type: 'string', minLength: 1, maxLength: 5, default: '.', description: 'Joins path segments.' },
      max_depth: {
        type: 'integer',
        minimum: 1,
        maximum: 1000,
        default: 1000,
        description: 'Stop flattening below this depth; deeper values are kept whole.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result', 'keys'],
    properties: { result: { type: 'object' }, keys: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: { data: { user: { name: 'Ann', tags: ['a', 'b'], address: { city: 'Oslo' } }, meta: {} } },
      output: { result: { 'user.name': 'Ann', 'user.tags.0': 'a', 'user.tags.1': 'b', 'user.address.city': 'Oslo', meta: {} }, keys: 5 },
    },
    {
      input: { data: { a: { b: { c: 1 } } }, separator: '/', max_depth: 2 },
      output: { result: { 'a/b': { c: 1 } }, keys: 1 },
    },
  ],
  run({ data, separator = '.', max_depth = 1000 }: { data: unknown; separator?: string; max_depth?: number }) {
    const result: Record<string, Json> = {};
    flattenInto(data, '', separator, result, 0, max_depth);
    return { result, keys: Object.keys(result).length };
  },
};

function safeKey(key: string): string {
  if (FORBIDDEN_KEYS.has(key)) throw new ActionInputError(`key segment "${key}" is not allowed`);
  return key;
}

const unflatten: ActionDefinition = {
  name: 'unflatten',
  description:
    'Rebuilds nested JSON from an object with dot-path keys ({"a.b.0":1} -> {"a":{"b":[1]}}). Numeric segments become array indexes unless arrays is false. Conflicting paths (a value and a child at the same key) are rejected.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: { type: 'object', description: 'Flat object whose keys are paths.' },
      separator: { type: 'string', minLength: 1, maxLength: 5, default: '.', description: 'Splits keys into path segments.' },
      arrays: { type: 'boolean', default: true, description: 'Create arrays for numeric path segments.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result'],
    properties: { result: { anyOf: [{ type: 'object' }, { type: 'array' }] } },
  },
  examples: [
    {
      input: { data: { 'user.name': 'Ann', 'user.tags.0': 'a', 'user.tags.1': 'b', 'user.address.city': 'Oslo' } },
      output: { result: { user: { name: 'Ann', tags: ['a', 'b'], address: { city: 'Oslo' } } } },
    },
    { input: { data: { 'a.0': 1, 'a.1': 2 }, arrays: false }, output: { result: { a: { '0': 1, '1': 2 } } } },
  ],
  run({ data, separator = '.', arrays = true }: { data: Record<string, unknown>; separator?: string; arrays?: boolean }) {
    const isIndex = (s: string) => arrays && /^(0|[1-9]\d{0,5})$/.test(s);
    const keys = Object.keys(data);
    const root: Record<string, unknown> | unknown[] = keys.length > 0 && keys.every((k) => isIndex(k.split(separator)[0]!)) ? [] : {};
    for (const key of keys) {
      const parts = key.split(separator).map(safeKey);
      let node = root as Record<string, unknown>;
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        const last = i === parts.length - 1;
        if (last) {
          if (part in node && (isPlainObject(node[part]) || Array.isArray(node[part])))
            throw new ActionInputError(`conflicting paths at "${key}"`);
          node[part] = data[key];
        } else {
          const existing = node[part];
          if (existing === undefined) node[part] = isIndex(parts[i + 1]!) ? [] : {};
          else if (!isPlainObject(existing) && !Array.isArray(existing))
            throw new ActionInputError(`conflicting paths at "${key}": "${parts.slice(0, i + 1).join(separator)}" already holds a value`);
          node = node[part] as Record<string, unknown>;
        }
      }
    }
    // Sparse arrays (missing indexes) become null entries.
    return { result: toJson(root) };
  },
};

function deepMerge(target: unknown, source: unknown, arrays: string): unknown {
  if (Array.isArray(target) && Array.isArray(source)) {
    if (arrays === 'concat') return [...target, ...source];
    if (arrays === 'merge_by_index') {
      const out = [...target];
      source.forEach((v, i) => (out[i] = i < target.length ? deepMerge(target[i], v, arrays) : v));
      return out;
    }
    return source;
  }
  if (isPlainObject(target) && isPlainObject(source)) {
    const out: Record<string, unknown> = { ...target };
    for (const [k, v] of Object.entries(source)) {
      safeKey(k);
      out[k] = k in out ? deepMerge(out[k], v, arrays) : v;
    }
    return out;
  }
  return source;
}

const merge: ActionDefinition = {
  name: 'merge',
  description:
    'Deep-merges two or more JSON objects left to right: nested objects are merged key by key, later values win, and arrays are replaced (or concatenated / merged by index if asked). Use to apply overrides or combine partial records.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['objects'],
    properties: {
      objects: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'object' },
        description: 'Objects to merge, in order of increasing priority.',
      },
      arrays: {
        type: 'string',
        enum: ['replace', 'concat', 'merge_by_index'],
        default: 'replace',
        description: 'How two arrays at the same path combine.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result'],
    properties: { result: { type: 'object' } },
  },
  examples: [
    {
      input: {
        objects: [
          { server: { host: 'localhost', port: 80, tags: ['a'] }, debug: false },
          { server: { port: 8080, tags: ['b', 'c'] }, debug: true },
        ],
      },
      output: { result: { server: { host: 'localhost', port: 8080, tags: ['b', 'c'] }, debug: true } },
    },
    { input: { objects: [{ tags: ['a'] }, { tags: ['b'] }], arrays: 'concat' }, output: { result: { tags: ['a', 'b'] } } },
  ],
  run({ objects, arrays = 'replace' }: { objects: Record<string, unknown>[]; arrays?: string }) {
    let result: unknown = {};
    for (const o of objects) result = deepMerge(result, o, arrays);
    return { result };
  },
};

interface Difference {
  path: string;
  type: 'added' | 'removed' | 'changed';
  old?: Json;
  new?: Json;
}

const MAX_DIFFERENCES = 1000;

function diffValues(a: unknown, b: unknown, path: (string | number)[], out: Difference[]) {
  if (out.length > MAX_DIFFERENCES) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (i >= a.length) out.push({ path: pointer([...path, i]), type: 'added', new: b[i] as Json });
      else if (i >= b.length) out.push({ path: pointer([...path, i]), type: 'removed', old: a[i] as Json });
      else diffValues(a[i], b[i], [...path, i], out);
    }
    return;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k of Object.keys(a)) {
      if (!(k in b)) out.push({ path: pointer([...path, k]), type: 'removed', old: a[k] as Json });
      else diffValues(a[k], b[k], [...path, k], out);
    }
    for (const k of Object.keys(b)) if (!(k in a)) out.push({ path: pointer([...path, k]), type: 'added', new: b[k] as Json });
    return;
  }
  if (a !== b) out.push({ path: pointer(path), type: 'changed', old: a as Json, new: b as Json });
}

const diff: ActionDefinition = {
  name: 'diff',
  description:
    'Lists the structural differences between two JSON values: each added, removed or changed value with its JSON Pointer path and old/new values. Arrays are compared index by index. Use to see what changed between two API responses or config versions.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['a', 'b'],
    properties: {
      a: anyJson('The original value, any JSON value.'),
      b: anyJson('The changed value, any JSON value.'),
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['equal', 'differences', 'truncated'],
    properties: {
      equal: { type: 'boolean' },
      differences: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'type'],
          properties: {
            path: { type: 'string', description: 'JSON Pointer ("" is the root).' },
            type: { type: 'string', enum: ['added', 'removed', 'changed'] },
            old: anyJson('Previous value, any JSON value (removed, changed).'),
            new: anyJson('New value, any JSON value (added, changed).'),
          },
        },
      },
      truncated: { type: 'boolean', description: `True when more than ${MAX_DIFFERENCES} differences were found and the list was cut.` },
    },
  },
  examples: [
    {
      input: {
        a: { name: 'Ann', age: 30, tags: ['x', 'y'], city: 'Oslo' },
        b: { name: 'Ann', age: 31, tags: ['x'], email: 'ann@example.com' },
      },
      output: {
        equal: false,
        differences: [
          { path: '/age', type: 'changed', old: 30, new: 31 },
          { path: '/tags/1', type: 'removed', old: 'y' },
          { path: '/city', type: 'removed', old: 'Oslo' },
          { path: '/email', type: 'added', new: 'ann@example.com' },
        ],
        truncated: false,
      },
    },
    { input: { a: [1, { b: true }], b: [1, { b: true }] }, output: { equal: true, differences: [], truncated: false } },
  ],
  run({ a, b }: { a: unknown; b: unknown }) {
    const differences: Difference[] = [];
    diffValues(a, b, [], differences);
    return {
      equal: differences.length === 0,
      differences: differences.slice(0, MAX_DIFFERENCES),
      truncated: differences.length > MAX_DIFFERENCES,
    };
  },
};

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys(value[k])]),
    );
  return value;
}

const parse: ActionDefinition = {
  name: 'parse',
  description:
    'Parses a JSON string into a value, reporting the line and column of a syntax error. Use when a tool or API returned JSON as text, or to check that text is valid JSON.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string', maxLength: 1_000_000, description: 'JSON text.' } },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data', 'type'],
    properties: {
      data: anyJson('Any JSON value.'),
      type: { type: 'string', enum: ['object', 'array', 'string', 'number', 'boolean', 'null'] },
    },
  },
  examples: [{ input: { text: '{"ok": true, "items": [1, 2]}' }, output: { data: { ok: true, items: [1, 2] }, type: 'object' } }],
  run({ text }: { text: string }) {
    let data: Json;
    try {
      data = JSON.parse(text) as Json;
    } catch (e) {
      const msg = errorMessage(e);
      const pos = /position (\d+)/.exec(msg);
      let where = '';
      if (pos) {
        const before = text.slice(0, Number(pos[1]));
        const line = before.split('\n').length;
        where = ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
      }
      throw new ActionInputError(`invalid JSON: ${msg.replace(/^JSON\.parse: /, '')}${where && !msg.includes('line') ? where : ''}`);
    }
    const type = data === null ? 'null' : Array.isArray(data) ? 'array' : typeof data;
    return { data, type };
  },
};

const stringify: ActionDefinition = {
  name: 'stringify',
  description:
    'Serialises a JSON value to text: pretty-printed with an indent or minified (indent 0), optionally with object keys sorted (a canonical form that is stable for comparison and hashing).',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: anyJson('Value to serialise, any JSON value.'),
      indent: { type: 'integer', minimum: 0, maximum: 8, default: 2, description: 'Spaces per level; 0 for a single line.' },
      sort_keys: { type: 'boolean', default: false, description: 'Sort object keys alphabetically at every level.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string' } },
  },
  examples: [
    { input: { data: { b: 1, a: [true, null] }, indent: 0, sort_keys: true }, output: { text: '{"a":[true,null],"b":1}' } },
    { input: { data: { name: 'Ann' } }, output: { text: '{\n  "name": "Ann"\n}' } },
  ],
  run({ data, indent = 2, sort_keys = false }: { data: unknown; indent?: number; sort_keys?: boolean }) {
    return { text: JSON.stringify(sort_keys ? sortKeys(data) : data, null, indent) ?? 'null' };
  },
};

const mod: ModuleDefinition = {
  name: 'json',
  version: '1.0.0',
  title: 'JSON tools',
  description:
    'Query, validate and reshape JSON: JSONata and JMESPath queries, JSON Schema validation (ajv, draft 2020-12), flatten/unflatten to dot paths, deep merge, structural diff, parse with error positions and canonical stringify.',
  category: 'data',
  tags: ['json', 'jsonata', 'jmespath', 'query', 'transform', 'json schema', 'validate', 'flatten', 'merge', 'diff', 'parse'],
  actions: [queryJsonata, queryJmespath, validateSchema, flatten, unflatten, merge, diff, parse, stringify],
};

export default mod;
