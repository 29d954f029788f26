import jsonata from 'jsonata';
import type { Services } from '../services';

/** Time a caller's expression may take to evaluate (jsonata's own `timeout` in the chain and workflows before). */
export const EXPRESSION_TIMEOUT_MS = 1000;

/**
 * Parses a JSONata expression (syntax only, nothing runs) and returns its syntax tree, or throws
 * an Error with jsonata's message and where in the expression it stopped (`at character n`).
 * Parsing is linear in the expression's length, which callers bound.
 */
export function parseExpression(expression: string): unknown {
  try {
    return jsonata(expression).ast();
  } catch (err) {
    const { message, position } = err as { message?: string; position?: unknown };
    const at = typeof position === 'number' ? ` (at character ${position})` : '';
    throw new Error(`${message ?? 'syntax error'}${at}`, { cause: err });
  }
}

/**
 * Evaluates a JSONata expression a caller wrote (a chain step's `map`, a workflow step's `map` or
 * `if`) over `data`, in the action worker pool instead of on the event loop: jsonata checks its
 * `timeout` only between evaluation steps, so a single built-in call could hold the thread that
 * serves every tenant (a backtracking regex, `$replace(s, /(a+)+$/, "")` on 40 characters: hours;
 * `$pad("", 100000000, "ab")`: 17 s and 1.5 GB). A worker still running at the deadline is
 * terminated, and its heap is bounded (pool.ts WORKER_RESOURCE_LIMITS). The worker lease is taken
 * fairly among tenants, like a CPU-bound action's. The json module's query_jsonata evaluates it;
 * the result is `undefined` when the expression yields nothing. Throws an Error with the reason.
 */
export async function evaluateExpression(svc: Services, tenantId: string, expression: string, data: unknown): Promise<unknown> {
  const lease = await svc.pool.queue.admit(tenantId, svc.config.executionQueueWaitMs);
  if (!lease) throw new Error('the service is at capacity and could not evaluate it; retry shortly');
  let outcome;
  try {
    // Wrapped so that "no result" (undefined, which JSON cannot carry back) is an empty object.
    const input = { data: data ?? null, expression: `{ "value": (${expression}\n) }` };
    outcome = await svc.pool.run(
      { module: 'json', action: 'query_jsonata', input, timeoutMs: EXPRESSION_TIMEOUT_MS, allowPrivateNetwork: false },
      lease,
    );
  } finally {
    lease.release();
  }
  if (outcome.ok) return (outcome.output as { result: { value?: unknown } | null }).result?.value;
  if (outcome.code === 'timeout') throw new Error(`it did not finish within ${EXPRESSION_TIMEOUT_MS} ms`);
  // A worker that died with it (its heap limit) reports only that it crashed.
  if (outcome.code === 'module_error') throw new Error('it used more memory than an expression may');
  throw new Error(outcome.message.replace(/^JSONata evaluation failed: /, ''));
}
