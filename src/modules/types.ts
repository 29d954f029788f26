/**
 * The shape of a built-in module pack. Each module lives in `src/modules/<name>/index.ts` and
 * default-exports a ModuleDefinition. Actions run inside the worker pool (worker threads), so
 * they receive plain JSON input and must return plain JSON output (no class instances,
 * Buffers, Dates or functions: encode binary data as base64 strings, dates as ISO strings).
 */

/** A JSON Schema (draft 2020-12 subset that ajv understands). */
export type JsonSchema = Record<string, unknown>;

export interface ActionExample {
  input: Record<string, unknown>;
  /** The exact output for `input` (compared deep-equal in tests unless the action is nondeterministic). */
  output: unknown;
}

export interface ActionContext {
  /** True when WEBHOOK_ALLOW_PRIVATE=1: private/loopback network targets are allowed (tests, development). */
  allowPrivateNetwork: boolean;
  /** Aborted when the execution's deadline passes. */
  signal: AbortSignal;
}

export interface ActionDefinition {
  /** `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`, at most 30 characters. */
  name: string;
  /** One or two sentences for agents: what it does and when to use it. */
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** At least one. */
  examples: ActionExample[];
  /** Output varies between runs (random ids, current time, network): examples are schema-checked only. */
  nondeterministic?: boolean;
  /** Hard deadline in ms (default 10 000); the worker running it is terminated when it passes. */
  timeoutMs?: number;
  /**
   * I/O-bound: the action mostly awaits the network. It runs on the event loop, not in a worker
   * thread, so waiting never holds a CPU worker; its deadline aborts `ctx.signal`, and its
   * outcome is a timeout when it has not settled by then.
   */
  io?: boolean;
  /**
   * Pure, and fast for any input of at most 512 bytes (microseconds): such a call runs on the
   * event loop under its deadline instead of waiting for a worker, and records with one commit
   * instead of two. Mark an action only after measuring its worst case under that cap
   * (docs/performance.md, "Inline actions and the worker pool").
   */
  inline?: boolean;
  // The engine validates input against inputSchema first, so each action may type it itself.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run(input: any, ctx: ActionContext): unknown | Promise<unknown>;
}

export interface ModuleDefinition {
  /** `^[a-z][a-z0-9-]{1,29}$` */
  name: string;
  /** semver */
  version: string;
  title: string;
  description: string;
  /** One of MODULE_CATEGORIES. */
  category: ModuleCategory;
  tags: string[];
  actions: ActionDefinition[];
}

export const MODULE_CATEGORIES = [
  'text',
  'data',
  'documents',
  'web',
  'security',
  'math',
  'time',
  'media',
  'validation',
  'utilities',
] as const;
export type ModuleCategory = (typeof MODULE_CATEGORIES)[number];

/**
 * Thrown by an action for bad input that the JSON Schema could not express (e.g. an invalid
 * expression, an unparsable date). The execution fails with `invalid_input` (422).
 * Any other thrown error is a `module_error` (502).
 */
export class ActionInputError extends Error {
  override name = 'ActionInputError';
}
