/**
 * The built-in packs' definitions without their code: names, descriptions, schemas, examples and
 * flags, for the catalog (sync at start-up) and certification. They are read in a short-lived
 * worker thread (definitions-worker.mjs) that imports every pack, so this thread never loads the
 * packs' libraries (sharp, pdfkit, cheerio, ajv, ...): about 35 MB of live heap and 90 MB of
 * RSS that every major garbage collection would otherwise mark (docs/performance.md, Memory).
 * Actions that run on this thread (io and inline ones) load their pack on first use (run.ts).
 */
import { Worker } from 'node:worker_threads';
import type { ActionDefinition, ModuleDefinition } from './types';

export type BuiltinDefinition = Omit<ModuleDefinition, 'actions'> & { actions: Omit<ActionDefinition, 'run'>[] };

let loading: Promise<BuiltinDefinition[]> | undefined;

/** Every built-in pack's definition, read once per process. */
export function builtinDefinitions(): Promise<BuiltinDefinition[]> {
  loading ??= readInWorker().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

function readInWorker(): Promise<BuiltinDefinition[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./definitions-worker.mjs', import.meta.url));
    let answered = false;
    worker.once('message', (definitions: BuiltinDefinition[]) => {
      answered = true;
      resolve(definitions);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the module definitions worker exited with code ${code} before answering`));
    });
  });
}
