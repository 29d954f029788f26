import { invalidRequest, type AppError } from './errors';

/**
 * PostgreSQL text and jsonb cannot hold U+0000 or unpaired UTF-16 surrogates. A client cannot
 * send them (the procedure chain refuses them in every input, src/server/trpc.ts); a module output may contain
 * them, so what is stored has them replaced by U+FFFD while the caller still gets the original.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

/**
 * The path of the first string or object key that cannot be stored, or undefined. Iterative
 * (depth-first, in key order), so no nesting depth can exhaust the stack.
 */
export function findUnstorable(value: unknown, path = ''): string | undefined {
  if (!mayHoldUnstorable(value)) return undefined;
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'string') {
      if (!isStorableText(node)) return at;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      const itemAt = at ? `${at}.${key}` : key;
      // The key is checked (as a string at the same path) before its value is walked.
      stack.push([item, itemAt], [key, itemAt]);
    }
  }
  return undefined;
}

/**
 * What a client is told when its input holds such text (`at`: the dotted path of the field, when
 * known): one wording on every surface (REST and tRPC, the identity provider, the OAuth sign-in).
 */
export function unstorableMessage(at?: string): string {
  return `The request contains a NUL (U+0000) character or an unpaired surrogate${at ? ` at ${at}` : ''}; such text cannot be stored.`;
}

/**
 * The 400 `invalid_request` for input holding such text at `at` (a path from findUnstorable): the
 * top-level field in the issue, the place in the message. The procedure chain (src/server/trpc.ts)
 * and the JSON-RPC surfaces that take input outside it (MCP tools/call) answer with this one error.
 */
export function unstorableInput(at: string): AppError {
  const message = unstorableMessage(at);
  return invalidRequest(message, [{ path: at.split('.')[0]!, message }]);
}

/**
 * JSON.stringify writes U+0000 and unpaired surrogates as these escapes and no other character so.
 * Text that spells one out (`\\u0000`) matches too: then the value is walked, to the same answer.
 */
const UNSTORABLE_ESCAPE = /\\u0000|\\ud[89a-f]/i;

/**
 * False when `value` surely holds no unstorable string or key: its JSON (native, and far cheaper
 * than walking it in JavaScript, which built a path for every node of every request's input)
 * has no escape of one. What JSON cannot show (a cycle, undefined) is walked.
 */
function mayHoldUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  let serialized: string | undefined;
  try {
    serialized = JSON.stringify(value);
  } catch {
    return true;
  }
  return serialized === undefined || UNSTORABLE_ESCAPE.test(serialized);
}

/**
 * `value` with U+0000 and unpaired surrogates replaced by U+FFFD (in strings and keys). Fast
 * path: JSON.stringify escapes exactly those characters (`\u0000`, `\udXXX`), so without such an
 * escape in `serialized` the value is returned as it is.
 */
export function storableJson<T>(value: T, serialized = JSON.stringify(value)): T {
  if (serialized === undefined || !UNSTORABLE_ESCAPE.test(serialized)) return value;
  return replaceUnstorable(value) as T;
}

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const clean = (s: string) => s.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');

/** `s` with U+0000 and unpaired surrogates replaced by U+FFFD (e.g. an error message to store). */
export function storableText(s: string): string {
  return isStorableText(s) ? s : clean(s);
}

/** Iterative copy with every string and key cleaned, so no output depth exhausts the stack. */
function replaceUnstorable(value: unknown): unknown {
  const root: { v: unknown } = { v: undefined };
  const stack: [unknown, (v: unknown) => void][] = [[value, (v) => (root.v = v)]];
  while (stack.length > 0) {
    const [node, set] = stack.pop()!;
    if (typeof node === 'string') set(clean(node));
    else if (Array.isArray(node)) {
      const copy: unknown[] = new Array(node.length);
      set(copy);
      node.forEach((item, i) => stack.push([item, (v) => (copy[i] = v)]));
    } else if (typeof node === 'object' && node !== null) {
      const copy: Record<string, unknown> = {};
      set(copy);
      for (const [k, item] of Object.entries(node)) {
        const key = clean(k);
        copy[key] = undefined; // keeps the key order of the original
        stack.push([item, (v) => (copy[key] = v)]);
      }
    } else set(node);
  }
  return root.v;
}
