// How the server's Node runs (scripts/node-runtime.json), for everything that starts it:
// `npm start` (scripts/start.mjs), the bench's service target and the browser tests' server.
// docs/performance.md, Memory.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const runtime = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'node-runtime.json'), 'utf8'));

/**
 * The Node flags for a server started with `env`. V8's young generation is capped (left to V8 it
 * is sized by the machine's memory): 8 MB semi-spaces on the embedded database, whose WASM heap
 * already takes much of the 400 MB budget; 32 MB on PostgreSQL, where the process is far below
 * it and each scavenge (whose cost is the requests in flight, whatever the size) then comes four
 * times less often.
 */
export function nodeFlags(env) {
  const semiSpace = env.DATABASE_URL ? runtime.semiSpaceMb.postgres : runtime.semiSpaceMb.embedded;
  return [`--max-semi-space-size=${semiSpace}`, ...runtime.nodeFlags];
}

/** The environment the server gets besides its caller's (whose own values win). */
export const runtimeEnv = runtime.env;
