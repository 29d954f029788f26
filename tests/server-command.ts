/**
 * How the tests start the service as a process: server.ts's production build
 * (scripts/build-server.mjs, as `npm start` runs it: no tsx loader to transform the sources at
 * each start) with the Node flags `npm start` gives it, and the test run's own (tests/v8-flags.ts).
 */
import { buildServer } from '../scripts/build-server.mjs';
import { nodeFlags } from '../scripts/node-runtime.mjs';
import { TEST_V8_FLAGS } from './v8-flags';

let build: Promise<string> | undefined;

/**
 * The command line of server.ts's build with `env`'s Node flags (built once per test process).
 * The environment a child gets is `runtimeEnv` (scripts/node-runtime.mjs) under its own.
 */
export async function serverCommand(env: NodeJS.ProcessEnv): Promise<string[]> {
  build ??= buildServer();
  return [...nodeFlags(env), ...TEST_V8_FLAGS, await build];
}

/** The command line of a script run through tsx (`npm run db:backup`, `npm run billing:close`) with the test run's V8 flags. */
export function scriptCommand(script: string, args: string[]): string[] {
  return [...TEST_V8_FLAGS, '--import', 'tsx', script, ...args];
}
