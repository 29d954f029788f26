// Reads every built-in pack's definition without its code and posts it to the thread that
// started this one (definitions.ts), then exits, taking the packs' libraries with it.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { BUILTIN_MODULES } = await import('./registry.ts');
parentPort.postMessage(BUILTIN_MODULES.map((pack) => ({ ...pack, actions: pack.actions.map(({ run: _run, ...action }) => action) })));
