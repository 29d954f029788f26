import type { z } from 'zod';

/**
 * Response values checked once instead of on every response (issue #16).
 *
 * A value its response schema already parsed (a module as the catalog presents it, once per
 * catalog snapshot; a memoised search result) is frozen, marked as checked and, when first
 * encoded, remembered with its JSON text. An envelope the service composes of such values and
 * primitives it constructs (a page: `data`, `has_more`, `next_cursor`, `total`) may be marked as
 * checked too. The REST adapter then skips the procedure's output parser for a checked result
 * (src/server/http/procedure.ts) and writes the remembered texts instead of encoding them again
 * (`encodeJson`). Every other value is parsed and encoded per response, as before.
 */
const checked = new WeakSet<object>();
const texts = new WeakMap<object, string>();

/** `value` parsed by `schema` (as the output parser would), frozen and marked as checked. */
export function checkOnce<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed: unknown = schema.parse(value);
  if (typeof parsed === 'object' && parsed !== null) {
    for (const child of Object.values(parsed)) if (Array.isArray(child)) Object.freeze(child);
    checked.add(Object.freeze(parsed));
  }
  return parsed as z.output<S>;
}

/** Marks an envelope built only of checked values and primitives the service constructs. */
export function markChecked<T extends object>(value: T): T {
  checked.add(value);
  return value;
}

export function isChecked(value: unknown): boolean {
  return typeof value === 'object' && value !== null && checked.has(value);
}

/** The JSON text of `value`; a checked value's parts are encoded once and reused. */
export function encodeJson(value: unknown): string {
  return isChecked(value) ? encodeChecked(value as object) : JSON.stringify(value);
}

/** A value from `checkOnce` (frozen) is encoded once and remembered; a marked envelope per response. */
function encodeChecked(value: object): string {
  if (!Object.isFrozen(value)) return encodeComposed(value);
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}

/** A composed envelope: its own keys encoded here, its checked parts from their remembered text. */
function encodeComposed(value: object): string {
  if (Array.isArray(value)) return `[${value.map((item) => encodePart(item) ?? 'null').join(',')}]`;
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const encoded = encodePart(item);
    if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
  }
  return `{${parts.join(',')}}`;
}

function encodePart(item: unknown): string | undefined {
  if (isChecked(item)) return encodeChecked(item as object);
  if (Array.isArray(item) || (typeof item === 'object' && item !== null && Object.getPrototypeOf(item) === Object.prototype)) return encodeComposed(item);
  return JSON.stringify(item);
}
