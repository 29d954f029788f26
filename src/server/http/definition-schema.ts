/**
 * The JSON Schema (2020-12) of a workflow definition, served at DEFINITION_SCHEMA_PATH: the request
 * body of creating a workflow as the OpenAPI document gives it, made self-contained (the component
 * schemas it names move into its `$defs`). Taken from the document as built, so the two never
 * differ; the dashboard's editor checks a definition against it as it is typed, and editors and
 * agents can validate a definition before sending it.
 */
import type { Json } from '../openapi-parts';

export const DEFINITION_SCHEMA_PATH = '/api/schemas/workflow-definition.json';

/** The OpenAPI operation whose request body is a workflow definition (`workflows.create`). */
const DEFINITION_OPERATION = '/api/v1/workflows';

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every `#/components/schemas/<name>` a schema names, directly or through the schemas it names. */
function referencedComponents(schema: unknown, components: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => referencedComponents(s, components, found));
  else if (isObject(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      const name = key === '$ref' && typeof value === 'string' ? COMPONENT_REF.exec(value)?.[1] : undefined;
      if (name !== undefined) {
        const decoded = name.replace(/~1/g, '/').replace(/~0/g, '~');
        if (!found.has(decoded) && components[decoded] !== undefined) {
          found.add(decoded);
          referencedComponents(components[decoded], components, found);
        }
      } else referencedComponents(value, components, found);
    }
  }
  return found;
}

/** The same schema with `#/components/schemas/X` pointing at `#/$defs/X`. */
function rewriteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? value.replace(COMPONENT_REF, '#/$defs/$1') : rewriteRefs(value),
    ]),
  );
}

/**
 * The definition's schema out of an OpenAPI document, with `$defs` for what it names; undefined
 * when the document has no such operation. `id`: the URL it is served at (its `$id`).
 */
export function definitionSchema(openapi: unknown, id?: string): Json | undefined {
  if (!isObject(openapi) || !isObject(openapi.paths)) return undefined;
  const op = openapi.paths[DEFINITION_OPERATION];
  const body = isObject(op) && isObject(op.post) && isObject(op.post.requestBody) ? op.post.requestBody : undefined;
  const content =
    body && isObject(body.content) && isObject(body.content['application/json']) ? body.content['application/json'] : undefined;
  const schema = content?.schema;
  if (!isObject(schema)) return undefined;
  const components = isObject(openapi.components) && isObject(openapi.components.schemas) ? openapi.components.schemas : {};
  const names = referencedComponents(schema, components);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...(id ? { $id: id } : {}),
    title: 'Workflow definition',
    ...(rewriteRefs(schema) as Json),
    ...(names.size > 0 ? { $defs: Object.fromEntries([...names].map((n) => [n, rewriteRefs(components[n])])) } : {}),
  };
}
