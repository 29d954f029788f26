/**
 * GET /metrics (src/server/http/metrics.ts, src/metrics): after known traffic the counters moved
 * by exactly that traffic, under route templates; access needs METRICS_TOKEN when it is set and
 * a loopback client otherwise; every metric the Grafana dashboard and the alert rules in docs/
 * use is exposed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { until } from '../child-service';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The value of one sample (0 when absent), its labels given in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-z_:][a-z0-9_:]*)(\{(.*)\})? (\S+)$/i.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[3] ? m[3].split(/,(?=[a-z_]+=")/i) : [];
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(m[4]);
  }
  return 0;
}

backends.describe('GET /metrics (%s)', (backend) => {
  let s: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });

  const scrape = async () => {
    const res = await s.call('/metrics');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('counts requests under their route template, with their method and status, and times them', async () => {
    const t = await s.register();
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await s.call('/api/v1/modules?limit=1', { key: t.apiKey })).status).toBe(200);
    const refused = await s.call('/api/v1/modules/text', { key: 'amp_live_not-a-real-key' });
    expect(refused.status).toBe(401);
    expect((await s.call('/api/v1/no-such-thing')).status).toBe(404);
    const after = await scrape();

    const list = { route: '/api/v1/modules', method: 'GET', status: '200' };
    expect(sample(after, 'amp_http_requests_total', list) - sample(before, 'amp_http_requests_total', list)).toBe(3);
    const one = { route: '/api/v1/modules/{module}', method: 'GET', status: '401' };
    expect(sample(after, 'amp_http_requests_total', one) - sample(before, 'amp_http_requests_total', one)).toBe(1);
    const unknown = { route: 'other', method: 'GET', status: '404' };
    expect(sample(after, 'amp_http_requests_total', unknown) - sample(before, 'amp_http_requests_total', unknown)).toBe(1);
    const timed = { route: '/api/v1/modules', method: 'GET' };
    expect(
      sample(after, 'amp_http_request_duration_seconds_count', timed) - sample(before, 'amp_http_request_duration_seconds_count', timed),
    ).toBe(3);
    // Never a raw path as a label (it would make one series per module, key or id).
    expect(after).not.toContain('route="/api/v1/modules/text"');
    expect(after).not.toContain('no-such-thing');
  });

  it('counts executions by built-in module, outcome and surface, and their quota reservations', async () => {
    const t = await s.register();
    const before = await scrape();
    const inline = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { action: 'slugify', input: { text: 'Hello World' } },
    });
    expect(inline.status, inline.text).toBe(200);
    const pooled = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { action: 'extract_emails', input: { text: 'write to a@example.com' } },
    });
    expect(pooled.status, pooled.text).toBe(200);
    const after = await scrape();

    const success = { module: 'text', outcome: 'success', surface: 'api' };
    expect(sample(after, 'amp_executions_total', success) - sample(before, 'amp_executions_total', success)).toBe(2);
    const reserved = { outcome: 'reserved' };
    expect(sample(after, 'amp_quota_reservations_total', reserved) - sample(before, 'amp_quota_reservations_total', reserved)).toBe(2);
    // The CPU-bound action took a worker lease from the fair queue.
    const waited = { pool: 'actions' };
    expect(sample(after, 'amp_fair_queue_wait_seconds_count', waited) - sample(before, 'amp_fair_queue_wait_seconds_count', waited)).toBe(
      1,
    );
  });

  it('counts a refused request by its reason', async () => {
    const before = await scrape();
    expectError(await s.call('/api/v1/me', { key: 'amp_live_not-a-real-key' }), 401, 'unauthorized');
    const after = await scrape();
    const reason = { reason: 'unauthorized' };
    expect(sample(after, 'amp_admission_refusals_total', reason) - sample(before, 'amp_admission_refusals_total', reason)).toBe(1);
  });

  it('counts a refusal for scope or plan (403) by its reason', async () => {
    const t = await s.register();
    const before = await scrape();
    // A free tenant has no webhooks.
    expectError(await s.call('/api/v1/webhooks', { key: t.apiKey }), 403, 'plan_required');
    const after = await scrape();
    const reason = { reason: 'plan_required' };
    expect(sample(after, 'amp_admission_refusals_total', reason) - sample(before, 'amp_admission_refusals_total', reason)).toBe(1);
  });

  it('counts a webhook delivery, its attempt and its lag', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const sub = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
    expect(sub.status, sub.text).toBe(201);
    const before = await scrape();
    const res = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Delivered' } } });
    expect(res.status, res.text).toBe(200);
    await receiver.waitFor(1, { filter: (r) => r.raw.toString('utf8').includes('delivered') });
    const succeeded = { outcome: 'succeeded' };
    const after = await until(
      'the delivery to be recorded',
      async () => {
        const text = await scrape();
        return sample(text, 'amp_webhook_deliveries_total', succeeded) > sample(before, 'amp_webhook_deliveries_total', succeeded) && text;
      },
      20_000,
    );
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('amp_webhook_deliveries_total', succeeded)).toBe(1);
    expect(delta('amp_webhook_attempts_total', { result: 'success' })).toBe(1);
    expect(delta('amp_webhook_delivery_attempts_count')).toBe(1);
    expect(delta('amp_webhook_delivery_attempts_bucket', { le: '1' })).toBe(1);
    expect(delta('amp_webhook_queue_lag_seconds_count')).toBe(1);
  });

  it('reports saturation read at scrape time: queue depths, worker pools, database connections, event-loop lag', async () => {
    const text = await scrape();
    expect(text).toMatch(/^amp_jobs_queue_depth\{queue="webhook-delivery",state="ready"\} \d+$/m);
    expect(sample(text, 'amp_worker_pool_capacity', { pool: 'actions' })).toBeGreaterThan(0);
    expect(text).toMatch(/^amp_worker_pool_utilization\{pool="javascript"\} [\d.]+$/m);
    expect(sample(text, 'amp_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^amp_nodejs_eventloop_lag_seconds [\d.e-]+$/m);
  });

  it('answers loopback clients only without METRICS_TOKEN, in the error format', async () => {
    // Through a proxy (even one on this machine) the client is not loopback.
    const proxied = await s.call('/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expectError(proxied, 403, 'forbidden');
    expect(proxied.text).not.toContain('amp_');
    const post = await s.call('/metrics', { method: 'POST', body: {} });
    expectError(post, 405, 'method_not_allowed');
  });

  it('carries the API security headers, on the exposition and on a refusal', async () => {
    for (const res of [await s.call('/metrics'), await s.call('/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } })]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('exposes every metric the Grafana dashboard and the alert rules use', async () => {
    const text = await scrape();
    const types = new Set([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!));
    const exposed = (name: string) => types.has(name) || types.has(name.replace(/_(bucket|sum|count)$/, ''));
    const dashboard = readFileSync(path.join(ROOT, 'docs/grafana/amp-dashboard.json'), 'utf8');
    const rules = readFileSync(path.join(ROOT, 'docs/prometheus/amp-alerts.yaml'), 'utf8');
    const parsedDashboard = JSON.parse(dashboard) as { panels: { targets?: { expr: string }[] }[] };
    const parsedRules = parseYaml(rules) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const expressions = [
      ...parsedDashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
      ...parsedRules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
    ];
    expect(expressions.length).toBeGreaterThan(10);
    const referenced = new Set(expressions.flatMap((e) => e.match(/\bamp_[a-z0-9_]+/g) ?? []));
    expect(referenced.size).toBeGreaterThan(10);
    expect([...referenced].filter((name) => !exposed(name))).toEqual([]);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('requires the bearer token, from loopback too', async () => {
    expectError(await s.call('/metrics'), 401, 'unauthorized');
    expectError(await s.call('/metrics', { bearer: `${TOKEN}x` }), 401, 'unauthorized');
    expectError(await s.call('/metrics', { headers: { 'x-api-key': TOKEN } }), 401, 'unauthorized');
    const ok = await s.call('/metrics', { bearer: TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE amp_http_requests_total counter');
  });

  it('answers any client with the token', async () => {
    const res = await s.call('/metrics', { bearer: TOKEN, headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(res.status).toBe(200);
  });
});
