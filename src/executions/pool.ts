import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ActionOutcome, ActionTask } from '../modules/run';

export type RunOutcome = ActionOutcome | { ok: false; code: 'timeout'; message: string };

/**
 * The worker pool that runs built-in actions off the event loop. A task past its deadline is
 * aborted, and piscina terminates the worker running it: a catastrophic regex or a runaway loop
 * really stops, and a fresh worker takes its place.
 */
export class ActionPool {
  private pool: Piscina | undefined;

  constructor(private readonly maxThreads = Math.max(2, availableParallelism())) {}

  private get piscina(): Piscina {
    this.pool ??= new Piscina({
      filename: fileURLToPath(new URL('../modules/worker.mjs', import.meta.url)),
      // All workers stay loaded: a worker starting on demand loads every module pack first.
      minThreads: this.maxThreads,
      maxThreads: this.maxThreads,
      idleTimeout: 30_000,
      // Each worker loads every module pack once; the queue absorbs bursts.
      maxQueue: 1000,
    });
    return this.pool;
  }

  async run(task: ActionTask): Promise<RunOutcome> {
    const signal = AbortSignal.timeout(task.timeoutMs + 250);
    try {
      return (await this.piscina.run(task, { signal })) as ActionOutcome;
    } catch {
      if (signal.aborted) return { ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` };
      return { ok: false, code: 'module_error', message: 'The action crashed its worker.' };
    }
  }

  /**
   * Resolves once a worker has loaded the module packs, so the first request's deadline is not
   * spent on start-up (a no-op task: an unknown action answers at once).
   */
  async warm(): Promise<void> {
    await this.piscina.run({ module: '', action: '', input: null, timeoutMs: 1, allowPrivateNetwork: false } satisfies ActionTask);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
