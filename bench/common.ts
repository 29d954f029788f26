/** What the benchmark scripts share: targets in their own processes, a JSON client, formatting. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { buildServer } from '../scripts/build-server.mjs';
import { nodeFlags, runtimeEnv } from '../scripts/node-runtime.mjs';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export interface Target {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

let building: Promise<string> | undefined;

/** bench/target.ts as the production build bundles it (scripts/build-server.mjs), built once per bench run. */
function builtTarget(): Promise<string> {
  building ??= buildServer().then((server) => path.join(path.dirname(server), 'bench-target.mjs'));
  return building;
}

/**
 * Starts `bench/target.ts <args>` in its own process and waits for its `READY <port>`. The service
 * runs as `npm start` runs it: built, with the Node flags and environment it gives
 * (scripts/node-runtime.mjs).
 */
export async function startTarget(args: string[], env: Record<string, string | undefined>): Promise<Target> {
  const service = args[0] === 'service';
  // The service runs as `npm start` runs it: the production build, with its Node flags.
  const childEnv = { ...(service ? runtimeEnv : {}), ...process.env, ...env };
  const entry = service ? [...nodeFlags(childEnv), await builtTarget()] : ['--import', 'tsx', 'bench/target.ts'];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const readUntilReady = (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (!m) return;
      // From here on the output (the service's access log, a line per request) is read and
      // dropped: kept and searched, it grew without bound and cost the bench process (which
      // shares the machine with the servers) a copy of all of it per chunk.
      child.stdout!.off('data', readUntilReady);
      child.stdout!.resume();
      out = '';
      resolve(Number(m[1]));
    };
    child.stdout!.on('data', readUntilReady);
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  return { status: res.status, text: await res.text() };
}

/** Registers a tenant and lifts it to enterprise without a request limit (the bench measures paths, not 429s). */
export async function registerEnterprise(serviceUrl: string, agentName: string): Promise<{ api_key: string; tenant_id: string }> {
  const res = await json(`${serviceUrl}/api/v1/auth/register`, {
    method: 'POST',
    body: JSON.stringify({ agent_name: agentName, owner_email: `${agentName}-${Date.now()}@example.com` }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`register answered ${res.status}: ${res.text}`);
  const reg = JSON.parse(res.text) as { api_key: string; tenant_id: string };
  const plan = await json(`${serviceUrl}/api/v1/admin/tenants/${reg.tenant_id}/plan`, {
    method: 'PUT',
    headers: { 'x-admin-token': ADMIN_TOKEN },
    body: JSON.stringify({ plan: 'enterprise', requests_per_minute: 100_000_000 }),
  });
  if (plan.status !== 200) throw new Error(`plan change answered ${plan.status}: ${plan.text}`);
  return reg;
}

export async function reachable(url: string | undefined, check: (u: string) => Promise<void>): Promise<string | undefined> {
  if (!url) return undefined;
  try {
    await check(url);
    return url;
  } catch {
    return undefined;
  }
}

/** Runs `fn` with the URL of a fresh database on the server of `pgUrl`, dropped afterwards. */
export async function withFreshDatabase<T>(pgUrl: string, fn: (dbUrl: string) => Promise<T>): Promise<T> {
  const dbName = `amp_bench_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${dbName}`);
    const dbUrl = new URL(pgUrl);
    dbUrl.pathname = `/${dbName}`;
    try {
      return await fn(dbUrl.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export function printTable(header: string[], rows: string[][]) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  for (const r of all)
    console.log(
      r
        .map((c, i) => (c ?? '').padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

/** The nearest-rank percentile `p` (0-100) of ascending `sorted`; NaN when it is empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs `task(n)` for n in [0, count) from `clients` concurrent loops. */
export async function inParallel(count: number, clients: number, task: (n: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
