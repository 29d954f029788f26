// Entry of the action worker threads. Registers tsx so the TypeScript module packs load, then
// hands piscina the task function.
import { register } from 'tsx/esm/api';

register();
const { runBuiltinAction } = await import('./run.ts');

export default runBuiltinAction;
