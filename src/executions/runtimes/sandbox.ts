import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { FairQueue, halfShare } from '../fair-queue';
import { type StrayWorkerErrorHandler, WORKER_RESOURCE_LIMITS } from '../pool';
import type { SchemaCheck } from '../schemas';
import type { SandboxOutcome, SandboxTask } from './javascript';

/** Checking a value against a published schema (`validate`), in a sandbox worker. */
interface ValidateTask {
  kind: 'validate';
  key: string;
  schema: Record<string, unknown>;
  value: unknown;
  timeoutMs: number;
}

/** Extra time the pool gives a task past its interrupt deadline before killing its worker. */
const KILL_GRACE_MS = 1000;
/** How long a task may wait for a free worker (all busy, or starting) before it fails as a timeout. */
const QUEUE_LIMIT_MS = 30_000;
/**
 * The longest a task can hold a worker: the longest deadline a module may declare (30 s), the
 * kill grace, and a replacement worker's start. A call within its tenant's share waits this long.
 */
export const LONGEST_HOLD_MS = 30_000 + KILL_GRACE_MS + 4000;

/**
 * Worker threads running `javascript`-runtime modules in QuickJS (see javascript.ts). The
 * interrupt deadline inside QuickJS stops runaway guest code; as a second line, a task still
 * running KILL_GRACE_MS past its deadline is aborted and piscina terminates its worker (QuickJS
 * polls the interrupt handler every so many bytecode steps, so a loop whose every step is a long
 * native call can overrun the deadline). The kill timer starts when a worker picks the task up,
 * so time spent queued or waiting for a worker to start does not count against the action.
 * Guest code never runs on the event loop that serves requests. Executions take a lease from
 * `queue` (fair across tenants, see fair-queue.ts) before `run`, so they never queue inside
 * piscina; the publish-time `check` does not. A guest may loop until its deadline (up to 30 s),
 * so one tenant holds at most half the workers for such tasks (`TenantShare`, fair-queue.ts):
 * the others stay free for the other tenants.
 */
export class JavaScriptSandbox {
  private pool: Piscina | undefined;
  /** One lease per worker. */
  readonly queue: FairQueue;

  constructor(
    private readonly maxThreads = Math.max(2, availableParallelism()),
    private readonly onStrayWorkerError: StrayWorkerErrorHandler = () => {},
  ) {
    this.queue = new FairQueue(maxThreads, { perTenant: halfShare(maxThreads), withinShareWaitMs: LONGEST_HOLD_MS });
  }

  private get piscina(): Piscina {
    if (this.pool) return this.pool;
    this.pool = new Piscina({
      filename: fileURLToPath(new URL('./sandbox-worker.mjs', import.meta.url)),
      // Created on first use; then every worker stays loaded (one starts in ~0.6 s: tsx + the
      // QuickJS WASM module), so a runaway guest holding one does not make the next call wait.
      minThreads: this.maxThreads,
      maxThreads: this.maxThreads,
      idleTimeout: 60_000,
      maxQueue: 1000,
      resourceLimits: WORKER_RESOURCE_LIMITS,
    });
    // Once, when the pool is made: added per call, listeners would pile up with every execution.
    this.pool.on('error', this.onStrayWorkerError);
    return this.pool;
  }

  /** Runs `handle(action, input)` of `source` in a fresh QuickJS context. */
  run(source: string, action: string, input: unknown, timeoutMs: number): Promise<SandboxOutcome> {
    return this.exec({ kind: 'run', source, action, input, timeoutMs });
  }

  /** Publish-time check: the source evaluates within `timeoutMs` and defines `handle`. */
  check(source: string, timeoutMs = 1000): Promise<SandboxOutcome> {
    return this.exec({ kind: 'check', source, timeoutMs });
  }

  /**
   * Checks `value` against a published `schema` (compiled once per `key` in each worker), off the
   * request thread and within `timeoutMs`: a publisher's schema can make ajv take exponential
   * (recursive `anyOf`) or quadratic (`uniqueItems` over objects) time on a small input.
   */
  async validate(key: string, schema: Record<string, unknown>, value: unknown, timeoutMs: number): Promise<SchemaCheck> {
    const outcome = await this.exec({ kind: 'validate', key, schema, value, timeoutMs });
    if (outcome.ok) return outcome.output as SchemaCheck;
    return { valid: undefined, reason: outcome.code === 'timeout' ? 'slow' : 'crashed' };
  }

  private async exec(task: SandboxTask | ValidateTask): Promise<SandboxOutcome> {
    const controller = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let kill: NodeJS.Timeout | undefined;
    const queued = setTimeout(() => controller.abort('queue'), QUEUE_LIMIT_MS + task.timeoutMs);
    port1.once('message', () => {
      clearTimeout(queued);
      kill = setTimeout(() => controller.abort('deadline'), task.timeoutMs + KILL_GRACE_MS);
    });
    port1.unref();
    try {
      return (await this.piscina.run({ ...task, started: port2 }, { signal: controller.signal, transferList: [port2] })) as SandboxOutcome;
    } catch {
      if (controller.signal.reason === 'deadline')
        return { ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` };
      if (controller.signal.reason === 'queue')
        return { ok: false, code: 'timeout', message: 'The sandbox was too busy to start the action in time.' };
      return { ok: false, code: 'module_error', message: 'The sandbox crashed.' };
    } finally {
      clearTimeout(queued);
      clearTimeout(kill);
      port1.close();
    }
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
