/**
 * Runs one built-in action. Loaded inside the worker threads of the pool (see worker.mjs), so
 * CPU-heavy actions never block the event loop that serves requests; I/O-bound ones (`io: true`)
 * run on the event loop through runIoAction.
 */
import { BUILTIN_MODULES } from './registry';
import { ActionInputError, type ActionDefinition } from './types';

export interface ActionTask {
  module: string;
  action: string;
  input: unknown;
  timeoutMs: number;
  allowPrivateNetwork: boolean;
}

export type ActionOutcome =
  | { ok: true; output: unknown }
  | { ok: false; code: 'invalid_input' | 'module_error' | 'timeout'; message: string };

const actions = new Map<string, ActionDefinition>();
for (const m of BUILTIN_MODULES) for (const a of m.actions) actions.set(`${m.name}/${a.name}`, a);

/** True for an action marked `io: true` (it runs on the event loop, see runIoAction). */
export function isIoAction(module: string, action: string): boolean {
  return actions.get(`${module}/${action}`)?.io === true;
}

const IO_GRACE_MS = 250;

/**
 * Runs an I/O-bound action in this thread (the event loop): its signal aborts at the deadline,
 * and if it has not settled IO_GRACE_MS later the outcome is a timeout all the same (the
 * action's pending work is left to its aborted signal).
 */
export async function runIoAction(task: ActionTask): Promise<ActionOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ActionOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` }), task.timeoutMs + IO_GRACE_MS);
  });
  try {
    return await Promise.race([runBuiltinAction(task), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runBuiltinAction(task: ActionTask): Promise<ActionOutcome> {
  const action = actions.get(`${task.module}/${task.action}`);
  if (!action) return { ok: false, code: 'module_error', message: `Unknown built-in action ${task.module}.${task.action}.` };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), task.timeoutMs);
  try {
    const output = await action.run(task.input, { allowPrivateNetwork: task.allowPrivateNetwork, signal: controller.signal });
    // Plain JSON only: drop undefined and anything structured cloning would keep but JSON would not.
    return { ok: true, output: output === undefined ? null : JSON.parse(JSON.stringify(output)) };
  } catch (err) {
    if (err instanceof ActionInputError) return { ok: false, code: 'invalid_input', message: err.message };
    if (controller.signal.aborted) return { ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` };
    return { ok: false, code: 'module_error', message: safeMessage(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** A library's message without stack or paths, cut to a sane length. */
function safeMessage(err: unknown): string {
  // A stack overflow (data nested tens of thousands deep) is the engine's, not the library's.
  if (err instanceof RangeError && /call stack/i.test(err.message)) return 'The data is nested too deeply to process.';
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.replace(/\/[\w./-]+\.(?:ts|js|mjs)\b/g, '<file>').slice(0, 500) || 'The action failed.';
}
