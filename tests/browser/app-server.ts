/**
 * Starts the real service as `npm start` runs it: server.ts's build with Next, in its own process,
 * on a free port, with the embedded database in a fresh DATA_DIR. Its JSON log lines are kept, so a
 * test can read what the service logged (e.g. a recovery link when no mail server is set).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runtimeEnv } from '../../scripts/node-runtime.mjs';
import { seedDataDir } from '../pglite-seed';
import { serverCommand } from '../server-command';
import { ROOT } from './next-build';
import { freePort } from '../ports';

export interface AppServer {
  url: string;
  port: number;
  dataDir: string;
  /** Everything the process wrote so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Variables of the runner's environment that would point the service elsewhere than the embedded default. */
const DROPPED = [
  'DATABASE_URL',
  'REDIS_URL',
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'AUTH_URL',
  'AUTH_JWKS_URL',
  'AUTH_JWT_SECRET',
  'SMTP_URL',
  'AMP_NO_NEXT',
  'ADMIN_EMAILS',
];

export async function startAppServer(env: Record<string, string> = {}, timeoutMs = 240_000): Promise<AppServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-browser-'));
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !DROPPED.includes(k)));
  // The Node flags and environment `npm start` gives the server.
  const childEnv: NodeJS.ProcessEnv = {
    ...runtimeEnv,
    ...base,
    NODE_ENV: 'production',
    PORT: String(port),
    PUBLIC_BASE_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...env,
  };
  seedDataDir(childEnv);
  const child: ChildProcess = spawn(process.execPath, await serverCommand(childEnv), {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  child.stdout!.on('data', (c: Buffer) => (seen += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (seen += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const started = Date.now();
  while (!seen.includes('Agent Module Platform listening')) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`server.ts exited before listening:\n${seen.slice(-4000)}`);
    }
    if (Date.now() - started > timeoutMs) {
      await stop();
      throw new Error(`server.ts did not start within ${timeoutMs} ms:\n${seen.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, dataDir, output: () => seen, stop };
}
