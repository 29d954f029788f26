/**
 * `npm run bench`: requests/s and p99 latency of the service's hot paths next to a bare
 * node:http handler answering the same bytes, measured in the same run, and their ratio.
 * Goals (issue #3): authenticated GET >= 50% of bare on the embedded default, >= 35% with Redis.
 * Then webhook throughput (bench/webhooks.ts): deliveries/s and event -> first attempt delay
 * from 10,000 executions, next to a bare receiver; targets >= 1,000/s, p99 <= 250 ms on PostgreSQL.
 *
 *   BENCH_ONLY=http|webhooks              one section (default both)
 *   BENCH_BACKENDS=embedded,pg,embedded+redis   which backends (default all; webhooks: embedded, pg)
 *   BENCH_DATABASE_URL, BENCH_REDIS_URL   PostgreSQL server (a fresh database is created and
 *                                         dropped per section) and Redis; PostgreSQL scenarios
 *                                         are left out when it is not reachable
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { ADMIN_TOKEN, fmt, json, printTable, reachable, registerEnterprise, startTarget, withFreshDatabase } from './common';
import { benchWebhooks, printWebhookResult, type WebhookResult } from './webhooks';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** BENCH_ONLY=http or BENCH_ONLY=webhooks runs one section; both by default. */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'http,webhooks').split(',').map((s) => s.trim()));
const BACKENDS = new Set((process.env.BENCH_BACKENDS ?? 'embedded,pg,embedded+redis').split(',').map((s) => s.trim()));

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

async function benchService(label: string, env: Record<string, string | undefined>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-bench-'));
  const service = await startTarget(['service'], { ...env, DATA_DIR: dataDir, ADMIN_TOKEN, REGISTER_LIMIT_PER_HOUR: '1000000' });
  try {
    const reg = await registerEnterprise(service.url, 'bench');
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

console.log(
  `bench: ${ONLY.has('http') ? `${CONNECTIONS} connections, ${DURATION_S} s per HTTP measurement (after 1 s warm-up); ` : ''}service, receivers and bare handlers each in their own process\n`,
);
const pgUrl = await reachable(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', async (u) => {
  const c = new pg.Client({ connectionString: u, connectionTimeoutMillis: 1000 });
  await c.connect();
  await c.end();
});
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
if (!pgUrl) console.log('PostgreSQL not reachable (BENCH_DATABASE_URL): the PostgreSQL+Redis scenarios are left out.\n');

const rows: string[][] = [];
if (ONLY.has('http')) {
  if (BACKENDS.has('embedded')) rows.push(...(await benchService('embedded', { DATABASE_URL: undefined, REDIS_URL: undefined })));
  if (pgUrl && BACKENDS.has('pg')) {
    await withFreshDatabase(pgUrl, async (dbUrl) => {
      rows.push(...(await benchService('pg+redis', { DATABASE_URL: dbUrl, REDIS_URL: redisUrl })));
    });
  }
  if (pgUrl && BACKENDS.has('embedded+redis')) rows.push(...(await benchService('embedded+redis', { DATABASE_URL: undefined, REDIS_URL: redisUrl })));
}

// Delivery concurrency (workers x batchSize) as src/app.ts configures it: the bare baseline's in-flight count.
const webhookResults: WebhookResult[] = [];
if (ONLY.has('webhooks')) {
  if (BACKENDS.has('embedded')) webhookResults.push(await benchWebhooks('embedded (PGlite)', { DATABASE_URL: undefined, REDIS_URL: undefined }, { onPostgres: false, inFlightCap: 32 }));
  if (pgUrl && BACKENDS.has('pg')) {
    webhookResults.push(
      await withFreshDatabase(pgUrl, (dbUrl) =>
        benchWebhooks('PostgreSQL + Redis', { DATABASE_URL: dbUrl, REDIS_URL: redisUrl }, { onPostgres: true, inFlightCap: 64 }),
      ),
    );
  }
}

if (rows.length > 0) {
  printTable(['scenario', 'req/s', 'p99', 'bare req/s', 'bare p99', 'ratio', 'non-2xx'], rows);
  console.log('');
}
for (const r of webhookResults) printWebhookResult(r);
process.exit(0);
