import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ActionOutcome, ActionTask } from '../modules/run';
import { FairQueue, type Lease } from './fair-queue';

export type RunOutcome = (ActionOutcome | { ok: false; code: 'timeout'; message: string }) & {
  /** Time the worker spent before the action began (its thread starting, the pack loading): not the action's latency. */
  setupMs?: number;
};

/** Extra time past the action's deadline before its worker is terminated (the action's own AbortSignal fires at the deadline). */
const KILL_GRACE_MS = 250;
/** Safety net for a task that never starts (a worker that cannot start): it fails instead of hanging. */
const START_LIMIT_MS = 60_000;
/**
 * V8's young generation per worker thread (three 16 MB semi-spaces' worth; the main thread's are
 * 8 MB on the embedded database and 32 MB on PostgreSQL, scripts/node-runtime.mjs): left to V8,
 * it is sized by the machine's memory, far larger per thread (docs/performance.md, Memory). The old
 * generation is capped too: a task that would grow past it (a caller's JSONata expression padding
 * a string to 500 million characters) ends its worker ("crashed its worker") instead of taking
 * gigabytes from the process.
 */
export const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 48, maxOldGenerationSizeMb: 256 };

/**
 * Told of a worker that failed while it held no task: one aborted at its deadline can still run
 * out of memory before its termination takes effect. Its task was answered already; piscina
 * replaces the worker and emits the failure as the pool's 'error' event, which, with nobody
 * listening, would be an uncaught exception that ends the whole process.
 */
export type StrayWorkerErrorHandler = (err: Error) => void;

/**
 * The worker pool that runs CPU-bound built-in actions off the event loop, one task per worker.
 * Callers take a lease from `queue` (fair across tenants, see fair-queue.ts) before `run`, so a
 * task is handed to piscina only when a worker is free. The deadline starts when the worker picks
 * the task up, never while it waits (e.g. for a replacement worker to load the packs): the worker
 * writes its start time and the task's sequence number into the lease's place on a shared board
 * (no message per task). A task still running KILL_GRACE_MS past its deadline is aborted, and
 * piscina terminates the worker running it, so a catastrophic regex or a runaway loop really
 * stops, and a fresh worker takes its place. I/O-bound actions (`io: true`) do not come here:
 * they run on the event loop (execute.ts).
 */
export class ActionPool {
  private pool: Piscina | undefined;
  /** One lease per worker. */
  readonly queue: FairQueue;
  /** Per lease place: the start time (ms since the epoch) and sequence number of its current task. */
  private readonly board: SharedArrayBuffer;
  private readonly startedAt: Float64Array;
  private readonly startedSeq: Int32Array;
  private seq = 0;

  constructor(
    private readonly maxThreads = Math.max(2, availableParallelism()),
    private readonly onStrayWorkerError: StrayWorkerErrorHandler = () => {},
  ) {
    this.queue = new FairQueue(maxThreads);
    this.board = new SharedArrayBuffer(maxThreads * 12);
    this.startedAt = new Float64Array(this.board, 0, maxThreads);
    this.startedSeq = new Int32Array(this.board, maxThreads * 8, maxThreads);
  }

  private get piscina(): Piscina {
    if (this.pool) return this.pool;
    this.pool = new Piscina({
      filename: fileURLToPath(new URL('../modules/worker.mjs', import.meta.url)),
      // Started with the first CPU-bound call (the pool is created then), not at start-up: an
      // instance that only reads and runs inline or io actions never holds them (two workers are
      // ~75 MB of RSS). Once started, all stay (tsx and the runner, not the packs: each loads a
      // pack when it first runs one of its actions, see run.ts loadPack), so later calls never
      // wait for a thread. The first call's deadline does not include the start (see `run`).
      minThreads: this.maxThreads,
      maxThreads: this.maxThreads,
      idleTimeout: 30_000,
      maxQueue: 1000,
      workerData: { board: this.board, places: this.maxThreads },
      resourceLimits: WORKER_RESOURCE_LIMITS,
    });
    // Once, when the pool is made: added per call, listeners would pile up with every execution.
    this.pool.on('error', this.onStrayWorkerError);
    return this.pool;
  }

  /** Runs one task in the worker `lease` (from `queue`) stands for. */
  async run(task: ActionTask, lease: Lease): Promise<RunOutcome> {
    const controller = new AbortController();
    const slot = lease.slot;
    const seq = (this.seq = (this.seq + 1) | 0);
    const dispatched = Date.now();
    let timer: NodeJS.Timeout;
    // First check at the earliest possible deadline; while the task has not started, check again
    // a whole deadline later (it cannot end sooner); once it has, at its own deadline.
    const check = () => {
      const now = Date.now();
      if (Atomics.load(this.startedSeq, slot) !== seq) {
        if (now - dispatched > START_LIMIT_MS) controller.abort('start');
        else timer = setTimeout(check, task.timeoutMs + KILL_GRACE_MS);
        return;
      }
      const left = this.startedAt[slot]! + task.timeoutMs + KILL_GRACE_MS - now;
      if (left <= 0) controller.abort('deadline');
      else timer = setTimeout(check, left);
    };
    timer = setTimeout(check, task.timeoutMs + KILL_GRACE_MS);
    try {
      const outcome = (await this.piscina.run({ ...task, place: slot, seq }, { signal: controller.signal })) as ActionOutcome;
      const setupMs = Atomics.load(this.startedSeq, slot) === seq ? this.startedAt[slot]! - dispatched : 0;
      return setupMs > 0 ? { ...outcome, setupMs } : outcome;
    } catch {
      if (controller.signal.reason === 'deadline')
        return { ok: false, code: 'timeout', message: `The action did not finish within ${task.timeoutMs} ms.` };
      if (controller.signal.reason === 'start') return { ok: false, code: 'module_error', message: 'No worker could start the action.' };
      return { ok: false, code: 'module_error', message: 'The action crashed its worker.' };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
