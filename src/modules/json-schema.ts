/**
 * Portable action schemas. Tool schemas go to every LLM provider (MCP tools/list, arm), and some
 * map them onto a single-`type` dialect (Gemini's OpenAPI subset) or require a type on every
 * property. So module schemas follow the MCP Inspector's portability rules (its `--strict`
 * tools/list check): no `type` arrays (`anyOf` branches instead: `["string","null"]` becomes
 * `anyOf: [{type: "string"}, {type: "null"}]`, which validates exactly the same), and no schema
 * that constrains nothing (a value that truly may be any JSON value says so with `anyJson`).
 */
import type { JsonSchema } from './types';

/** The six JSON types; `integer` is a `number`. */
const JSON_TYPES = ['object', 'array', 'string', 'number', 'boolean', 'null'] as const;

/** Any JSON value, spelled as the six types (the same contract as `{}`, but typed). */
export function anyJson(description: string): JsonSchema {
  return { description, anyOf: JSON_TYPES.map((type) => ({ type })) };
}

/** Keywords that constrain an instance (the inspector's list; `if` counts only with then/else). */
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);
const SUBSCHEMA = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const SUBSCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
/** Where a bare boolean is an ordinary value, not a schema. */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What the MCP Inspector's schema-portability check would report for one schema, as
 * `path: problem` lines (empty when portable): `type` arrays, schemas that constrain nothing,
 * bare boolean schemas, `$ref`s to other documents.
 */
export function portabilityIssues(schema: unknown): string[] {
  const issues: string[] = [];
  const walk = (node: unknown, path: string, keyword: string | undefined, depth: number) => {
    if (depth > 64) return;
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED.has(keyword)) issues.push(`${path || '(root)'}: bare boolean schema`);
      return;
    }
    if (!isRecord(node)) return;
    if (Array.isArray(node.type)) issues.push(`${path || '(root)'}: type array ${JSON.stringify(node.type)}`);
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#')) issues.push(`${path || '(root)'}: remote $ref`);
    const constrains = Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') issues.push(`${path || '(root)'}: constrains nothing (untyped)`);
    for (const k of SUBSCHEMA_MAPS) {
      const map = node[k];
      if (isRecord(map)) for (const [name, sub] of Object.entries(map)) walk(sub, `${path}.${k}.${name}`, k, depth + 1);
    }
    for (const k of SUBSCHEMA_ARRAYS) {
      const list = node[k];
      if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, `${path}.${k}[${i}]`, k, depth + 1));
    }
    for (const k of SUBSCHEMA) {
      if (!(k in node)) continue;
      const value = node[k];
      if (k === 'items' && Array.isArray(value)) value.forEach((sub, i) => walk(sub, `${path}.items[${i}]`, k, depth + 1));
      else walk(value, `${path}.${k}`, k, depth + 1);
    }
  };
  walk(schema, '', undefined, 0);
  return issues;
}
