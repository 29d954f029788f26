/**
 * PostgreSQL text and jsonb cannot hold U+0000. Module outputs may contain it (a client cannot
 * send it: the REST adapter refuses it), so what is stored has it replaced by U+FFFD; the caller
 * still answers with the original value.
 */
export function storableJson<T>(value: T, serialized = JSON.stringify(value)): T {
  if (serialized === undefined || !serialized.includes('\\u0000')) return value;
  return replaceNul(value) as T;
}

function replaceNul(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\uFFFD');
  if (Array.isArray(value)) return value.map(replaceNul);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\u0000', '\uFFFD'), replaceNul(v)]));
  }
  return value;
}
