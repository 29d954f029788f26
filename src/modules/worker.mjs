// Entry of the action worker threads. Registers tsx so the TypeScript module packs load, then
// hands piscina the task function.
import { workerData } from 'piscina';
import { register } from 'tsx/esm/api';

register();
const { runBuiltinAction } = await import('./run.ts');

// The pool's start board (see pool.ts): per lease place, when its current task started.
const places = workerData?.places ?? 0;
const startedAt = places ? new Float64Array(workerData.board, 0, places) : undefined;
const startedSeq = places ? new Int32Array(workerData.board, places * 8, places) : undefined;

/** Notes on the board that the task started (its deadline runs from here, not from the queue), then runs it. */
export default function run({ place, seq, ...task }) {
  if (startedAt && place !== undefined) {
    startedAt[place] = Date.now();
    Atomics.store(startedSeq, place, seq);
  }
  return runBuiltinAction(task);
}
