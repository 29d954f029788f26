// `npm start`: build the dashboard once if no build exists, build the server (server.ts, bundled:
// scripts/build-server.mjs), then run it (it owns the port and hands page requests to Next). npm
// runs this on the project's Node 24. Signals are forwarded to the child and this script exits
// with it (scripts/supervise.mjs).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from './build-server.mjs';
import { nodeFlags, runtimeEnv } from './node-runtime.mjs';
import { exitLike, supervise } from './supervise.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// How the server's Node runs (scripts/node-runtime.mjs; the bench starts its service the same
// way): V8's young generation capped by backend (left to V8 it follows the machine's memory),
// and glibc's malloc returning large freed blocks at once instead of keeping them. An operator's
// own environment wins. docs/performance.md, Memory.
const env = { ...runtimeEnv, ...process.env, NODE_ENV: process.env.NODE_ENV || 'production' };

async function main() {
  // AMP_NO_NEXT=1 runs server.ts without Next (API only), so no dashboard build is needed.
  if (process.env.AMP_NO_NEXT !== '1' && !existsSync(path.join(root, '.next', 'BUILD_ID'))) {
    console.log('No Next.js build found (.next/BUILD_ID): running `next build` first.');
    // Next's CLI run on this same Node (24), whatever `node` the PATH would find.
    const nextBin = createRequire(path.join(root, 'package.json')).resolve('next/dist/bin/next');
    const built = await supervise(process.execPath, [nextBin, 'build'], {
      cwd: root,
      env: { ...env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    if (built.code !== 0) {
      console.error(`next build failed (${built.signal ?? `exit code ${built.code}`})`);
      return built;
    }
  }
  // The server as plain JavaScript (scripts/build-server.mjs): built on every start, so it is
  // always this checkout's code.
  const server = await buildServer();
  return supervise(process.execPath, [...nodeFlags(env), server, ...process.argv.slice(2)], { cwd: root, env });
}

exitLike(await main());
