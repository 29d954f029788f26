/**
 * `npm run bench`: requests/s and p99 latency of the service's hot paths next to a bare
 * node:http handler answering the same bytes, measured in the same run, and their ratio.
 * Goals (issue #3): authenticated GET >= 50% of bare on the embedded default, >= 35% with Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Target {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startTarget(args: string[], env: Record<string, string | undefined>): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/target.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise((resolve) => {
        const force = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

async function load(url: string, headers: Record<string, string> = {}, extra: { method?: 'POST'; body?: string; connections?: number } = {}) {
  const options = {
    url,
    headers,
    connections: extra.connections ?? CONNECTIONS,
    ...(extra.method ? { method: extra.method, body: extra.body } : {}),
  };
  // Warm up (JIT, caches), then measure.
  await autocannon({ ...options, duration: 1 });
  const r = await autocannon({ ...options, duration: DURATION_S });
  const non2xx = r.non2xx + r.errors + r.timeouts;
  return { rps: r.requests.average, p99: r.latency.p99, non2xx };
}

async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  return { status: res.status, text: await res.text() };
}

async function reachable(url: string | undefined, check: (u: string) => Promise<void>): Promise<string | undefined> {
  if (!url) return undefined;
  try {
    await check(url);
    return url;
  } catch {
    return undefined;
  }
}

async function benchService(label: string, env: Record<string, string | undefined>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-bench-'));
  const service = await startTarget(['service'], { ...env, DATA_DIR: dataDir, ADMIN_TOKEN, REGISTER_LIMIT_PER_HOUR: '1000000' });
  try {
    const reg = JSON.parse(
      (await json(`${service.url}/api/v1/auth/register`, {
        method: 'POST',
        body: JSON.stringify({ agent_name: 'bench', owner_email: `bench-${Date.now()}@example.com` }),
      })).text,
    ) as { api_key: string; tenant_id: string };
    // Lift the request limit so the benchmark measures the path, not 429s.
    await json(`${service.url}/api/v1/admin/tenants/${reg.tenant_id}/plan`, {
      method: 'PUT',
      headers: { 'x-admin-token': ADMIN_TOKEN },
      body: JSON.stringify({ plan: 'enterprise', requests_per_minute: 100_000_000 }),
    });
    const keysUrl = `${service.url}/api/v1/keys`;
    const keysBody = (await json(keysUrl, { headers: { 'x-api-key': reg.api_key } })).text;
    const moduleUrl = `${service.url}/api/v1/modules?limit=1`;
    const moduleBody = (await json(moduleUrl, { headers: { 'x-api-key': reg.api_key } })).text;
    const meUrl = `${service.url}/api/v1/me`;
    const meBody = (await json(meUrl, { headers: { 'x-api-key': reg.api_key } })).text;
    const healthUrl = `${service.url}/api/v1/health`;
    const healthBody = (await json(healthUrl)).text;

    const rows: string[][] = [];
    const executeUrl = `${service.url}/api/v1/modules/text/execute`;
    const executeRequest = JSON.stringify({ action: 'slugify', input: { text: 'Hello World' } });
    const executeBody = (await json(executeUrl, { method: 'POST', headers: { 'x-api-key': reg.api_key }, body: executeRequest })).text;
    for (const [name, url, body, headers, request] of [
      ['public exempt GET /api/v1/health', healthUrl, healthBody, {}],
      ['authenticated exempt GET /api/v1/modules?limit=1', moduleUrl, moduleBody, { 'x-api-key': reg.api_key }],
      ['authenticated GET /api/v1/me', meUrl, meBody, { 'x-api-key': reg.api_key }],
      ['authenticated GET /api/v1/keys (DB read)', keysUrl, keysBody, { 'x-api-key': reg.api_key }],
      ['execute text.slugify (POST, 50 conns)', executeUrl, executeBody, { 'x-api-key': reg.api_key, 'content-type': 'application/json' }, executeRequest],
    ] as [string, string, string, Record<string, string>, string?][]) {
      const bodyFile = path.join(dataDir, 'body.json');
      writeFileSync(bodyFile, body);
      const bare = await startTarget(['bare', bodyFile], {});
      const opts = request ? { method: 'POST' as const, body: request, connections: 50 } : {};
      const base = await load(bare.url, {}, opts);
      await bare.stop();
      const svc = await load(url, headers, opts);
      rows.push([
        `${label}: ${name}`,
        fmt(svc.rps),
        `${svc.p99} ms`,
        fmt(base.rps),
        `${base.p99} ms`,
        `${((svc.rps / base.rps) * 100).toFixed(1)}%`,
        String(svc.non2xx),
      ]);
    }
    return rows;
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function print(rows: string[][]) {
  const header = ['scenario', 'req/s', 'p99', 'bare req/s', 'bare p99', 'ratio', 'non-2xx'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  for (const r of all) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
}

const rows: string[][] = [];
console.log(`bench: ${CONNECTIONS} connections, ${DURATION_S} s per measurement (after 1 s warm-up), service and bare handler each in their own process\n`);
rows.push(...(await benchService('embedded', { DATABASE_URL: undefined, REDIS_URL: undefined })));

const pgUrl = await reachable(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', async (u) => {
  const c = new pg.Client({ connectionString: u, connectionTimeoutMillis: 1000 });
  await c.connect();
  await c.end();
});
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
if (pgUrl) {
  const dbName = `amp_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(pgUrl);
  dbUrl.pathname = `/${dbName}`;
  try {
    rows.push(...(await benchService('pg+redis', { DATABASE_URL: dbUrl.toString(), REDIS_URL: redisUrl })));
    rows.push(...(await benchService('embedded+redis', { DATABASE_URL: undefined, REDIS_URL: redisUrl })));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
} else {
  console.log('PostgreSQL not reachable (BENCH_DATABASE_URL): the PostgreSQL+Redis scenario is left out.\n');
}
print(rows);
process.exit(0);
