import type { z } from 'zod';

/**
 * Response values checked once instead of on every response (docs/performance.md, Outputs
 * checked once).
 *
 * A value its response schema already parsed (a module as the catalog presents it, once per
 * catalog snapshot; a memoised search result) is frozen, marked as checked and, when first
 * encoded, remembered with its JSON text. An envelope the service composes of such values and
 * primitives it constructs (a page: `data`, `has_more`, `next_cursor`, `total`) may be marked as
 * checked too. The REST adapter then skips the procedure's output parser for a checked result
 * (src/server/http/procedure.ts) and writes the remembered texts instead of encoding them again
 * (`encodeJson`). Every other value is parsed and encoded per response.
 */
const checked = new WeakSet<object>();
const encoded = new WeakMap<object, Buffer>();

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

/**
 * Values the service composed of primitives it constructs and parts their schema takes as they
 * are (`z.unknown()`, e.g. a module action's output): nothing for the output parser to check,
 * and nothing remembered to encode, so they are encoded as any other value.
 */
const trusted = new WeakSet<object>();

/** Marks such a value: the REST adapter skips its output parser (it is encoded as usual). */
export function markTrusted<T extends object>(value: T): T {
  trusted.add(value);
  return value;
}

/** Whether the output parser may be skipped for `value` (checked, or trusted). */
export function isChecked(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (checked.has(value) || trusted.has(value));
}

/** A value whose parts encodeJson may take from their remembered bytes. */
function remembersParts(value: unknown): value is object {
  return typeof value === 'object' && value !== null && checked.has(value);
}

/**
 * The JSON of `value` as UTF-8 bytes; a checked value's parts are encoded once and reused.
 * Bytes, not text: the response is written as its header and this buffer (one `writev`), without
 * the copy that joining a long (or non-Latin-1) text to the header costs.
 */
export function encodeJson(value: unknown): Buffer {
  if (!remembersParts(value)) return Buffer.from(JSON.stringify(value) ?? 'null');
  const pieces: (string | Buffer)[] = [];
  encodeChecked(value, pieces);
  // A remembered value alone is answered with its own bytes (written, never changed).
  return pieces.length === 1 && typeof pieces[0] !== 'string' ? pieces[0]! : concatPieces(pieces);
}

/** A value from `checkOnce` (frozen) is encoded once and remembered; a marked envelope per response. */
function encodeChecked(value: object, pieces: (string | Buffer)[]): void {
  if (!Object.isFrozen(value)) return encodeComposed(value, pieces);
  let bytes = encoded.get(value);
  if (bytes === undefined) encoded.set(value, (bytes = Buffer.from(JSON.stringify(value))));
  pieces.push(bytes);
}

/** A composed envelope: its own keys encoded here, its checked parts from their remembered bytes. */
function encodeComposed(value: object, pieces: (string | Buffer)[]): void {
  const array = Array.isArray(value);
  pieces.push(array ? '[' : '{');
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    const at = pieces.length;
    pieces.push(`${first ? '' : ','}${array ? '' : `${JSON.stringify(key)}:`}`);
    if (!encodePart(item, pieces)) {
      // What JSON.stringify leaves out (undefined, a function): an object drops the member, an array writes null.
      if (!array) {
        pieces.length = at;
        continue;
      }
      pieces.push('null');
    }
    first = false;
  }
  pieces.push(array ? ']' : '}');
}

/** Adds `item`'s JSON; false when it has none (JSON.stringify answers undefined). */
function encodePart(item: unknown, pieces: (string | Buffer)[]): boolean {
  if (remembersParts(item)) {
    encodeChecked(item, pieces);
    return true;
  }
  if (Array.isArray(item) || (typeof item === 'object' && item !== null && Object.getPrototypeOf(item) === Object.prototype)) {
    encodeComposed(item, pieces);
    return true;
  }
  const text: string | undefined = JSON.stringify(item);
  if (text === undefined) return false;
  pieces.push(text);
  return true;
}

function concatPieces(pieces: (string | Buffer)[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
  return out;
}
