/**
 * How deeply a request's JSON may nest: every transport (REST, tRPC, MCP) refuses a deeper body
 * or input with 400 before anything walks it, so no recursive walk (validation, storable-text
 * checks, serialisation) can exhaust the stack. 64 levels is far beyond any real input.
 */
export const MAX_JSON_DEPTH = 64;

/** The message of the 400 (REST `invalid_request`, tRPC BAD_REQUEST, MCP parse error). */
export const TOO_DEEP_MESSAGE = `The request nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * Whether `value` nests arrays/objects more than `max` levels deep (a scalar is depth 0, `[]`
 * and `{}` depth 1). Iterative, so any depth is safe; stops at the first level past `max`.
 * Shared references are walked once per reference, and a cycle counts as too deep.
 */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const item of Object.values(node)) {
      if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
    }
  }
  return false;
}
