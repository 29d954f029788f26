/**
 * The `javascript` runtime's sandbox: QuickJS compiled to WebAssembly (quickjs-emscripten).
 * Runs inside the sandbox worker threads (see sandbox-worker.mjs and sandbox.ts); the functions
 * here are plain and synchronous apart from loading the WASM module once, so they can also be
 * called in-process (unit tests).
 *
 * The contract for published source (docs/publishing.md):
 * - the source is a classic script (no `import`/`export`) that defines a global function
 *   `handle(action, input)`; `action` is the action name, `input` the validated input object;
 * - it returns the output (any JSON value), or a promise of it (only microtasks exist: no timers,
 *   no I/O, so the promise must settle without waiting for anything);
 * - `throw new InputError(message)` (a global provided by the sandbox) fails the execution with
 *   `invalid_input` (422); any other throw is `module_error` (502) with the error's message;
 * - there is no host API at all: no fetch, require, process, console, timers, fs or network.
 *
 * Each run gets a fresh QuickJS runtime and context: a memory limit, a stack limit (deep
 * recursion is a guest `InternalError`, never a host crash) and an interrupt deadline (a runaway
 * loop or regex is stopped inside the interpreter and reported as `timeout`).
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

export const SANDBOX_MEMORY_LIMIT_BYTES = 32 * 1024 * 1024;
/**
 * The ceiling of the WebAssembly memory QuickJS runs in. QuickJS's own limit
 * (SANDBOX_MEMORY_LIMIT_BYTES) counts an allocation's size only where malloc_usable_size exists,
 * which this WASM build lacks: it refuses a single allocation over the limit but not many under
 * it (20 ArrayBuffers of 16 MiB passed, and the worker's memory never shrinks back). A memory that
 * cannot grow past this makes every allocation beyond it fail inside QuickJS ("out of memory").
 * 16 MiB of it is the module's own start (its initial memory).
 */
export const SANDBOX_WASM_MEMORY_BYTES = 16 * 1024 * 1024 + 2 * SANDBOX_MEMORY_LIMIT_BYTES;
const WASM_PAGE_BYTES = 65_536;
export const SANDBOX_MAX_STACK_BYTES = 256 * 1024;
const MAX_OUTPUT_BYTES = 1024 * 1024;
const MAX_MESSAGE_CHARS = 500;
/**
 * Outputs nested deeper are refused before QuickJS serialises them: its JSON.stringify and the
 * freeing of what it half-built recurse on the native (WASM) stack, which a worker thread cannot
 * survive for a structure thousands of levels deep (the task would hang until its kill deadline).
 */
export const MAX_OUTPUT_DEPTH = 1000;

export type SandboxTask =
  { kind: 'run'; source: string; action: string; input: unknown; timeoutMs: number } | { kind: 'check'; source: string; timeoutMs: number };

export type SandboxOutcome =
  { ok: true; output: unknown } | { ok: false; code: 'invalid_input' | 'module_error' | 'timeout'; message: string };

const PRELUDE = `globalThis.InputError = class InputError extends Error {
  constructor(message) { super(message); this.name = 'InputError'; }
};`;

/**
 * Evaluates (before any guest code, with the builtins it uses captured) to a function telling
 * whether a value nests objects or arrays deeper than a limit; iterative, so it cannot overflow.
 */
const DEPTH_CHECK = `(() => {
  const keys = Object.keys;
  return function nestsDeeperThan(root, limit) {
    const stack = [root, 1];
    while (stack.length > 0) {
      const depth = stack.pop();
      const value = stack.pop();
      if (value === null || typeof value !== 'object') continue;
      if (depth > limit) return true;
      const names = keys(value);
      for (let i = 0; i < names.length; i++) stack.push(value[names[i]], depth + 1);
    }
    return false;
  };
})()`;

let loading: Promise<QuickJSWASMModule> | undefined;

/** The WASM module, loaded once per thread (a fresh one after a WASM-level failure). */
function quickjs(): Promise<QuickJSWASMModule> {
  if (loading) return loading;
  const memory = new WebAssembly.Memory({
    initial: (16 * 1024 * 1024) / WASM_PAGE_BYTES,
    maximum: SANDBOX_WASM_MEMORY_BYTES / WASM_PAGE_BYTES,
  });
  loading = newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory })).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** Loads the WASM module ahead of the first task (worker start-up). */
export async function loadSandbox(): Promise<void> {
  await quickjs();
}

/** Runs one task in a fresh QuickJS runtime. Never throws for anything the guest does. */
export async function runSandboxTask(task: SandboxTask): Promise<SandboxOutcome> {
  const module = await quickjs();
  try {
    return runInFreshContext(module, task);
  } catch (err) {
    // A failure of the WASM machine itself (e.g. an abort): drop this module instance, so the
    // next task gets a clean one, and report a module error without host details.
    loading = undefined;
    return { ok: false, code: 'module_error', message: `The sandbox failed: ${err instanceof Error ? err.name : 'error'}.` };
  }
}

function runInFreshContext(module: QuickJSWASMModule, task: SandboxTask): SandboxOutcome {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(SANDBOX_MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(SANDBOX_MAX_STACK_BYTES);
  const deadline = Date.now() + Math.max(1, task.timeoutMs);
  runtime.setInterruptHandler(() => Date.now() > deadline);
  const ctx = runtime.newContext();
  const handles: QuickJSHandle[] = [];
  const keep = (h: QuickJSHandle) => (handles.push(h), h);
  const timedOut = () => Date.now() > deadline;
  try {
    // The original JSON functions, taken before the guest could replace them.
    const json = keep(ctx.getProp(ctx.global, 'JSON'));
    const parse = keep(ctx.getProp(json, 'parse'));
    const stringify = keep(ctx.getProp(json, 'stringify'));
    const prelude = ctx.evalCode(PRELUDE, 'prelude.js', { type: 'global' });
    if (prelude.error) {
      keep(prelude.error);
      return { ok: false, code: 'module_error', message: 'The sandbox could not start.' };
    }
    keep(prelude.value);
    const depthCheck = ctx.evalCode(DEPTH_CHECK, 'depth.js', { type: 'global' });
    if (depthCheck.error) {
      keep(depthCheck.error);
      return { ok: false, code: 'module_error', message: 'The sandbox could not start.' };
    }
    const nestsDeeperThan = keep(depthCheck.value);

    const evaluated = ctx.evalCode(task.source, 'module.js', { type: 'global' });
    if (evaluated.error) return guestFailure(ctx, keep(evaluated.error), timedOut(), task.kind === 'check');
    keep(evaluated.value);

    const fn = keep(ctx.getProp(ctx.global, 'handle'));
    if (ctx.typeof(fn) !== 'function') {
      return { ok: false, code: 'module_error', message: 'The source must define a function handle(action, input).' };
    }
    if (task.kind === 'check') return { ok: true, output: null };

    const inputJson = keep(ctx.newString(JSON.stringify(task.input ?? {})));
    const parsed = ctx.callFunction(parse, json, inputJson);
    if (parsed.error) return guestFailure(ctx, keep(parsed.error), timedOut(), false);
    const input = keep(parsed.value);
    const action = keep(ctx.newString(task.action));

    const called = ctx.callFunction(fn, ctx.undefined, action, input);
    if (called.error) return guestFailure(ctx, keep(called.error), timedOut(), false);
    let result = keep(called.value);

    if (isPromise(ctx, result)) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return guestFailure(ctx, keep(jobs.error), timedOut(), false);
      const state = ctx.getPromiseState(result);
      if (state.type === 'pending') {
        return {
          ok: false,
          code: 'module_error',
          message: 'handle() returned a promise that never settled (the sandbox has no timers or I/O).',
        };
      }
      if (state.type === 'rejected') return guestFailure(ctx, keep(state.error), timedOut(), false);
      result = keep(state.value);
    }

    const deep = ctx.callFunction(nestsDeeperThan, ctx.undefined, result, keep(ctx.newNumber(MAX_OUTPUT_DEPTH)));
    if (deep.error) return guestFailure(ctx, keep(deep.error), timedOut(), false);
    if (ctx.dump(keep(deep.value)) === true) {
      return {
        ok: false,
        code: 'module_error',
        message: `The action output is nested deeper than ${MAX_OUTPUT_DEPTH} levels (or refers to itself).`,
      };
    }
    const serialized = ctx.callFunction(stringify, json, result);
    if (serialized.error) return guestFailure(ctx, keep(serialized.error), timedOut(), false);
    const text = keep(serialized.value);
    if (ctx.typeof(text) !== 'string') return { ok: true, output: null }; // undefined, a function...
    const out = ctx.getString(text);
    if (Buffer.byteLength(out) > MAX_OUTPUT_BYTES) return { ok: false, code: 'module_error', message: 'The action output exceeds 1 MiB.' };
    return { ok: true, output: JSON.parse(out) as unknown };
  } finally {
    for (const h of handles.reverse()) if (h.alive) h.dispose();
    ctx.dispose();
    runtime.dispose();
  }
}

function isPromise(ctx: QuickJSContext, handle: QuickJSHandle): boolean {
  if (ctx.typeof(handle) !== 'object') return false;
  const state = ctx.getPromiseState(handle);
  // Not a promise: reported as fulfilled with the handle itself (not a new handle to dispose).
  if (state.type === 'fulfilled' && state.notAPromise) return false;
  if (state.type === 'fulfilled') state.value.dispose();
  if (state.type === 'rejected') state.error.dispose();
  return true;
}

/** A guest exception as an outcome: its name and message only, never a stack. */
function guestFailure(ctx: QuickJSContext, error: QuickJSHandle, timedOut: boolean, compile: boolean): SandboxOutcome {
  const dumped = safeDump(ctx, error);
  const name = typeof dumped?.name === 'string' ? dumped.name : undefined;
  const message = typeof dumped?.message === 'string' ? dumped.message : undefined;
  if (name === 'InternalError' && message === 'interrupted' && timedOut) {
    return {
      ok: false,
      code: 'timeout',
      message: compile ? 'The source did not finish evaluating in time.' : 'The action did not finish within its timeout.',
    };
  }
  if (name === 'InternalError' && message === 'out of memory') {
    return {
      ok: false,
      code: 'module_error',
      message: `The action ran out of memory (limit ${SANDBOX_MEMORY_LIMIT_BYTES / 1024 / 1024} MiB).`,
    };
  }
  if (name === 'InternalError' && message === 'stack overflow') {
    return { ok: false, code: 'module_error', message: 'The action overflowed its stack (too deep recursion).' };
  }
  if (name === 'InputError') return { ok: false, code: 'invalid_input', message: truncate(message || 'The input was rejected.') };
  if (compile && name === 'SyntaxError') {
    const line = typeof dumped?.lineNumber === 'number' ? ` (line ${dumped.lineNumber})` : '';
    return { ok: false, code: 'module_error', message: truncate(`SyntaxError: ${message ?? 'invalid source'}${line}`) };
  }
  if (name !== undefined || message !== undefined) {
    return { ok: false, code: 'module_error', message: truncate([name, message].filter(Boolean).join(': ')) };
  }
  // A thrown non-error value (a string, a number, an object).
  const text = typeof dumped === 'string' ? dumped : safeJson(dumped);
  return { ok: false, code: 'module_error', message: truncate(`Uncaught ${text}`) };
}

function safeDump(ctx: QuickJSContext, handle: QuickJSHandle): Record<string, unknown> | undefined {
  try {
    const value: unknown = ctx.dump(handle);
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
    return { value } as Record<string, unknown> & { value: unknown };
  } catch {
    return undefined;
  }
}

function safeJson(value: unknown): string {
  const v =
    typeof value === 'object' && value !== null && 'value' in value && Object.keys(value).length === 1
      ? (value as { value: unknown }).value
      : value;
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function truncate(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…` : line;
}
