/**
 * Passes over the assembled OpenAPI document that make it smaller without changing what it says:
 * what several operations repeat word for word (a path parameter, a success response, a
 * timestamp's pattern) is declared once under `components` and referenced, and text that repeats
 * its container is dropped. src/server/openapi.ts runs them last.
 */
import type { Json } from './openapi-parts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** JSON with the members of every object in key order: equal texts, equal values. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** The operations of `paths`. */
export function operationsOf(paths: Record<string, Json>): Json[] {
  return Object.values(paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method, op]) => METHODS.includes(method) && op && typeof op === 'object')
      .map(([, op]) => op as Json),
  );
}

/** The operations of `paths` with their path. */
function pathOperations(paths: Record<string, Json>): [path: string, op: Json][] {
  return Object.entries(paths).flatMap(([path, item]) => operationsOf({ [path]: item }).map((op): [string, Json] => [path, op]));
}

/** `key_id` -> `KeyId`, `Subscription identifier` -> `SubscriptionIdentifier`. */
const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** The first free name of `base`, `base2`, `base3`... in `taken`. */
function freeName(base: string, taken: Record<string, unknown>): string {
  let name = base;
  for (let n = 2; taken[name]; n++) name = `${base}${n}`;
  return name;
}

/**
 * A parameter's schema repeating the parameter's `description` says nothing more: the copy in the
 * schema is dropped (zod puts a field's description on both).
 */
function dropRepeatedParameterDescriptions(paths: Record<string, Json>): void {
  for (const op of operationsOf(paths)) {
    for (const parameter of (op.parameters as Json[] | undefined) ?? []) {
      const schema = parameter.schema as Json | undefined;
      if (schema && schema.description === parameter.description) delete schema.description;
    }
  }
}

/**
 * The name of a shared parameter: for an `id` path parameter, its entity as the description names
 * it (`Subscription identifier (wh_...)` -> `SubscriptionId`) or else as the path does
 * (`/invitations/{id}` -> `InvitationId`); any other parameter keeps its own name (`key_id` -> `KeyId`).
 */
function parameterName(parameter: Json, path: string): string {
  if (parameter.name !== 'id') return pascal(String(parameter.name));
  const described = /^(\w+(?: \w+)?) identifier\b/.exec(String(parameter.description ?? ''))?.[1];
  const segment = /\/([a-z_-]+)\/\{id\}/.exec(path)?.[1]?.replace(/s$/, '');
  return `${pascal(described ?? segment ?? '')}Id`;
}

/**
 * Parameters that two or more operations declare identically (the `{id}` of a resource, `limit`
 * and `cursor` of a list) become `components.parameters`, referenced by each operation.
 */
function shareParameters(paths: Record<string, Json>, components: Record<string, Json>): void {
  const uses = new Map<string, { parameter: Json; path: string }>();
  const counts = new Map<string, number>();
  for (const [path, op] of pathOperations(paths)) {
    for (const parameter of (op.parameters as Json[] | undefined) ?? []) {
      if (parameter.$ref) continue;
      const key = canonical(parameter);
      if (!uses.has(key)) uses.set(key, { parameter, path });
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const refs = new Map<string, string>();
  // Most used first, so the common form of a name (`limit` with its default) gets the plain name.
  for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (count < 2) continue;
    const { parameter, path } = uses.get(key)!;
    let name = parameterName(parameter, path);
    if (components[name]) name = freeName(`${name}${pascal(String(parameter.in))}`, components);
    components[name] = parameter;
    refs.set(key, `#/components/parameters/${name}`);
  }
  for (const op of operationsOf(paths)) {
    const parameters = op.parameters as Json[] | undefined;
    if (!parameters) continue;
    op.parameters = parameters.map((p) => {
      const ref = p.$ref ? undefined : refs.get(canonical(p));
      return ref ? { $ref: ref } : p;
    });
  }
}

/**
 * Success responses that two or more operations answer identically (the same resource, headers and
 * words: `Webhook` from create, update and rotate) become `components.responses`, named after the
 * resource (`Replayable` when they carry `Idempotent-Replayed`), and are referenced.
 */
function shareSuccessResponses(paths: Record<string, Json>, responses: Record<string, Json>): void {
  const uses = new Map<string, { response: Json; count: number }>();
  const resourceOf = (response: Json): string | undefined => {
    const content = response.content as Json | undefined;
    if (!content || Object.keys(content).length !== 1) return undefined;
    const ref = ((content['application/json'] as Json | undefined)?.schema as Json | undefined)?.$ref;
    return typeof ref === 'string' ? ref.split('/').pop() : undefined;
  };
  for (const op of operationsOf(paths)) {
    for (const [code, response] of Object.entries((op.responses as Record<string, Json> | undefined) ?? {})) {
      if (!/^2\d\d$/.test(code) || response.$ref || !resourceOf(response)) continue;
      const key = canonical(response);
      const use = uses.get(key) ?? { response, count: 0 };
      use.count++;
      uses.set(key, use);
    }
  }
  const refs = new Map<string, string>();
  for (const [key, { response, count }] of uses) {
    if (count < 2) continue;
    const replayable = Object.keys((response.headers as Json | undefined) ?? {}).includes('Idempotent-Replayed');
    const name = freeName(`${replayable ? 'Replayable' : ''}${resourceOf(response)!}`, responses);
    responses[name] = response;
    refs.set(key, `#/components/responses/${name}`);
  }
  for (const op of operationsOf(paths)) {
    const own = op.responses as Record<string, Json> | undefined;
    for (const [code, response] of Object.entries(own ?? {})) {
      const ref = /^2\d\d$/.test(code) && !response.$ref ? refs.get(canonical(response)) : undefined;
      if (ref) own![code] = { $ref: ref };
    }
  }
}

/**
 * zod's ISO timestamps (`z.iso.datetime()`) carry a long `pattern` beside `format: date-time`;
 * the two patterns it emits (UTC only, or with an offset) are declared once as schemas and every
 * timestamp refers to one, keeping its own description.
 */
const DATE_TIME_PATTERNS: [name: string, schema: Json][] = [
  [
    'UtcDateTime',
    {
      type: 'string',
      format: 'date-time',
      description: 'An ISO 8601 timestamp in UTC (`Z`), e.g. `2025-01-31T12:00:00Z`',
      pattern:
        '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$',
    },
  ],
  [
    'DateTime',
    {
      type: 'string',
      format: 'date-time',
      description: 'An ISO 8601 timestamp, in UTC (`Z`) or with an offset, e.g. `2025-01-31T14:00:00+02:00`',
      pattern:
        '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$',
    },
  ],
];

/**
 * Walks every schema-like object of `node`: replaces zod's timestamp patterns by references, and
 * drops `propertyNames: {type: string}` (every JSON member name is a string). Adds the names of the
 * timestamp schemas it references to `used`.
 */
function compactSchemas(node: unknown, used: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) compactSchemas(item, used);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Json;
  if (canonical(schema.propertyNames) === canonical({ type: 'string' })) delete schema.propertyNames;
  if (schema.type === 'string' && schema.format === 'date-time' && typeof schema.pattern === 'string') {
    const match = DATE_TIME_PATTERNS.find(([, known]) => known.pattern === schema.pattern);
    if (match) {
      delete schema.type;
      delete schema.format;
      delete schema.pattern;
      schema.$ref = `#/components/schemas/${match[0]}`;
      used.add(match[0]);
    }
  }
  for (const value of Object.values(schema)) compactSchemas(value, used);
}

/**
 * Runs every pass over `doc` (assembled: paths, webhooks and components in place). The component
 * schemas named in `servedAsIs` are left as they are: the event catalog
 * (`GET /api/v1/webhooks/event-types`) serves the same JSON Schemas, self-contained.
 */
export function compactDocument(doc: Json, servedAsIs: Iterable<string> = []): void {
  const paths = doc.paths as Record<string, Json>;
  const components = doc.components as Record<string, Record<string, Json>>;
  dropRepeatedParameterDescriptions(paths);
  shareParameters(paths, (components.parameters ??= {}));
  shareSuccessResponses(paths, (components.responses ??= {}));
  const used = new Set<string>();
  compactSchemas(paths, used);
  compactSchemas(doc.webhooks, used);
  const keep = new Set(servedAsIs);
  for (const [name, schema] of Object.entries(components.schemas ?? {})) if (!keep.has(name)) compactSchemas(schema, used);
  for (const [name, schema] of DATE_TIME_PATTERNS) if (used.has(name)) components.schemas![name] = schema;
}

/** The `#/components/<kind>/<name>` references anywhere in `node`. */
function referencesIn(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) referencesIn(item, found);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/')) found.add(ref.slice('#/components/'.length));
  for (const value of Object.values(node as Json)) referencesIn(value, found);
}

/**
 * The components (`schemas/Module`, `responses/NotFound`) `node` refers to, directly or through
 * other components of `doc`.
 */
export function componentsReachedFrom(doc: Json, node: unknown): Set<string> {
  const components = doc.components as Record<string, Record<string, unknown>>;
  const reached = new Set<string>();
  const pending = new Set<string>();
  referencesIn(node, pending);
  while (pending.size > 0) {
    const [key] = pending;
    pending.delete(key!);
    if (reached.has(key!)) continue;
    reached.add(key!);
    const [kind, name] = key!.split('/') as [string, string];
    const found = new Set<string>();
    referencesIn(components[kind]?.[name], found);
    for (const other of found) if (!reached.has(other)) pending.add(other);
  }
  return reached;
}

/**
 * Drops the components nothing in `doc` refers to, directly or through another component (a
 * document made of part of the operations keeps only what they use). Security schemes are kept
 * when an operation names them.
 */
export function dropUnreferencedComponents(doc: Json): void {
  const components = doc.components as Record<string, Record<string, unknown>>;
  const kept = componentsReachedFrom(doc, [doc.paths, doc.webhooks]);
  const schemes = new Set<string>();
  for (const op of operationsOf((doc.paths ?? {}) as Record<string, Json>))
    for (const requirement of (op.security as Json[] | undefined) ?? []) for (const name of Object.keys(requirement)) schemes.add(name);
  // New maps, not deletions: a kind's map may be a constant every build of the document shares.
  for (const [kind, entries] of Object.entries(components)) {
    const used = (name: string) => (kind === 'securitySchemes' ? schemes.has(name) : kept.has(`${kind}/${name}`));
    components[kind] = Object.fromEntries(Object.entries(entries).filter(([name]) => used(name)));
  }
}
