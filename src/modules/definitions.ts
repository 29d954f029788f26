/**
 * The built-in packs' definitions without their code: names, descriptions, schemas, examples and
 * flags, for the catalog (sync at start-up) and certification. They are read in a short-lived
 * child process (definitions-child.mjs) that imports every pack, so this process never loads the
 * packs' libraries (sharp, pdfkit, cheerio, ajv, ...): about 35 MB of live heap that every major
 * garbage collection would otherwise mark. A process rather than a worker thread, because a
 * thread's native memory stays with this process after it exits (glibc keeps its arena): RSS
 * +89 MB for good with a thread, +2 MB with a process (docs/performance.md, Memory). Actions that
 * run on the event loop (`io` and `inline` ones) load their pack on first use (run.ts).
 */
import { fork } from 'node:child_process';
import { definitionsCacheFile, readCachedDefinitions, writeCachedDefinitions } from './definitions-cache';
import type { ActionDefinition, ModuleDefinition } from './types';

export type BuiltinActionDefinition = Omit<ActionDefinition, 'run'>;
export type BuiltinDefinition = Omit<ModuleDefinition, 'actions'> & { actions: BuiltinActionDefinition[] };

let loading: Promise<BuiltinDefinition[]> | undefined;
/** The actions of `loading` by `module/action`, once it has answered. */
let actionsByKey: Map<string, BuiltinActionDefinition> | undefined;

/** Every built-in pack's definition, read once per process. */
export function builtinDefinitions(): Promise<BuiltinDefinition[]> {
  loading ??= readDefinitions().then(
    (definitions) => {
      actionsByKey = new Map(definitions.flatMap((pack) => pack.actions.map((action) => [`${pack.name}/${action.name}`, action] as const)));
      return definitions;
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/**
 * A built-in action's definition without its code (undefined for a name no pack has), answered
 * synchronously for the engine's choice of where each call runs. The definitions are read at
 * start-up (the catalog sync awaits builtinDefinitions), so asking before that is a bug.
 */
export function builtinAction(module: string, action: string): BuiltinActionDefinition | undefined {
  if (!actionsByKey) throw new Error('The built-in module definitions are not read yet: await builtinDefinitions() first.');
  return actionsByKey.get(`${module}/${action}`);
}

/** From the on-disk cache when the sources are those it was made from (definitions-cache.ts), else from the child. */
async function readDefinitions(): Promise<BuiltinDefinition[]> {
  const file = definitionsCacheFile();
  const cached = readCachedDefinitions<BuiltinDefinition[]>(file);
  if (cached) return cached;
  const definitions = await readInChild();
  writeCachedDefinitions(file, definitions);
  return definitions;
}

function readInChild(): Promise<BuiltinDefinition[]> {
  return new Promise((resolve, reject) => {
    // The child registers tsx itself, so it takes none of this process's Node flags; `advanced`
    // serialization is the structured clone a worker's message used.
    const child = fork(new URL('./definitions-child.mjs', import.meta.url), [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let answered = false;
    child.once('message', (definitions) => {
      answered = true;
      resolve(definitions as BuiltinDefinition[]);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!answered) reject(new Error(`the module definitions process exited (${signal ?? `code ${code}`}) before answering`));
    });
  });
}
