/**
 * The HTTP scenarios (docs/performance.md, Running the bench) against one running service, each
 * next to a bare node:http handler answering the same response (body and headers) in the same run, and one answering the body
 * alone: req/s, p50/p99, the ratio to each, the server
 * process's peak RSS under load and CPU time per request, and executions/s where the scenario executes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ADMIN_TOKEN, fmt, registerEnterprise, root, startTarget, type Target } from './common';
import { LOAD_GENERATOR, runWrk } from './wrk';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? (process.env.BENCH_QUICK ? 3 : 8));
const WARMUP_S = process.env.BENCH_QUICK ? 1 : 2;
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Peak resident set of the loaded process (MB), sampled every 200 ms; undefined when not sampled. */
  rssMb?: number;
  /**
   * CPU time of the loaded process (all its threads, user + kernel) per request of the measured
   * run, in µs: steadier than req/s on a machine whose speed drifts between minutes.
   */
  cpuUsPerRequest?: number;
}

export interface ScenarioResult extends LoadResult {
  backend: string;
  scenario: string;
  /** A bare node:http handler answering the same response: the service's body and headers. */
  bare: LoadResult;
  ratio: number;
  /** A bare handler answering the body alone (no service headers): a second, stricter baseline. */
  bareBodyOnly?: LoadResult;
  ratioBodyOnly?: number;
  /** Executions/s (successful executions only) for the execute and batch scenarios. */
  executionsPerSecond?: number;
  /** Calls a batch answered as failed (quota, concurrency) during the measured run. */
  failedCalls?: number;
  /** Error codes seen during the measured run: non-2xx replies' `error` and failed batch calls' `error.code`. */
  errors?: Record<string, number>;
}

interface Scenario {
  /** Short name for BENCH_ONLY (bench/run.ts). */
  key: string;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Executions per successful response (1 for execute, 10 for a batch of 10). */
  executions?: number;
  /** Sent with a key of the tenant created with this policy instead of the primary key. */
  policy?: Record<string, unknown>;
  /** Left out unless named in BENCH_ONLY. */
  optIn?: boolean;
}

const BATCH_BODY = JSON.stringify({
  calls: Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, module: 'crypto', action: 'uuid', input: {} })),
});

export const SCENARIOS: Scenario[] = [
  { key: 'modules', name: 'GET /api/v1/modules?limit=1', method: 'GET', path: '/api/v1/modules?limit=1' },
  {
    key: 'execute',
    name: 'POST execute crypto.uuid',
    method: 'POST',
    path: '/api/v1/modules/crypto/execute',
    body: JSON.stringify({ action: 'uuid', input: {} }),
    executions: 1,
  },
  {
    key: 'execute-policy',
    name: 'POST execute crypto.uuid, key with a policy',
    method: 'POST',
    path: '/api/v1/modules/crypto/execute',
    body: JSON.stringify({ action: 'uuid', input: {} }),
    executions: 1,
    // What an agent's key typically carries: an allow list, the addresses it runs from, an expiry.
    policy: {
      modules: ['crypto', 'text', 'json'],
      actions: ['math.*'],
      ip_allow: ['127.0.0.0/8', '::1/128'],
      expires_at: new Date(Date.now() + 365 * 86_400_000).toISOString(),
    },
  },
  {
    key: 'execute-capped',
    name: 'POST execute crypto.uuid, key with an execution cap',
    method: 'POST',
    path: '/api/v1/modules/crypto/execute',
    body: JSON.stringify({ action: 'uuid', input: {} }),
    executions: 1,
    policy: { executions_per_month: 1_000_000_000 },
    optIn: true,
  },
  { key: 'batch', name: 'POST /api/v1/batch (10 × crypto.uuid)', method: 'POST', path: '/api/v1/batch', body: BATCH_BODY, executions: 10 },
  { key: 'search', name: 'GET /api/v1/catalog/search?q=slug', method: 'GET', path: '/api/v1/catalog/search?q=slug' },
  { key: 'me', name: 'GET /api/v1/me', method: 'GET', path: '/api/v1/me' },
];

/** Peak VmRSS (MB) of a process while `fn` runs. */
async function withPeakRss<T>(pid: number | undefined, fn: () => Promise<T>): Promise<[T, number | undefined]> {
  if (!pid) return [await fn(), undefined];
  let peakKb = 0;
  const sample = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      // Not Linux, or the process is gone: no figure.
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  try {
    const result = await fn();
    sample();
    return [result, peakKb > 0 ? Math.round(peakKb / 1024) : undefined];
  } finally {
    clearInterval(timer);
  }
}

/** CPU time (user + kernel, all threads) a process has used, in ms; undefined off Linux or once it is gone. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime and stime in clock ticks (100 per second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** What the measured run's replies said: batch calls by outcome, and every error code seen. */
export interface ReplyCounts {
  success: number;
  failed: number;
  errors: Record<string, number>;
}

const ERROR_CODE = /"(?:error|code)":"([a-z_]+)"/g;

/**
 * Tallies one reply: for a batch, its calls answered `success`/`failed` (cheap: no JSON parse)
 * and each failed call's `error.code`; for a non-2xx reply, its body's `error`.
 */
function countReply(status: number, body: string | undefined, batch: boolean, counts: ReplyCounts) {
  if (!body) return;
  const tally = (code: string) => (counts.errors[code] = (counts.errors[code] ?? 0) + 1);
  if (status < 200 || status > 299) {
    tally(/"error":"([a-z_]+)"/.exec(body)?.[1] ?? `http_${status}`);
    return;
  }
  if (!batch) return;
  counts.success += body.split('"status":"success"').length - 1;
  const failed = body.split('"status":"failed"').length - 1;
  counts.failed += failed;
  if (failed > 0) for (const m of body.matchAll(ERROR_CODE)) tally(m[1]!);
}

export async function load(
  url: string,
  scenario: Scenario,
  headers: Record<string, string>,
  pid?: number,
  counts?: ReplyCounts,
): Promise<LoadResult> {
  return LOAD_GENERATOR === 'wrk'
    ? loadWithWrk(url, scenario, headers, pid, counts)
    : loadWithAutocannon(url, scenario, headers, pid, counts);
}

async function loadWithWrk(
  url: string,
  scenario: Scenario,
  headers: Record<string, string>,
  pid?: number,
  counts?: ReplyCounts,
): Promise<LoadResult> {
  const req = {
    url,
    method: scenario.method,
    headers: scenario.body ? { ...headers, 'content-type': 'application/json' } : headers,
    body: scenario.body,
    connections: CONNECTIONS,
    batch: scenario.executions === 10,
  };
  // wrk's connections close with requests in flight too: let the warm-up's drain (as below).
  const warm = await runWrk({ ...req, durationS: WARMUP_S });
  await new Promise((resolve) => setTimeout(resolve, Math.max(500, 2 * warm.p99)));
  const cpuBefore = processCpuMs(pid);
  const [r, rssMb] = await withPeakRss(pid, () => runWrk({ ...req, durationS: DURATION_S }));
  const cpuAfter = processCpuMs(pid);
  if (counts) {
    counts.success += r.counts.success;
    counts.failed += r.counts.failed;
    for (const [code, n] of Object.entries(r.counts.errors)) counts.errors[code] = (counts.errors[code] ?? 0) + n;
  }
  const cpuUsPerRequest =
    cpuBefore !== undefined && cpuAfter !== undefined && r.requests > 0
      ? Math.round(((cpuAfter - cpuBefore) * 1000) / r.requests)
      : undefined;
  return { rps: r.rps, p50: r.p50, p99: r.p99, non2xx: r.non2xx, rssMb, cpuUsPerRequest };
}

async function loadWithAutocannon(
  url: string,
  scenario: Scenario,
  headers: Record<string, string>,
  pid?: number,
  counts?: ReplyCounts,
): Promise<LoadResult> {
  const base = {
    url,
    connections: CONNECTIONS,
    method: scenario.method,
    headers: scenario.body ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(scenario.body ? { body: scenario.body } : {}),
  };
  // Warm up (JIT, caches, pools), then measure. autocannon stops with requests still in flight,
  // which the server finishes after the warm-up's connections are gone: let them drain first, or
  // the measured run's first requests overlap them. (50 connections x a batch of 10 is exactly the
  // enterprise tenant's 500 execution slots: an overlap is answered concurrency_limit_exceeded.)
  const warm = await autocannon({ ...base, duration: WARMUP_S });
  await new Promise((resolve) => setTimeout(resolve, Math.max(500, 2 * warm.latency.p99)));
  const batch = scenario.executions === 10;
  const requests = counts
    ? [
        {
          method: scenario.method,
          path: new URL(url).pathname + new URL(url).search,
          headers: base.headers,
          body: scenario.body,
          onResponse: (status: number, body: string) => countReply(status, body, batch, counts),
        },
      ]
    : undefined;
  const cpuBefore = processCpuMs(pid);
  const [r, rssMb] = await withPeakRss(pid, () => autocannon({ ...base, duration: DURATION_S, ...(requests ? { requests } : {}) }));
  const cpuAfter = processCpuMs(pid);
  const cpuUsPerRequest =
    cpuBefore !== undefined && cpuAfter !== undefined && r.requests.total > 0
      ? Math.round(((cpuAfter - cpuBefore) * 1000) / r.requests.total)
      : undefined;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors + r.timeouts,
    rssMb,
    cpuUsPerRequest,
  };
}

/** Headers the baselines do not copy: those node:http writes itself for them. */
const OWN_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** One reply as the service writes it: status, body, and its headers with their names as sent. */
function sample(
  url: string,
  scenario: Scenario,
  headers: Record<string, string>,
): Promise<{ status: number; body: Buffer; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: scenario.method, headers: scenario.body ? { ...headers, 'content-type': 'application/json' } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const sent: Record<string, string> = {};
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (!OWN_HEADERS.has(res.rawHeaders[i]!.toLowerCase())) sent[res.rawHeaders[i]!] = res.rawHeaders[i + 1]!;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: sent });
        });
      },
    );
    req.on('error', reject);
    req.end(scenario.body);
  });
}

/**
 * Every scenario against `service`, each after two bare handlers: one answering the service's
 * response as it was sent (body and headers: the ratio's baseline), one the body alone. Every run,
 * baselines included, tallies its replies (`countReply`), so the load generator does the same
 * work per reply for each: on a machine it shares with the servers, that work is CPU theirs lose.
 */
/** What the durable baseline needs: the service's database and Redis, and a tenant in it. */
export interface DurableTarget {
  databaseUrl: string;
  redisUrl: string;
  tenantId: string;
}

export async function benchService(
  backend: string,
  service: Target,
  apiKey: string,
  workDir: string,
  log: (line: string) => void,
  only?: ReadonlySet<string>,
  durable?: DurableTarget,
): Promise<ScenarioResult[]> {
  const primary = { 'x-api-key': apiKey };
  const results: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) {
    const withDurable = scenario.key === 'execute' && durable !== undefined && (!only || only.has('durable'));
    const withMetered = scenario.key === 'modules' && durable !== undefined && (!only || only.has('metered'));
    if (only && !only.has(scenario.key) && !withDurable && !withMetered) continue;
    if (scenario.optIn && !only?.has(scenario.key)) continue;
    const url = `${service.url}${scenario.path}`;
    const headers = scenario.policy ? { 'x-api-key': await keyWithPolicy(service, apiKey, scenario.policy) } : primary;
    const reply = await sample(url, scenario, headers);
    if (reply.status !== 200) throw new Error(`${scenario.name} answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
    const bodyFile = path.join(workDir, 'body.json');
    const headersFile = path.join(workDir, 'headers.json');
    writeFileSync(bodyFile, reply.body);
    writeFileSync(headersFile, JSON.stringify(reply.headers));
    const tally = () => ({ success: 0, failed: 0, errors: {} });
    const bareTarget = await startTarget(['bare', bodyFile, headersFile], {});
    const bare = await load(bareTarget.url, scenario, {}, bareTarget.child.pid, tally()).finally(() => bareTarget.stop());
    const bodyOnlyTarget = await startTarget(['bare', bodyFile], {});
    const bareBodyOnly = await load(bodyOnlyTarget.url, scenario, {}, bodyOnlyTarget.child.pid, tally()).finally(() =>
      bodyOnlyTarget.stop(),
    );
    const against = { bare, bareBodyOnly };
    const ratios = (r: LoadResult) => ({ ratio: r.rps / bare.rps, ratioBodyOnly: r.rps / bareBodyOnly.rps });
    if (withDurable) {
      // The durable ceiling: node:http + one group-committed INSERT per request + one Redis round trip, same tables.
      const target = await startTarget(['durable', bodyFile, headersFile], {
        DURABLE_DATABASE_URL: durable.databaseUrl,
        DURABLE_REDIS_URL: durable.redisUrl,
        DURABLE_TENANT_ID: durable.tenantId,
      });
      const d = await load(target.url, scenario, {}, target.child.pid, tally()).finally(() => target.stop());
      results.push({
        backend,
        scenario: 'durable baseline: node:http + pg group commit + 1 Redis',
        ...d,
        ...against,
        ...ratios(d),
        executionsPerSecond: d.rps,
      });
      log(`${backend}: durable baseline: ${Math.round(d.rps)} req/s (bare ${Math.round(bare.rps)}), p99 ${d.p99} ms`);
      if (only && !only.has(scenario.key)) continue;
    }
    if (withMetered) {
      // The ceiling of an authenticated read under the header contract: node:http + the limiter's one Redis round trip.
      const target = await startTarget(['metered', bodyFile, headersFile], { METERED_REDIS_URL: durable.redisUrl });
      const m = await load(target.url, scenario, {}, target.child.pid, tally()).finally(() => target.stop());
      results.push({ backend, scenario: 'metered read baseline: node:http + the limiter script in Redis', ...m, ...against, ...ratios(m) });
      log(`${backend}: metered read baseline: ${Math.round(m.rps)} req/s (bare ${Math.round(bare.rps)}), p99 ${m.p99} ms`);
      if (only && !only.has(scenario.key)) continue;
    }
    const counts: ReplyCounts = { success: 0, failed: 0, errors: {} };
    const svc = await load(url, scenario, headers, service.child.pid, counts);
    const result: ScenarioResult = { backend, scenario: scenario.name, ...svc, ...against, ...ratios(svc), errors: counts.errors };
    if (scenario.executions === 1) result.executionsPerSecond = svc.rps;
    if (scenario.executions === 10) {
      result.executionsPerSecond = counts.success / DURATION_S;
      result.failedCalls = counts.failed;
    }
    log(
      `${backend}: ${scenario.name}: ${Math.round(svc.rps)} req/s (bare ${Math.round(bare.rps)}, body only ${Math.round(bareBodyOnly.rps)}), p99 ${svc.p99} ms, RSS ${svc.rssMb ?? '?'} MB${errorSummary(counts.errors)}`,
    );
    results.push(result);
  }
  return results;
}

/** A new key of the tenant (the primary key creates it) carrying `policy`: its secret. */
async function keyWithPolicy(service: Target, apiKey: string, policy: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${service.url}/api/v1/keys`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-policy', scopes: ['modules:read', 'modules:execute'], policy }),
  });
  const body = (await res.json()) as { api_key?: string };
  if (res.status !== 201 || !body.api_key) throw new Error(`creating a key with a policy answered ${res.status}: ${JSON.stringify(body)}`);
  return body.api_key;
}

/** Starts the service on `env` with an enterprise tenant (no quota, no request limit) and runs `fn`. */
export async function withService<T>(
  env: Record<string, string | undefined>,
  fn: (service: Target, apiKey: string, workDir: string, tenantId: string) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-bench-'));
  const service = await startTarget(['service'], {
    ...env,
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    REGISTER_LIMIT_PER_HOUR: '1000000',
    NODE_ENV: 'production',
  });
  try {
    const reg = await registerEnterprise(service.url, 'bench');
    return await fn(service, reg.api_key, dataDir, reg.tenant_id);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function resultRows(results: ScenarioResult[]): string[][] {
  return results.map((r) => [
    `${r.backend}: ${r.scenario}`,
    fmt(r.bare.rps),
    fmt(r.rps),
    `${(r.ratio * 100).toFixed(1)}%`,
    r.ratioBodyOnly === undefined ? '' : `${(r.ratioBodyOnly * 100).toFixed(1)}% (${fmt(r.bareBodyOnly!.rps)})`,
    // No reply within the run: no latency to show (the requests were still waiting).
    r.rps === 0 ? '—' : `${r.p50} ms`,
    r.rps === 0 ? 'none done' : `${r.p99} ms`,
    r.executionsPerSecond === undefined ? '' : fmt(r.executionsPerSecond),
    r.rssMb === undefined ? '' : `${r.rssMb} MB`,
    r.cpuUsPerRequest === undefined
      ? ''
      : `${r.cpuUsPerRequest} µs${r.bare.cpuUsPerRequest === undefined ? '' : ` (${r.bare.cpuUsPerRequest})`}`,
    String(r.non2xx + (r.failedCalls ?? 0)),
    Object.entries(r.errors ?? {})
      .map(([code, n]) => `${code} ${n}`)
      .join(', '),
  ]);
}
export const RESULT_HEADER = [
  'scenario',
  'bare req/s',
  'req/s',
  'ratio',
  'ratio to body-only bare (its req/s)',
  'p50',
  'p99',
  'executions/s',
  'RSS',
  'CPU/req (bare)',
  'non-2xx/failed',
  'errors by code',
];

function errorSummary(errors: Record<string, number>): string {
  const parts = Object.entries(errors).map(([code, n]) => `${code} ${n}`);
  return parts.length > 0 ? `, errors: ${parts.join(', ')}` : '';
}

export function writeResults(kind: string, data: unknown): string {
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
