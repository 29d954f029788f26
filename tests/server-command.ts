/**
 * How the tests start the service as a process: server.ts's production build
 * (scripts/build-server.mjs, as `npm start` runs it: no tsx loader to transform the sources at
 * each start) with the Node flags `npm start` gives it, plus the tests' own V8 flags below.
 */
import { buildServer } from '../scripts/build-server.mjs';
import { nodeFlags } from '../scripts/node-runtime.mjs';
import { SHORT_LIVED_FLAGS } from './v8-flags';

let build: Promise<string> | undefined;

/**
 * The command line of server.ts's build with `env`'s Node flags (built once per test process).
 * The environment a child gets is `runtimeEnv` (scripts/node-runtime.mjs) under its own.
 * `longLived`: a service that serves a whole run (the browser tests') keeps V8's optimising tier.
 */
export async function serverCommand(env: NodeJS.ProcessEnv, opts: { longLived?: boolean } = {}): Promise<string[]> {
  build ??= buildServer();
  return [...nodeFlags(env), ...(opts.longLived ? [] : SHORT_LIVED_FLAGS), await build];
}
