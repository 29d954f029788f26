// Entry of the JavaScript sandbox worker threads. Registers tsx so the TypeScript runner loads,
// loads the QuickJS WASM module before the worker takes tasks, and hands piscina the task
// function. Only quickjs-emscripten and the schema checker are loaded here (not the built-in
// module packs).
import { register } from 'tsx/esm/api';

register();
const { runSandboxTask, loadSandbox } = await import('./javascript.ts');
const { SchemaCache, checkValue } = await import('../schemas.ts');
await loadSandbox();

/** Published schemas compiled in this worker (sandbox.ts `validate`). */
const schemas = new SchemaCache();

/** Tells the pool the task started (its kill timer runs from here, not from the queue), then runs it. */
export default function run({ started, ...task }) {
  if (started) {
    started.postMessage('started');
    started.close();
  }
  if (task.kind === 'validate') return { ok: true, output: checkValue(schemas, task.key, task.schema, task.value) };
  return runSandboxTask(task);
}
