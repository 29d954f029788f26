/**
 * Subscription filters (only matching events get a delivery) and pacing (`rate_limit_per_second`:
 * deliveries to one receiver queued and sent at most that many per second, in order, none
 * dropped), on both backends: on PostgreSQL+Redis the pace's shared state lives in Redis.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

backends.describe('Webhook filters and pacing (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,100,200' } });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  async function receiver() {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro', 1_000_000);
    return t;
  }

  async function subscribe(key: string, body: Record<string, unknown>) {
    const res = await s.call('/api/v1/webhooks', { key, body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; filter: string | null; rate_limit_per_second: number | null };
  }

  const detail = async (key: string, id: string) => {
    const res = await s.call(`/api/v1/webhooks/${id}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  async function settled(key: string, id: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = await detail(key, id);
      if (d.stats.pending_deliveries === 0) return d;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${JSON.stringify(d.stats)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const execute = (key: string, module: string, action: string, input: unknown) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body: { action, input } });

  it('a filter that does not parse is 400 with the position and the reason, on create and update', async () => {
    const t = await proTenant();
    const r = await receiver();
    const create = (filter: unknown) => s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], filter } });

    let body = expectError(await create('event = "execution.failed"'), 400, 'invalid_request');
    expect(body.message).toBe("The filter is not valid: unexpected '=': compare with '==' at position 6.");
    expect(body.issues).toEqual([{ path: 'filter', message: body.message }]);
    body = expectError(await create('event == "execution.failed" && (data.module == "http"'), 400, 'invalid_request');
    expect(body.message).toBe(
      "The filter is not valid: expected ')' to close the parenthesis opened at position 31, found the end of the filter at position 53.",
    );
    body = expectError(await create('tenant == "x"'), 400, 'invalid_request');
    expect(body.message).toMatch(/unknown field 'tenant'.* at position 0\.$/);
    body = expectError(await create(`data.module == "${'x'.repeat(1100)}"`), 400, 'invalid_request');
    expect(body.message).toMatch(/at most 1024 characters/);
    expectError(await create(42), 400, 'invalid_request');

    const sub = await subscribe(t.apiKey, { url: r.url, events: ['*'] });
    expect(sub.filter).toBeNull();
    body = expectError(
      await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { filter: 'data.latency_ms >' } }),
      400,
      'invalid_request',
    );
    expect(body.message).toBe('The filter is not valid: expected a value, found the end of the filter at position 17.');
    expect((await detail(t.apiKey, sub.id)).filter).toBeNull();
  });

  it('delivers only the events the filter matches: the others get no delivery at all; replay honours it', async () => {
    const t = await proTenant();
    const all = await receiver();
    const filtered = await receiver();
    const filter = 'event == "execution.failed" && data.module == "http"';
    await subscribe(t.apiKey, { url: all.url, events: ['*'] });
    const sub = await subscribe(t.apiKey, { url: filtered.url, events: ['*'], filter });
    expect(sub.filter).toBe(filter);
    const since = new Date(Date.now() - 1000).toISOString();

    expect((await execute(t.apiKey, 'text', 'slugify', { text: 'Hello' })).status).toBe(200); // installed + completed (text)
    expect((await execute(t.apiKey, 'text', 'slugify', { text: 42 })).status).toBe(422); // failed (text)
    const httpFailed = await execute(t.apiKey, 'http', 'fetch', { nope: 1 }); // installed + failed (http)
    expect(httpFailed.status).toBe(422);

    // Every event's deliveries were created with it: once the unfiltered receiver has all five,
    // the filtered one's are known.
    await all.waitFor(5);
    const [got] = await filtered.waitFor(1);
    expect(got!.body.event).toBe('execution.failed');
    expect(got!.body.data).toMatchObject({ module: 'http', action: 'fetch', status: 'failed' });
    expect(got!.body.data.execution_id).toBe(httpFailed.body.execution.execution_id);
    const view = await settled(t.apiKey, sub.id);
    expect(view.stats.total_deliveries).toBe(1);
    expect(view.deliveries).toHaveLength(1);
    expect(filtered.received).toHaveLength(1);

    // Replay re-sends the window's events of the subscribed kinds that the filter matches: the one.
    const replay = await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since } });
    expect(replay.status, replay.text).toBe(202);
    expect(replay.body.replayed).toBe(1);
    const again = await filtered.waitFor(2);
    expect(again[1]!.body.id).toBe(got!.body.id);

    // `in` and a cleared filter.
    let put = await s.call(`/api/v1/webhooks/${sub.id}`, {
      method: 'PUT',
      key: t.apiKey,
      body: { filter: 'data.module in ["csv", "text"] && event == "execution.completed"' },
    });
    expect(put.status, put.text).toBe(200);
    await execute(t.apiKey, 'text', 'slugify', { text: 'In list' });
    await execute(t.apiKey, 'http', 'fetch', { nope: 2 });
    const [, , inList] = await filtered.waitFor(3);
    expect(inList!.body.data).toMatchObject({ module: 'text', status: 'success' });
    put = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { filter: null } });
    expect(put.body.filter).toBeNull();
    await execute(t.apiKey, 'http', 'fetch', { nope: 3 });
    const [, , , any] = await filtered.waitFor(4);
    expect(any!.body.data).toMatchObject({ module: 'http', status: 'failed' });
    await settled(t.apiKey, sub.id);
    expect(filtered.received).toHaveLength(4);
  });
});
