// Entry of the action worker threads. Registers tsx so the TypeScript module packs load, then
// hands piscina the task function. Packs load on first use (run.ts loadPack), not at start-up.
import { workerData } from 'piscina';
import { register } from 'tsx/esm/api';

register();
const { runBuiltinAction, loadPack } = await import('./run.ts');

// The pool's start board (see pool.ts): per lease place, when its current task started.
const places = workerData?.places ?? 0;
const startedAt = places ? new Float64Array(workerData.board, 0, places) : undefined;
const startedSeq = places ? new Int32Array(workerData.board, places * 8, places) : undefined;

/**
 * Loads the task's pack if this worker has not yet (a failure is reported by runBuiltinAction),
 * then notes on the board that the task started (its deadline runs from here: neither the queue
 * nor loading the pack counts against it), then runs it.
 */
export default async function run({ place, seq, ...task }) {
  await loadPack(task.module).catch(() => {});
  if (startedAt && place !== undefined) {
    startedAt[place] = Date.now();
    Atomics.store(startedSeq, place, seq);
  }
  return runBuiltinAction(task);
}
