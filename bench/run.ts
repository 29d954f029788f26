/**
 * `npm run bench` (docs/performance.md): the table for the embedded default (PGlite) and PostgreSQL + Redis:
 * per scenario the service's req/s next to a bare node:http handler answering the same response
 * (body and headers) in the same run, the ratio (and the ratio to a handler answering the body
 * alone), p50/p99, the server process's peak RSS and CPU per request under load and executions/s
 * (bench/http.ts); JSON of every figure under bench/results/. Then webhook throughput
 * (bench/webhooks.ts), then workflow throughput (bench/workflows.ts). `npm run bench -- --growth` (or BENCH_GROWTH=1) runs the growth run
 * instead (bench/growth.ts: PostgreSQL with 1, 1,000 and 100,000 tenants and generated executions).
 *
 *   BENCH_QUICK=1                         3 s per measurement, no webhook or workflow section (~3-4 min)
 *   BENCH_DURATION, BENCH_CONNECTIONS     seconds per measurement (8), connections (50)
 *   BENCH_LOAD=wrk|autocannon             the load generator (default: wrk when installed, else
 *                                         autocannon; bench/wrk.ts says why)
 *   BENCH_ONLY=http|webhooks|workflows    some sections, comma-separated (default all); or scenario keys of the HTTP
 *                                         section (modules, execute, execute-policy, batch, search, me, durable,
 *                                         metered; execute-capped runs only when named),
 *                                         comma-separated, for only those
 *   BENCH_BACKENDS=embedded,pg,embedded+redis   which backends (default embedded,pg)
 *   BENCH_DATABASE_URL, BENCH_REDIS_URL   PostgreSQL server (a fresh database is created and
 *                                         dropped per section) and Redis; PostgreSQL scenarios
 *                                         are left out when it is not reachable
 */
import path from 'node:path';
import pg from 'pg';
import { printTable, reachable, root, withFreshDatabase } from './common';
import { benchGrowth } from './growth';
import {
  benchService,
  CONNECTIONS,
  SCENARIOS,
  DURATION_S,
  RESULT_HEADER,
  resultRows,
  withService,
  writeResults,
  type ScenarioResult,
} from './http';
import { benchWebhooks, printWebhookResult, type WebhookResult } from './webhooks';
import { benchWorkflows, printWorkflowResults, type WorkflowResult } from './workflows';
import { LOAD_GENERATOR } from './wrk';
import { DELIVERIES_IN_FLIGHT } from '../src/jobs/webhooks';

const QUICK = Boolean(process.env.BENCH_QUICK);
const GROWTH = process.argv.includes('--growth') || Boolean(process.env.BENCH_GROWTH);
const ONLY = new Set((process.env.BENCH_ONLY ?? (QUICK ? 'http' : 'http,webhooks,workflows')).split(',').map((s) => s.trim()));
const SCENARIO_KEYS = [...SCENARIOS.map((s) => s.key), 'durable', 'metered'];
// Scenario keys (BENCH_ONLY=execute,batch) run the HTTP section with only those scenarios.
const ONLY_SCENARIOS = SCENARIO_KEYS.some((k) => ONLY.has(k)) ? new Set(SCENARIO_KEYS.filter((k) => ONLY.has(k))) : undefined;
if (ONLY_SCENARIOS) ONLY.add('http');
const BACKENDS = new Set((process.env.BENCH_BACKENDS ?? 'embedded,pg').split(',').map((s) => s.trim()));
const progress = (line: string) => process.stderr.write(`bench ${line}\n`);

const pgUrl = await reachable(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', async (u) => {
  const c = new pg.Client({ connectionString: u, connectionTimeoutMillis: 1000 });
  await c.connect();
  await c.end();
});
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
if (!pgUrl) console.log('PostgreSQL not reachable (BENCH_DATABASE_URL): the PostgreSQL+Redis scenarios are left out.\n');

if (GROWTH) {
  if (!pgUrl) {
    console.log('The growth run needs PostgreSQL (BENCH_DATABASE_URL).');
    process.exit(1);
  }
  await benchGrowth(pgUrl, redisUrl, progress);
  process.exit(0);
}

console.log(
  `bench: ${ONLY.has('http') ? `${CONNECTIONS} connections, ${DURATION_S} s per HTTP measurement (after a warm-up), load from ${LOAD_GENERATOR}; ` : ''}service, receivers and bare handlers each in their own process\n`,
);
const results: ScenarioResult[] = [];
if (ONLY.has('http')) {
  const run = (backend: string, env: Record<string, string | undefined>) =>
    withService(env, async (service, apiKey, workDir, tenantId) => {
      // On PostgreSQL + Redis the durable baseline runs beside execute, on the service's own database and tables.
      const durable = env.DATABASE_URL && env.REDIS_URL ? { databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, tenantId } : undefined;
      results.push(...(await benchService(backend, service, apiKey, workDir, progress, ONLY_SCENARIOS, durable)));
    });
  if (BACKENDS.has('embedded')) await run('PGlite', { DATABASE_URL: undefined, REDIS_URL: undefined });
  if (pgUrl && BACKENDS.has('pg')) await withFreshDatabase(pgUrl, (dbUrl) => run('PG+Redis', { DATABASE_URL: dbUrl, REDIS_URL: redisUrl }));
  if (pgUrl && BACKENDS.has('embedded+redis')) await run('PGlite+Redis', { DATABASE_URL: undefined, REDIS_URL: redisUrl });
}

// Delivery concurrency (workers x batchSize) as src/app.ts configures it: the bare baseline's in-flight count.
const webhookResults: WebhookResult[] = [];
if (ONLY.has('webhooks')) {
  if (BACKENDS.has('embedded'))
    webhookResults.push(
      await benchWebhooks(
        'embedded (PGlite)',
        { DATABASE_URL: undefined, REDIS_URL: undefined },
        { onPostgres: false, inFlightCap: DELIVERIES_IN_FLIGHT },
      ),
    );
  if (pgUrl && BACKENDS.has('pg')) {
    webhookResults.push(
      await withFreshDatabase(pgUrl, (dbUrl) =>
        benchWebhooks(
          'PostgreSQL + Redis',
          { DATABASE_URL: dbUrl, REDIS_URL: redisUrl },
          { onPostgres: true, inFlightCap: DELIVERIES_IN_FLIGHT },
        ),
      ),
    );
  }
}

const workflowResults: WorkflowResult[] = [];
if (ONLY.has('workflows')) {
  const run = (backend: string, env: Record<string, string | undefined>) =>
    withService(env, async (service, apiKey) => workflowResults.push(await benchWorkflows(backend, service, apiKey, progress)));
  if (BACKENDS.has('embedded')) await run('PGlite', { DATABASE_URL: undefined, REDIS_URL: undefined });
  if (pgUrl && BACKENDS.has('pg')) await withFreshDatabase(pgUrl, (dbUrl) => run('PG+Redis', { DATABASE_URL: dbUrl, REDIS_URL: redisUrl }));
}

if (results.length > 0) {
  printTable(RESULT_HEADER, resultRows(results));
  console.log('');
}
for (const r of webhookResults) printWebhookResult(r);
printWorkflowResults(workflowResults);
const file = writeResults('bench', {
  at: new Date().toISOString(),
  quick: QUICK,
  durationS: DURATION_S,
  connections: CONNECTIONS,
  loadGenerator: LOAD_GENERATOR,
  http: results,
  webhooks: webhookResults,
  workflows: workflowResults,
});
console.log(`\nJSON: ${path.relative(root, file)}`);
process.exit(0);
