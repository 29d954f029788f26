import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ActionOutcome, ActionTask } from '../modules/run';
import { FairQueue } from './fair-queue';

export type RunOutcome = ActionOutcome | { ok: false; code: 'timeout'; message: string };

/** Extra time past the action's deadline before its worker is terminated (the action's own AbortSignal fires at the deadline). */
const KILL_GRACE_MS = 250;
/** Safety net for a task that never starts (a worker that cannot start): it fails instead of hanging. */
const START_LIMIT_MS = 60_000;

/**
 * The worker pool that runs CPU-bound built-in actions off the event loop, one task per worker.
 * Callers take a lease from `queue` (fair across tenants, see fair-queue.ts) before `run`, so a
 * task is handed to piscina only when a worker is free. The deadline starts when the worker picks
 * the task up (it says so over a MessagePort), never while it waits: a task still running
 * KILL_GRACE_MS past its deadline is aborted, and piscina terminates the worker running it, so a
 * catastrophic regex or a runaway loop really stops, and a fresh worker takes its place.
 * I/O-bound actions (`io: true`) do not come here: they run on the event loop (execute.ts).
 */
export class ActionPool {
  private pool: Piscina | undefined;
  /** One lease per worker. */
  readonly queue: FairQueue;

  constructor(private readonly maxThreads = Math.max(2, availableParallelism())) {
    this.queue = new FairQueue(maxThreads);
  }

  private get piscina(): Piscina {
    this.pool ??= new Piscina({
      filename: fileURLToPath(new URL('../modules/worker.mjs', import.meta.url)),
      // All workers stay loaded: a worker starting on demand loads every module pack first.
      minThreads: this.maxThreads,
      maxThreads: this.maxThreads,
      idleTimeout: 30_000,
      maxQueue: 1000,
    });
    return this.pool;
  }

  /** Runs one task; the caller holds a lease from `queue`. */
  async run(task: ActionTask): Promise<RunOutcome> {
    const controller = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let kill: NodeJS.Timeout | undefined;
    const waiting = setTimeout(() => controller.abort('start'), START_LIMIT_MS);
    port1.once('message', () => {
      clearTimeout(waiting);
      kill = setTimeout(() => controller.abort('deadline'), task.timeoutMs + KILL_GRACE_MS);
    });
    port1.unref();
    try {
      return (await this.piscina.run({ ...task, started: port2 }, { signal: controller.signal, transferList: [port2] })) as ActionOutcome;
    } catch {
      if (controller.signal.reason === 'deadline') return { ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` };
      if (controller.signal.reason === 'start') return { ok: false, code: 'module_error', message: 'No worker could start the action.' };
      return { ok: false, code: 'module_error', message: 'The action crashed its worker.' };
    } finally {
      clearTimeout(waiting);
      clearTimeout(kill);
      port1.close();
    }
  }

  /**
   * Resolves once a worker has loaded the module packs, so the first request does not wait for
   * start-up (a no-op task: an unknown action answers at once).
   */
  async warm(): Promise<void> {
    await this.piscina.run({ module: '', action: '', input: null, timeoutMs: 1, allowPrivateNetwork: false } satisfies ActionTask);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
