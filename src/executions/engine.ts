/**
 * The engine without the books: which worker queue an action waits in, admission to it, and
 * running an action against its input schema. No records, no quota, no events: executeAction
 * (execute.ts) wraps this with all of those; certification runs use it bare (not billed, no
 * execution events).
 */
import type { ModuleActionRow, ModuleRow } from '../db/schema';
import { AppError } from '../lib/errors';
import { builtinAction } from '../modules/definitions';
import { runIoAction, type ActionTask } from '../modules/run';
import type { Services } from '../services';
import type { FairQueue, Lease } from './fair-queue';
import type { RunOutcome } from './pool';
import { runPublishedAction } from './runtimes';
import { checkValue, type SchemaCheck } from './schemas';

export const MAX_OUTPUT_BYTES = 1024 * 1024;

export type Failure = { code: 'invalid_input' | 'module_error' | 'timeout'; message: string; issues?: { path: string; message: string }[] };

export type Outcome = ({ ok: true; output: unknown } | ({ ok: false } & Failure)) & {
  /** Set by the worker pool: time before the action began (thread start, pack load), left out of the execution's latency. */
  setupMs?: number;
};

/** The input cap of an `inline` action's call; a larger input waits for a worker like any other. */
const INLINE_MAX_INPUT_BYTES = 512;

/**
 * A call that runs on the event loop instead of in a worker: a built-in action marked `inline`,
 * with an input of at most INLINE_MAX_INPUT_BYTES.
 */
export function runsInline(module: ModuleRow, action: ModuleActionRow, input: Record<string, unknown> | undefined): boolean {
  if (module.runtime.type !== 'builtin' || input === undefined) return false;
  return builtinAction(module.name, action.name)?.inline === true && JSON.stringify(input).length <= INLINE_MAX_INPUT_BYTES;
}

/**
 * The worker queue a CPU-bound action waits in; none for I/O-bound ones (the `http` runtime,
 * built-in actions marked `io`), nor, given the call's `input`, for a call that runs inline.
 */
export function workerQueue(
  svc: Services,
  module: ModuleRow,
  action: ModuleActionRow,
  input?: Record<string, unknown>,
): FairQueue | undefined {
  if (module.runtime.type === 'javascript') return svc.sandbox.queue;
  if (module.runtime.type === 'http' || builtinAction(module.name, action.name)?.io === true || runsInline(module, action, input))
    return undefined;
  return svc.pool.queue;
}

/**
 * A worker lease within the bounded wait, or 429 `concurrency_limit_exceeded` before anything is
 * recorded or counted: the machine is saturated, and the call is refused instead of waiting
 * without bound (or failing after it was counted). In the sandbox the admission wait bounds only a
 * tenant's calls beyond its share of the workers (fair-queue.ts `TenantShare`); `taskMs` is the
 * action's deadline.
 */
export async function admit(svc: Services, queue: FairQueue, tenantId: string, taskMs: number): Promise<Lease> {
  const lease = await queue.admit(tenantId, svc.config.executionQueueWaitMs, taskMs);
  if (lease) return lease;
  throw new AppError(
    'concurrency_limit_exceeded',
    'The service is at capacity: the execution could not start within its admission wait. Nothing was run or counted; retry shortly.',
    { reason: 'capacity', wait_ms: svc.config.executionQueueWaitMs },
    { 'Retry-After': '1' },
  );
}

/** How long checking one value against a published module's schema may take. */
export const SCHEMA_CHECK_MS = 1000;

const UNDECIDED: Record<Extract<SchemaCheck, { valid: undefined }>['reason'], string> = {
  unbounded: 'refers to itself without end',
  slow: `took over ${SCHEMA_CHECK_MS} ms to check this value`,
  crashed: 'crashed the worker checking this value',
};

/** The cache key of an action's compiled input schema: a new version or update compiles afresh. */
export function inputSchemaKey(module: ModuleRow, action: ModuleActionRow): string {
  return `${module.name}@${module.version}@${module.updatedAt.getTime()}/${action.name}`;
}

/**
 * Checks `value` against one of a module's schemas. The built-in modules' schemas are ours and
 * are checked here, on the request thread; a published module's are its publisher's, and a small
 * input can make ajv take exponential (a recursive `anyOf`) or quadratic (`uniqueItems` over
 * objects) time against them: those are checked in a sandbox worker, stopped at SCHEMA_CHECK_MS.
 */
export function checkSchema(
  svc: Services,
  module: Pick<ModuleRow, 'runtime'>,
  key: string,
  schema: Record<string, unknown>,
  value: unknown,
): SchemaCheck | Promise<SchemaCheck> {
  if (module.runtime.type === 'builtin') return checkValue(svc.schemas, key, schema, value);
  return svc.sandbox.validate(key, schema, value, SCHEMA_CHECK_MS);
}

/**
 * Milliseconds since `started` (a performance.now()) spent on the call itself: a worker's first
 * call of a pack loads it (up to seconds), and that set-up (outcome.setupMs) is ours, not the
 * module's latency.
 */
export function actionLatencyMs(started: number, outcome: Outcome): number {
  return Math.max(0, Math.round(performance.now() - started - (outcome.setupMs ?? 0)));
}

export async function runValidated(
  svc: Services,
  module: ModuleRow,
  action: ModuleActionRow,
  input: Record<string, unknown>,
  lease: Lease | undefined,
): Promise<Outcome> {
  const pending = checkSchema(svc, module, inputSchemaKey(module, action), action.inputSchema, input);
  // The built-ins' check is synchronous: no extra turn on the hot path.
  const checked = pending instanceof Promise ? await pending : pending;
  if (checked.valid === undefined) {
    // The module's schema could not decide (reached only by some inputs): the module's fault, not the caller's.
    return {
      ok: false,
      code: 'module_error',
      message: `The action's input_schema ${UNDECIDED[checked.reason]}; the input could not be validated.`,
    };
  }
  if (!checked.valid) {
    const issues = checked.issues;
    const first = issues[0];
    return {
      ok: false,
      code: 'invalid_input',
      message: `Input does not match the action's input_schema: ${first?.path ? `${first.path}: ` : ''}${first?.message ?? 'invalid'}`,
      issues,
    };
  }
  if (module.runtime.type !== 'builtin') {
    // Published modules: `javascript` in the QuickJS sandbox pool, `http` at the publisher's endpoint.
    return runPublishedAction(svc, module.runtime, action, input);
  }
  const task: ActionTask = {
    module: module.name,
    action: action.name,
    input,
    timeoutMs: action.timeoutMs,
    allowPrivateNetwork: svc.config.webhooks.allowPrivate,
  };
  // CPU-bound actions run in the worker whose lease the caller holds; I/O-bound and inline ones (no lease) on the event loop.
  const outcome: RunOutcome = lease ? await svc.pool.run(task, lease) : await runIoAction(task);
  if (outcome.ok && Buffer.byteLength(JSON.stringify(outcome.output)) > MAX_OUTPUT_BYTES) {
    return { ok: false, code: 'module_error', message: 'The action output exceeds 1 MiB.' };
  }
  return outcome;
}
