/**
 * Webhook throughput: deliveries/s from 10,000 executions to a local receiver, and the p99
 * delay from event to first attempt (targets: docs/performance.md, Targets). The service, the
 * receiver and the bare baseline's receiver each run in their own process; this process only issues requests and reads the receiver's records.
 *
 *   BENCH_WEBHOOK_EXECUTIONS   executions to issue (default 10,000), as batch calls of 10
 *   BENCH_WEBHOOK_CONNECTIONS  concurrent connections issuing the batches (default 8)
 *   BENCH_WEBHOOK_DRAIN_S      give up waiting for deliveries after this long without one (default 30)
 */
import { request, Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, fmt, inParallel, json, percentile, registerEnterprise, startTarget, type Target } from './common';

const EXECUTIONS = Number(process.env.BENCH_WEBHOOK_EXECUTIONS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_WEBHOOK_CONNECTIONS ?? 8);
const DRAIN_IDLE_MS = Number(process.env.BENCH_WEBHOOK_DRAIN_S ?? 30) * 1000;
const BATCH = 10;
const WARMUP_BATCHES = 20;
const PLAIN_BATCHES = 100;
const PROBES = 20;
const TARGET_RATE = 1_000;
const TARGET_P99_MS = 250;

const nowMs = () => performance.timeOrigin + performance.now();
const progress = (line: string) => process.stderr.write(`webhooks ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ReceiverStats {
  posts: number;
  firstAttempts: number;
  retries: number;
  duplicates: number;
  badBodies: number;
  connections: number;
  peakConnections: number;
  sample: null | { headers: Record<string, string | string[] | undefined>; body: string };
  at: number[];
  delay: number[];
}

async function stats(receiver: Target, summary = false): Promise<ReceiverStats> {
  const res = await fetch(`${receiver.url}/stats${summary ? '?summary' : ''}`);
  return (await res.json()) as ReceiverStats;
}

async function reset(receiver: Target) {
  await fetch(`${receiver.url}/reset`, { method: 'POST' });
}

/** Waits until `expected` first attempts arrived, or none arrived for DRAIN_IDLE_MS. */
async function waitForDeliveries(receiver: Target, expected: number, idleMs = DRAIN_IDLE_MS): Promise<void> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const s = await stats(receiver, true);
    if (s.firstAttempts >= expected) return;
    if (s.firstAttempts !== last) {
      last = s.firstAttempts;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > idleMs) {
      return;
    }
    await sleep(100);
  }
}

/** Issues `batches` batch requests of 10 executions from `connections` concurrent loops. */
async function issueBatches(serviceUrl: string, apiKey: string, batches: number, connections: number, tag: string) {
  let next = 0;
  let ok = 0;
  let failedCalls = 0;
  let non2xx = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < batches) {
        const b = next++;
        const calls = Array.from({ length: BATCH }, (_, i) => ({
          module: 'text',
          action: 'slugify',
          input: { text: `Bench ${tag} ${b} ${i}` },
        }));
        const res = await fetch(`${serviceUrl}/api/v1/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ calls }),
        });
        const text = await res.text();
        if (res.status !== 200) {
          non2xx++;
          continue;
        }
        const result = JSON.parse(text) as { succeeded: number; failed: number };
        ok += result.succeeded;
        failedCalls += result.failed;
      }
    }),
  );
  return { ok, failedCalls, non2xx };
}

export interface WebhookResult {
  label: string;
  onPostgres: boolean;
  executions: number;
  batchRequests: number;
  non2xx: number;
  failedCalls: number;
  issueMs: number;
  received: ReceiverStats;
  deliveriesPerS: number;
  totalMs: number;
  drainPerS: number;
  drainCount: number;
  drainMs: number;
  delays: { p50: number; p95: number; p99: number; max: number };
  idleDelays: { p50: number; max: number };
  serviceStats: { success_rate?: number; avg_latency_ms?: number; total_deliveries?: number } | null;
  baseline: BaselineResult;
  baselineKeepAlive: BaselineResult;
  inFlightCap: number;
  plainPerS: number;
  replay: { events: number; received: number; requestMs: number; perS: number; drainPerS: number; peakConnections: number };
}

/**
 * One backend: a fresh service and receiver; a pro+ (enterprise) tenant subscribed to
 * execution.completed; a warm-up; EXECUTIONS executions; wait for their deliveries; an idle
 * probe of single executions one at a time; then the bare baseline at the same concurrency.
 * `inFlightCap` is the service's delivery concurrency (DeliveryWorker maxInFlight in src/app.ts).
 */
export async function benchWebhooks(
  label: string,
  env: Record<string, string | undefined>,
  opts: { onPostgres: boolean; inFlightCap: number },
): Promise<WebhookResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-bench-webhooks-'));
  const receiver = await startTarget(['receiver'], {});
  let service: Target | undefined;
  try {
    service = await startTarget(['service'], {
      ...env,
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      REGISTER_LIMIT_PER_HOUR: '1000000',
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    const reg = await registerEnterprise(service.url, 'bench-webhooks');
    // Warm-up without a subscription (JIT, caches, pools): also the execution rate without webhooks.
    const tPlain = nowMs();
    const plain = await issueBatches(service.url, reg.api_key, PLAIN_BATCHES, CONNECTIONS, 'plain');
    const plainPerS = plain.ok / ((nowMs() - tPlain) / 1000);

    const created = await json(`${service.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': reg.api_key },
      body: JSON.stringify({ url: `${receiver.url}/hook`, events: ['execution.completed'] }),
    });
    if (created.status !== 201) throw new Error(`webhook create answered ${created.status}: ${created.text}`);
    const webhookId = (JSON.parse(created.text) as { id: string }).id;

    // Warm-up of the delivery path, then forget what the receiver saw.
    const warm = await issueBatches(service.url, reg.api_key, WARMUP_BATCHES, CONNECTIONS, 'warm');
    await waitForDeliveries(receiver, warm.ok, 10_000);
    await reset(receiver);

    const batches = Math.ceil(EXECUTIONS / BATCH);
    progress(`${label}: issuing ${fmt(batches * BATCH)} executions and waiting for their deliveries`);
    const t0 = nowMs();
    const issued = await issueBatches(service.url, reg.api_key, batches, CONNECTIONS, 'run');
    const tIssued = nowMs();
    await waitForDeliveries(receiver, issued.ok);
    const received = await stats(receiver);

    const sortedAt = [...received.at].sort((a, b) => a - b);
    const lastAt = sortedAt.at(-1) ?? tIssued;
    const totalMs = lastAt - t0;
    const drainCount = sortedAt.filter((t) => t > tIssued).length;
    const drainMs = Math.max(0, lastAt - tIssued);
    const sortedDelay = [...received.delay].sort((a, b) => a - b);

    const detail = await json(`${service.url}/api/v1/webhooks/${webhookId}`, { headers: { 'x-api-key': reg.api_key } });
    const serviceStats =
      detail.status === 200 ? ((JSON.parse(detail.text) as { stats?: WebhookResult['serviceStats'] }).stats ?? null) : null;

    // Idle probe: one execution at a time, so the delay is the path's own, not a queue's.
    await reset(receiver);
    for (let i = 0; i < PROBES; i++) {
      await json(`${service.url}/api/v1/modules/text/execute`, {
        method: 'POST',
        headers: { 'x-api-key': reg.api_key },
        body: JSON.stringify({ action: 'slugify', input: { text: `probe ${i}` } }),
      });
      await waitForDeliveries(receiver, i + 1, 5_000);
    }
    const probe = [...(await stats(receiver)).delay].sort((a, b) => a - b);

    progress(`${label}: idle probe, replay, bare baselines`);
    // The delivery pipeline alone: replay the run's events (one transaction creates them all as
    // new deliveries, then wakes the worker), with no executions competing for CPU or database.
    await reset(receiver);
    const tReplay = nowMs();
    const replay = await json(`${service.url}/api/v1/webhooks/${webhookId}/replay`, {
      method: 'POST',
      headers: { 'x-api-key': reg.api_key },
      body: JSON.stringify({ since: new Date(t0 - 1).toISOString(), until: new Date(tIssued + 1).toISOString() }),
    });
    const tReplayed = nowMs();
    const replayed = replay.status === 202 ? (JSON.parse(replay.text) as { replayed: number }).replayed : 0;
    await waitForDeliveries(receiver, replayed);
    const replayStats = await stats(receiver);
    const replayLast = replayStats.at.length > 0 ? Math.max(...replayStats.at) : NaN;

    await service.stop();
    service = undefined;
    const sample = received.sample ?? {
      headers: {},
      body: JSON.stringify({ id: 'evt_x', event: 'execution.completed', timestamp: new Date().toISOString(), data: {} }),
    };
    const baseline = await bareBaseline(receiver, sample, opts.inFlightCap, false);
    const baselineKeepAlive = await bareBaseline(receiver, sample, opts.inFlightCap, true);

    return {
      label,
      onPostgres: opts.onPostgres,
      executions: issued.ok,
      batchRequests: batches,
      non2xx: issued.non2xx,
      failedCalls: issued.failedCalls,
      issueMs: tIssued - t0,
      received,
      deliveriesPerS: received.firstAttempts / (totalMs / 1000),
      totalMs,
      drainPerS: drainMs > 0 ? drainCount / (drainMs / 1000) : NaN,
      drainCount,
      drainMs,
      delays: {
        p50: percentile(sortedDelay, 50),
        p95: percentile(sortedDelay, 95),
        p99: percentile(sortedDelay, 99),
        max: sortedDelay.at(-1) ?? NaN,
      },
      idleDelays: { p50: percentile(probe, 50), max: probe.at(-1) ?? NaN },
      serviceStats,
      baseline,
      baselineKeepAlive,
      inFlightCap: opts.inFlightCap,
      plainPerS,
      replay: {
        events: replayed,
        received: replayStats.firstAttempts,
        requestMs: tReplayed - tReplay,
        perS: replayStats.firstAttempts / ((replayLast - tReplay) / 1000),
        drainPerS: replayStats.firstAttempts / ((replayLast - tReplayed) / 1000),
        peakConnections: replayStats.peakConnections,
      },
    };
  } finally {
    await service?.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface BaselineResult {
  posts: number;
  perS: number;
  p99: number;
  connections: number;
}

/**
 * The bare baseline: the same receiver process takes EXECUTIONS POSTs of the sample delivery's
 * body and headers from a plain node:http client loop with `concurrency` requests in flight,
 * either a new TCP connection per POST (as the service's guardedFetch, agent: false) or
 * keep-alive. Each body's `timestamp` is its send time, so the receiver's delay is the POST's.
 */
async function bareBaseline(
  receiver: Target,
  sample: NonNullable<ReceiverStats['sample']>,
  concurrency: number,
  keepAlive: boolean,
): Promise<BaselineResult> {
  const template = JSON.parse(sample.body) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(sample.headers)) {
    if (typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)) headers[k] = v;
  }
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: concurrency }) : false;
  const url = new URL(`${receiver.url}/hook`);
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ ...template, id: `evt_bare_${i}`, timestamp: new Date().toISOString() });
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: { ...headers, 'x-webhook-id': `evt_bare_${i}`, 'x-webhook-attempt': '1', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`receiver answered ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const run = (n: number, offset: number) => inParallel(n, concurrency, (i) => post(offset + i));
  await run(Math.min(1000, EXECUTIONS), 0); // warm-up
  await reset(receiver);
  const t0 = nowMs();
  await run(EXECUTIONS, 1_000_000);
  const s = await stats(receiver);
  if (agent) agent.destroy();
  const lastAt = Math.max(...s.at);
  const delays = [...s.delay].sort((a, b) => a - b);
  return {
    posts: s.firstAttempts,
    perS: s.firstAttempts / ((lastAt - t0) / 1000),
    p99: percentile(delays, 99),
    connections: s.connections,
  };
}

const ms = (n: number) => (Number.isFinite(n) ? `${fmt(n)} ms` : 'n/a');
const rate = (n: number) => (Number.isFinite(n) ? `${fmt(n)}/s` : 'n/a');

export function printWebhookResult(r: WebhookResult) {
  const rcv = r.received;
  const missing = Math.max(0, r.executions - rcv.firstAttempts);
  const rateMet = r.deliveriesPerS >= TARGET_RATE ? 'met' : 'missed';
  const p99Met = r.delays.p99 <= TARGET_P99_MS ? 'met' : 'missed';
  const lines: [string, string][] = [
    [
      'executions issued',
      `${fmt(r.executions)} in ${(r.issueMs / 1000).toFixed(2)} s = ${rate(r.executions / (r.issueMs / 1000))} (${fmt(r.batchRequests)} batch requests x ${BATCH} calls, ${CONNECTIONS} connections; non-2xx ${r.non2xx}, failed calls ${r.failedCalls})`,
    ],
    ['  same, no subscription', `${rate(r.plainPerS)} (${fmt(PLAIN_BATCHES * BATCH)} executions before subscribing, the warm-up)`],
    [
      'deliveries received',
      `${fmt(rcv.firstAttempts)} first attempts; missing ${fmt(missing)}; retries ${fmt(rcv.retries)}; duplicates ${fmt(rcv.duplicates)}`,
    ],
    [
      'deliveries/s',
      `${rate(r.deliveriesPerS)} (first execution request -> last delivery, ${(r.totalMs / 1000).toFixed(2)} s)   target >= ${fmt(TARGET_RATE)}/s: ${rateMet}`,
    ],
    [
      'drain after last execution',
      `${rate(r.drainPerS)} (${fmt(r.drainCount)} deliveries in the ${(r.drainMs / 1000).toFixed(2)} s after the last execution answered)`,
    ],
    [
      'event -> first attempt',
      `p50 ${ms(r.delays.p50)}, p95 ${ms(r.delays.p95)}, p99 ${ms(r.delays.p99)}, max ${ms(r.delays.max)}   target p99 <= ${TARGET_P99_MS} ms${r.onPostgres ? '' : ' (on PostgreSQL)'}: ${p99Met}`,
    ],
    ['  same, idle (1 at a time)', `p50 ${ms(r.idleDelays.p50)}, max ${ms(r.idleDelays.max)} over ${PROBES} single executions`],
    [
      'receiver saw',
      `${fmt(rcv.connections)} TCP connections for ${fmt(rcv.posts)} POSTs, at most ${rcv.peakConnections} open at once (service cap ${r.inFlightCap} in flight); service-side avg attempt latency ${r.serviceStats?.avg_latency_ms ?? 'n/a'} ms`,
    ],
    [
      'delivery pipeline alone',
      `${rate(r.replay.perS)} (replay of the run's ${fmt(r.replay.events)} events: ${fmt(r.replay.received)} received; replay request ${ms(r.replay.requestMs)}, then ${rate(r.replay.drainPerS)}; at most ${r.replay.peakConnections} connections open)`,
    ],
    [
      'bare node:http receiver',
      `${rate(r.baseline.perS)} (${fmt(r.baseline.posts)} POSTs from a plain client loop, new connection each as the service, ${r.inFlightCap} in flight; p99 ${ms(r.baseline.p99)})   service = ${((r.deliveriesPerS / r.baseline.perS) * 100).toFixed(1)}% of bare`,
    ],
    [
      '  same, keep-alive',
      `${rate(r.baselineKeepAlive.perS)} (${r.inFlightCap} in flight; p99 ${ms(r.baselineKeepAlive.p99)})   service = ${((r.deliveriesPerS / r.baselineKeepAlive.perS) * 100).toFixed(1)}% of bare`,
    ],
  ];
  console.log(`webhooks, ${r.label}:`);
  const width = Math.max(...lines.map(([k]) => k.length));
  for (const [k, v] of lines) console.log(`  ${k.padEnd(width)}  ${v}`);
  console.log('');
}
