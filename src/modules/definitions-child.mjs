// Reads every built-in pack's definition without its code and sends it to the process that
// started this one (definitions.ts), then exits, taking the packs' libraries with it.
import { register } from 'tsx/esm/api';

register();
const { BUILTIN_MODULES } = await import('./registry.ts');
const definitions = BUILTIN_MODULES.map((pack) => ({ ...pack, actions: pack.actions.map(({ run: _run, ...action }) => action) }));
process.send(definitions, () => process.disconnect());
