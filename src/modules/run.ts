/**
 * Runs one built-in action. Loaded inside the worker threads of the pool (see worker.mjs), so
 * CPU-heavy actions never block the event loop that serves requests; I/O-bound ones (`io: true`)
 * and the trivial inline ones run on the event loop through runIoAction and runBuiltinAction.
 * A pack is loaded on first use (packs.ts), so a worker holds only the packs it has run.
 */
import { PACK_LOADERS } from './packs';
import { ActionInputError, type ActionDefinition } from './types';

export interface ActionTask {
  module: string;
  action: string;
  input: unknown;
  timeoutMs: number;
  allowPrivateNetwork: boolean;
}

export type ActionOutcome =
  { ok: true; output: unknown } | { ok: false; code: 'invalid_input' | 'module_error' | 'timeout'; message: string };

/** The loaded packs' actions by `module/action`. */
const actions = new Map<string, ActionDefinition>();
/** Packs loaded or loading, by name. */
const packs = new Map<string, Promise<void>>();

/**
 * Loads the pack `module` (once; later calls share the first), so its actions can run. False for
 * a name that is not a built-in pack. The worker calls it before it notes a task as started, so
 * loading a pack never counts against an action's deadline.
 */
export async function loadPack(module: string): Promise<boolean> {
  const loader = Object.hasOwn(PACK_LOADERS, module) ? PACK_LOADERS[module] : undefined;
  if (!loader) return false;
  let loading = packs.get(module);
  if (!loading) {
    loading = loader().then(({ default: pack }) => {
      for (const a of pack.actions) actions.set(`${pack.name}/${a.name}`, a);
    });
    // A failed import may be retried by the next task.
    loading.catch(() => packs.delete(module));
    packs.set(module, loading);
  }
  await loading;
  return true;
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
    timer = setTimeout(
      () => resolve({ ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` }),
      task.timeoutMs + IO_GRACE_MS,
    );
  });
  try {
    return await Promise.race([runBuiltinAction(task), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runBuiltinAction(task: ActionTask): Promise<ActionOutcome> {
  const key = `${task.module}/${task.action}`;
  if (!actions.has(key)) {
    try {
      await loadPack(task.module);
    } catch (err) {
      return { ok: false, code: 'module_error', message: safeMessage(err) };
    }
  }
  const action = actions.get(key);
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
  return (
    message
      .split('\n')[0]!
      .replace(/\/[\w./-]+\.(?:ts|js|mjs)\b/g, '<file>')
      .slice(0, 500) || 'The action failed.'
  );
}
