/**
 * One process per embedded DATA_DIR: a second start on the same directory exits with a message
 * naming the holder and leaves the database unharmed (it once opened PGlite before failing on the
 * busy port, and every later start died with `RuntimeError: Aborted()`); a lock left by a killed
 * holder is taken over. The service runs as child processes (tests/child-service.ts).
 * On PostgreSQL nothing is locked: several instances may share a DATA_DIR for its secrets.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../src/db';
import { LOCK_FILE } from '../src/db/data-dir-lock';
import { runtimeEnv } from '../scripts/node-runtime.mjs';
import { call, killChild, startChild, type Child } from './child-service';
import { serverCommand } from './server-command';
import { ADMIN_TOKEN, backends, startTestServer } from './harness';

const ROOT = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-lock-'));
const lockFile = path.join(dataDir, LOCK_FILE);
const env = { DATA_DIR: dataDir, AMP_NO_NEXT: '1', ADMIN_TOKEN, LOG_LEVEL: 'warn' };
const children: Child[] = [];

// The run's migrated database (tests/global-setup.ts) instead of an initdb in the first child:
// opened and closed here, which also leaves no lock behind.
beforeAll(async () => {
  const database = await openDatabase({ dataDir, pgliteTemplate: process.env.AMP_TEST_PGLITE_TEMPLATE });
  await database.close();
}, 180_000);

afterAll(async () => {
  for (const child of children) await killChild(child, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<Child> {
  const child = await startChild(env, 300_000);
  children.push(child);
  return child;
}

/** Runs server.ts on `port` until it exits (it is expected to refuse to start). */
async function runToExit(port: string): Promise<{ code: number | null; output: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...runtimeEnv, ...process.env, ...env, PORT: port };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN']) delete childEnv[name];
  const proc = spawn(process.execPath, await serverCommand(childEnv), { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (b: Buffer) => (output += b.toString('utf8')));
  proc.stderr.on('data', (b: Buffer) => (output += b.toString('utf8')));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/** Registers a tenant and reads with its key: the database starts and serves. */
async function serves(child: Child): Promise<void> {
  const registered = await call(child, '/api/v1/auth/register', {
    body: { agent_name: 'lock-test', owner_email: `lock-${Date.now()}@example.com` },
  });
  expect(registered.status, registered.text).toBe(201);
  const read = await call(child, '/api/v1/modules', { key: registered.body.api_key });
  expect(read.status, read.text).toBe(200);
}

const holder = () => (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number }).pid;

it('a second start on the same DATA_DIR exits with the holder named and harms nothing', { timeout: 900_000 }, async () => {
  const first = await start();
  expect(holder()).toBe(first.proc.pid);

  // The reported reproduction: the same DATA_DIR and the same (busy) port.
  const samePort = await runToExit(new URL(first.url).port);
  expect(samePort.code).toBe(1);
  expect(samePort.output).toContain('is in use by another process; stop it or choose another PORT');
  // Another port: the lock is what stops it.
  const otherPort = await runToExit('0');
  expect(otherPort.code).toBe(1);
  expect(otherPort.output).toContain(`DATA_DIR ${dataDir} is in use by process ${first.proc.pid} (started `);
  expect(otherPort.output).not.toContain('Failed to start');

  await serves(first);
  await killChild(first, 'SIGTERM');
  expect(first.proc.exitCode).toBe(0);
  expect(existsSync(lockFile)).toBe(false);

  const again = await start();
  await serves(again);
  await killChild(again, 'SIGTERM');
});

it('the lock of a holder killed with SIGKILL is taken over', { timeout: 900_000 }, async () => {
  const killed = await start();
  await killChild(killed, 'SIGKILL');
  expect(holder()).toBe(killed.proc.pid);

  const next = await start();
  expect(holder()).toBe(next.proc.pid);
  await serves(next);
  await killChild(next, 'SIGTERM');
});

backends.describe('the lock file in process (%s)', (backend) => {
  it('exists while an embedded server runs, never on PostgreSQL, and is gone after close', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-lock-'));
    try {
      const s = await startTestServer({ backend, dataDir: dir });
      expect(existsSync(path.join(dir, LOCK_FILE))).toBe(backend === 'embedded');
      await s.close();
      expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
