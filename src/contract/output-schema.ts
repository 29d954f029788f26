/**
 * What the JSON Schemas of answers and event payloads leave out of zod's conversion, wherever they
 * are published (the OpenAPI documents, the event catalog).
 */

/**
 * zod gives every `.int()` the bounds of a safe integer (`minimum: -9007199254740991`): no
 * information for a client, and API references show that number as the example value of every
 * count. Removed wherever they appear; real bounds (`.min(0)`, `.max(100)`) stay.
 */
export function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropSafeIntegerBounds);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  for (const value of Object.values(schema)) dropSafeIntegerBounds(value);
}

/**
 * An answer's schema says what is sent today, not all that may ever be: new members may appear in
 * answers, event payloads and error bodies without notice (docs/versioning.md), so a client must
 * accept members it does not know. zod's output side closes every object
 * (`additionalProperties: false`), which would tell a generated client (a validator, a model that
 * forbids extra fields) to refuse the next release's answers; every such `false` is removed, at
 * any depth. Schemas of what the API accepts stay closed: an unknown member is refused there.
 */
export function openObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(openObjects);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.additionalProperties === false) delete schema.additionalProperties;
  for (const value of Object.values(schema)) openObjects(value);
}
