// Entry of the JavaScript sandbox worker threads. Registers tsx so the TypeScript runner loads,
// loads the QuickJS WASM module before the worker takes tasks, and hands piscina the task
// function. Only quickjs-emscripten is loaded here (not the built-in module packs).
import { register } from 'tsx/esm/api';

register();
const { runSandboxTask, loadSandbox } = await import('./javascript.ts');
await loadSandbox();

/** Tells the pool the task started (its kill timer runs from here, not from the queue), then runs it. */
export default function run({ started, ...task }) {
  if (started) {
    started.postMessage('started');
    started.close();
  }
  return runSandboxTask(task);
}
