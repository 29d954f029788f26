/**
 * The service as a separate process, for the crash-recovery tests: server.ts's production build
 * (scripts/build-server.mjs, as `npm start` runs it: no tsx loader to transform the sources at
 * each start) on a free port with only the given configuration (never the outer env's), killed
 * with any signal, called over HTTP, and polled until something holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { runtimeEnv } from '../scripts/node-runtime.mjs';
import { openDatabase, queryRows } from '../src/db';
import { ADMIN_TOKEN } from './harness';
import { seedDataDir } from './pglite-seed';
import { serverCommand } from './server-command';
import { freePort } from './ports';

export { freePort };

const ROOT = path.resolve(import.meta.dirname, '..');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Environment variables (README, Configuration) that must come from this test only, never from the outer env. */
const CONFIG_VARS = [
  'PORT',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'REDIS_KEY_PREFIX',
  'ADMIN_TOKEN',
  'ADMIN_EMAILS',
  'ENCRYPTION_KEY',
  'SESSION_SECRET',
  'PUBLIC_BASE_URL',
  'TRUST_PROXY',
  'WEBHOOK_RETRY_SCHEDULE_MS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_ALLOW_PRIVATE',
  'LOG_LEVEL',
  'AMP_NO_NEXT',
];

export interface Child {
  proc: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<void>;
}

/** Starts `server.ts` as a child process and waits for GET /api/v1/health to answer 200. */
export async function startChild(env: Record<string, string | undefined>, timeoutMs = 90_000): Promise<Child> {
  const port = await freePort();
  seedDataDir(env);
  const childEnv: NodeJS.ProcessEnv = { ...runtimeEnv, ...process.env };
  for (const name of CONFIG_VARS) delete childEnv[name];
  for (const [k, v] of Object.entries({ ...env, PORT: String(port) })) if (v !== undefined) childEnv[k] = v;
  // process.execPath is the project's Node 24 (the system node is 20).
  const proc = spawn(process.execPath, await serverCommand(childEnv), { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString('utf8')).slice(-20_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: Child = { proc, url: `http://127.0.0.1:${port}`, output: () => out, exited };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`service exited during start-up (${proc.exitCode ?? proc.signalCode}):\n${out}`);
    }
    try {
      const res = await fetch(`${child.url}/api/v1/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return child;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  await killChild(child, 'SIGKILL');
  throw new Error(`service did not become healthy in ${timeoutMs} ms:\n${out}`);
}

export async function killChild(child: Child | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill(signal);
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 15_000);
  await child.exited;
  clearTimeout(timer);
}

export async function call(child: Child, p: string, opts: { method?: string; key?: string; admin?: boolean; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.admin) headers['x-admin-token'] = ADMIN_TOKEN;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(child.url + p, {
    method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, text };
}

export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Between a kill and a restart, with no service on the database: the jobs of `queue` waiting for
 * a later start (a retry's backoff) are made due now, so the restarted service runs them at once
 * instead of the test waiting the delay out. Returns how many there were.
 */
export async function makeDueNow(data: { databaseUrl?: string; dataDir: string }, queue: string): Promise<number> {
  const database = await openDatabase({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, poolSize: 2 });
  try {
    const due = await queryRows<{ id: string }>(
      database.db,
      sql`update pgboss.job set start_after = now() where name = ${queue} and state in ('created', 'retry') and start_after > now() returning id`,
    );
    return due.length;
  } finally {
    await database.close();
  }
}
