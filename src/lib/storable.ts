/**
 * PostgreSQL text and jsonb cannot hold U+0000 or unpaired UTF-16 surrogates. A client cannot
 * send them (the procedure chain refuses them in every input, src/server/trpc.ts); a module output may contain
 * them, so what is stored has them replaced by U+FFFD while the caller still gets the original.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

/** The path of the first string or object key that cannot be stored, or undefined. */
export function findUnstorable(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (!isStorableText(key)) return at;
    const found = findUnstorable(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `value` with U+0000 and unpaired surrogates replaced by U+FFFD (in strings and keys). Fast
 * path: JSON.stringify escapes exactly those characters (`\u0000`, `\udXXX`), so without such an
 * escape in `serialized` the value is returned as it is.
 */
export function storableJson<T>(value: T, serialized = JSON.stringify(value)): T {
  if (serialized === undefined || !/\\u0000|\\ud[89a-f]/i.test(serialized)) return value;
  return replaceUnstorable(value) as T;
}

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const clean = (s: string) => s.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');

function replaceUnstorable(value: unknown): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map(replaceUnstorable);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), replaceUnstorable(v)]));
  }
  return value;
}
