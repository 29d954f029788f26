// Entry of the action worker threads. Registers tsx so the TypeScript module packs load, then
// hands piscina the task function.
import { register } from 'tsx/esm/api';

register();
const { runBuiltinAction } = await import('./run.ts');

/** Tells the pool the task started (its deadline runs from here, not from the queue), then runs it. */
export default function run({ started, ...task }) {
  if (started) {
    started.postMessage('started');
    started.close();
  }
  return runBuiltinAction(task);
}
