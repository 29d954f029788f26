// `npm start`: build the dashboard once if no build exists, then run server.ts (which owns the
// port and hands page requests to Next). npm runs this on the project's Node 24.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'production' };

/** Runs a command with inherited stdio; resolves with its exit code (signals forwarded). */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', ...options });
    const forward = (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1));
    });
  });
}

if (!existsSync(path.join(root, '.next', 'BUILD_ID'))) {
  console.log('No Next.js build found (.next/BUILD_ID): running `next build` first.');
  // Next's CLI run on this same Node (24), whatever `node` the PATH would find.
  const nextBin = createRequire(path.join(root, 'package.json')).resolve('next/dist/bin/next');
  const code = await run(process.execPath, [nextBin, 'build'], {
    env: { ...env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (code !== 0) {
    console.error(`next build failed with exit code ${code}`);
    process.exit(code);
  }
}

const code = await run(process.execPath, ['--import', 'tsx', 'server.ts', ...process.argv.slice(2)], { env });
process.exit(code);
