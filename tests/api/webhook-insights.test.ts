import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

/**
 * What the dashboard's webhook pages read besides the detail view: each subscription's success
 * rate in the list, the delivery statistics over time (GET /api/v1/webhooks/{id}/stats) and one
 * delivery with the payload it sends (GET /api/v1/webhooks/{id}/deliveries/{delivery_id}).
 */
backends.describe('Webhook list rates, stats over time, delivery payload (%s)', (backend) => {
  let s: TestServer;
  let r: Receiver;
  let failing = false;
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,40', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    r = await startReceiver(() => ({ status: failing ? 500 : 200, body: failing ? 'boom' : 'ok' }));
  });
  afterAll(async () => {
    await r?.close();
    await s?.close();
  });

  const slugify = (key: string) =>
    s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text: 'Hello World' } } });

  async function settled(key: string, id: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await s.call(`/api/v1/webhooks/${id}`, { key });
      expect(res.status, res.text).toBe(200);
      if (res.body.stats.pending_deliveries === 0) return res.body;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${JSON.stringify(res.body.stats)}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  it('counts as the detail view does: list success rate, hourly and daily buckets, payload as sent', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const created = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['execution.completed'] } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;

    const fresh = await s.call('/api/v1/webhooks', { key: t.apiKey });
    expect(fresh.body.data[0]).toMatchObject({ id, success_rate: null });

    failing = false;
    for (let i = 0; i < 3; i++) expect((await slugify(t.apiKey)).status).toBe(200);
    await settled(t.apiKey, id);
    failing = true;
    expect((await slugify(t.apiKey)).status).toBe(200);
    const detail = await settled(t.apiKey, id);
    failing = false;
    expect(detail.stats).toMatchObject({ succeeded_deliveries: 3, failed_deliveries: 1, success_rate: 0.75 });

    // A test send shows in the history but in neither the statistics nor the series.
    const test = await s.call(`/api/v1/webhooks/${id}/test`, { key: t.apiKey, method: 'POST' });
    expect(test.status, test.text).toBe(200);

    const list = await s.call('/api/v1/webhooks', { key: t.apiKey });
    expect(list.body.data[0]).toMatchObject({ id, success_rate: detail.stats.success_rate });

    const hourly = await s.call(`/api/v1/webhooks/${id}/stats?range=24h`, { key: t.apiKey });
    expect(hourly.status, hourly.text).toBe(200);
    expect(hourly.body).toMatchObject({ id, range: '24h', bucket: 'hour' });
    expect(hourly.body.points).toHaveLength(24);
    const sum = (points: Array<Record<string, number>>, field: string) => points.reduce((n, p) => n + p[field]!, 0);
    expect(sum(hourly.body.points, 'succeeded_deliveries')).toBe(3);
    expect(sum(hourly.body.points, 'failed_deliveries')).toBe(1);
    // 3 answered first attempts, plus the failed delivery's two answered (500) attempts.
    expect(sum(hourly.body.points, 'answered_attempts')).toBe(5);
    const starts = hourly.body.points.map((p: { start: string }) => Date.parse(p.start));
    expect(starts.every((t: number, i: number) => i === 0 || t - starts[i - 1] === 3_600_000)).toBe(true);
    expect(starts[0]).toBe(Date.parse(hourly.body.from));
    for (const p of hourly.body.points) {
      if (p.succeeded_deliveries + p.failed_deliveries === 0) expect(p.success_rate).toBeNull();
      if (p.answered_attempts === 0) expect(p.avg_latency_ms).toBeNull();
      else {
        expect(Number.isInteger(p.avg_latency_ms)).toBe(true);
        expect(Number.isInteger(p.p95_latency_ms)).toBe(true);
      }
    }

    const daily = await s.call(`/api/v1/webhooks/${id}/stats`, { key: t.apiKey });
    expect(daily.status, daily.text).toBe(200);
    expect(daily.body).toMatchObject({ range: '7d', bucket: 'day' });
    expect(daily.body.points).toHaveLength(7);
    expect(daily.body.points.every((p: { start: string }) => p.start.endsWith('T00:00:00.000Z'))).toBe(true);
    expect(sum(daily.body.points, 'succeeded_deliveries')).toBe(3);
    expect(sum(daily.body.points, 'failed_deliveries')).toBe(1);
    expect((await s.call(`/api/v1/webhooks/${id}/stats?range=30d`, { key: t.apiKey })).body.points).toHaveLength(30);
    expectError(await s.call(`/api/v1/webhooks/${id}/stats?range=1y`, { key: t.apiKey }), 400, 'invalid_request');

    const latest = await s.call(`/api/v1/webhooks/${id}`, { key: t.apiKey });
    const failed = latest.body.deliveries.find((d: { status: string }) => d.status === 'failed');
    const one = await s.call(`/api/v1/webhooks/${id}/deliveries/${failed.id}`, { key: t.apiKey });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ id: failed.id, event: 'execution.completed', status: 'failed', attempt: 2 });
    expect(one.body.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500]);
    expect(one.body.attempts[0].response_body).toBe('boom');
    const sent = r.received.find((got) => got.body?.id === failed.event_id);
    expect(one.body.payload).toEqual(sent!.body);

    const testDelivery = await s.call(`/api/v1/webhooks/${id}/deliveries/${test.body.delivery_id}`, { key: t.apiKey });
    expect(testDelivery.body).toMatchObject({ kind: 'test', payload: null });
    expectError(await s.call(`/api/v1/webhooks/${id}/deliveries/dlv_nope`, { key: t.apiKey }), 404, 'not_found');

    // Another tenant sees none of it, by id or by delivery id under its own subscription.
    const other = await s.register();
    await s.setPlan(other.tenantId, 'pro');
    expectError(await s.call(`/api/v1/webhooks/${id}/stats`, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`/api/v1/webhooks/${id}/deliveries/${failed.id}`, { key: other.apiKey }), 404, 'not_found');
    const own = await s.call('/api/v1/webhooks', { key: other.apiKey, body: { url: r.url, events: ['*'] } });
    expectError(await s.call(`/api/v1/webhooks/${own.body.id}/deliveries/${failed.id}`, { key: other.apiKey }), 404, 'not_found');
    expect((await s.call('/api/v1/webhooks', { key: other.apiKey })).body.data.map((w: { id: string }) => w.id)).toEqual([own.body.id]);
  });

  it('is the same procedure over tRPC', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const created = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'] } });
    const input = encodeURIComponent(JSON.stringify({ id: created.body.id, range: '24h' }));
    const res = await s.call(`/api/trpc/webhooks.stats?input=${input}`, { key: t.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.data.points).toHaveLength(24);
  });
});
