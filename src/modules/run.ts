/**
 * Runs one built-in action. Loaded inside the worker threads of the pool (see worker.mjs), so
 * CPU-heavy actions never block the event loop that serves requests.
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
  | { ok: false; code: 'invalid_input' | 'module_error'; message: string };

const actions = new Map<string, ActionDefinition>();
for (const m of BUILTIN_MODULES) for (const a of m.actions) actions.set(`${m.name}/${a.name}`, a);

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
    return { ok: false, code: 'module_error', message: safeMessage(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** A library's message without stack or paths, cut to a sane length. */
function safeMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.replace(/\/[\w./-]+\.(?:ts|js|mjs)\b/g, '<file>').slice(0, 500) || 'The action failed.';
}
