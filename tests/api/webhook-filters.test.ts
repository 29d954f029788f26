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
  it('rate_limit_per_second: 1 to 1000 or null; the queue lag shows while deliveries wait their turn', async () => {
    const t = await proTenant();
    const r = await receiver();
    const bad = (value: unknown) =>
      s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], rate_limit_per_second: value } });
    for (const value of [0, 1001, 2.5, '10', -1]) {
      const body = expectError(await bad(value), 400, 'invalid_request');
      expect(body.message).toMatch(/rate_limit_per_second must be an integer from 1 to 1000, or null/);
    }
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'], rate_limit_per_second: 1 });
    expect(sub.rate_limit_per_second).toBe(1);
    const idle = await detail(t.apiKey, sub.id);
    expect(idle.stats).toMatchObject({ pending_deliveries: 0, oldest_pending_at: null, lag_seconds: null });

    // Three events at once: one a second, so the third waits about two seconds for its turn.
    const started = Date.now();
    for (const text of ['a', 'b', 'c']) expect((await execute(t.apiKey, 'text', 'slugify', { text })).status).toBe(200);
    const waiting = await detail(t.apiKey, sub.id);
    if (Date.now() - started < 1500) {
      expect(waiting.stats.pending_deliveries).toBeGreaterThan(0);
      expect(Date.parse(waiting.stats.oldest_pending_at)).toBeGreaterThanOrEqual(started - 1000);
      expect(waiting.stats.lag_seconds).toBeGreaterThanOrEqual(0);
    }
    const got = await r.waitFor(3);
    expect(got.map((g) => g.body.data.output.slug)).toEqual(['a', 'b', 'c']);
    // One a second: the third comes two seconds after the first (10 % for this machine's timing).
    expect(got[2]!.at - got[0]!.at).toBeGreaterThanOrEqual(1800);
    const done = await settled(t.apiKey, sub.id);
    expect(done.stats).toMatchObject({ pending_deliveries: 0, oldest_pending_at: null, lag_seconds: null, succeeded_deliveries: 3 });

    const cleared = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { rate_limit_per_second: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.rate_limit_per_second).toBeNull();
  });

  it('500 events to a receiver paced at 50/s all arrive, sent in order, at no more than 50 a second', async () => {
    const t = await proTenant();
    const r = await receiver();
    // The events first (50 batches of 10, one after another), then a paced subscription that
    // replays them: 500 deliveries queued at once, so the pace is the pacer's, whatever the
    // speed of this machine at making executions.
    const since = new Date(Date.now() - 1000).toISOString();
    const batchOf = new Map<string, number>();
    for (let b = 0; b < 50; b++) {
      const calls = Array.from({ length: 10 }, (_, i) => ({ module: 'text', action: 'slugify', input: { text: `n${b}-${i}` } }));
      const res = await s.call('/api/v1/batch', { key: t.apiKey, body: { calls } });
      expect(res.status, res.text).toBe(200);
      for (const result of res.body.data) batchOf.set(result.execution_id, b);
    }
    expect(batchOf.size).toBe(500);
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'], rate_limit_per_second: 50 });
    expect(sub.rate_limit_per_second).toBe(50);
    const replay = await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since } });
    expect(replay.status, replay.text).toBe(202);
    expect(replay.body.replayed).toBe(500);
    const replayedAt = Date.now();
    const queued = await detail(t.apiKey, sub.id);
    // At 50 a second the 500 take ten seconds: read within them, some are still waiting.
    if (Date.now() - replayedAt < 8000) {
      expect(queued.stats.pending_deliveries).toBeGreaterThan(0);
      expect(queued.stats.lag_seconds).toBeGreaterThanOrEqual(0);
    }

    const got = await r.waitFor(500, { timeoutMs: 90_000 });
    // Each event once; in order: a batch's events all before the next batch's, timestamps never going back.
    const executions = got.map((g) => g.body.data.execution_id as string);
    expect(new Set(executions).size).toBe(500);
    expect(executions.every((id) => batchOf.has(id))).toBe(true);
    // In event order: they are sent one turn (20 ms) after the other, in the events' order. Requests
    // in flight together reach the receiver in any order (sockets are read in the order the event
    // loop gets to them, and this receiver shares the test's event loop): so an event may arrive
    // before an earlier one only when the two arrived within one turn of each other. Any other
    // inversion is a delivery sent out of order.
    const stamps = got.map((g) => Date.parse(g.body.timestamp));
    const batches = executions.map((id) => batchOf.get(id)!);
    const sentOutOfOrder: string[] = [];
    let latestSettled = -Infinity; // the latest event among those that arrived a turn or more earlier
    for (let i = 0, j = 0; i < got.length; i++) {
      while (got[i]!.at - got[j]!.at >= 20) latestSettled = Math.max(latestSettled, stamps[j++]!);
      if (stamps[i]! < latestSettled)
        sentOutOfOrder.push(`#${i} (batch ${batches[i]}, ${got[i]!.body.timestamp}) arrived at +${got[i]!.at - got[0]!.at} ms`);
    }
    const inFlightSwaps = stamps.filter((t, i) => i > 0 && t < stamps[i - 1]!).length;
    if (inFlightSwaps > 0) console.log(`${backend}: ${inFlightSwaps} neighbours in flight together arrived swapped`);
    expect(sentOutOfOrder).toEqual([]);

    const at = got.map((g) => g.at);
    const rate = (at.length - 1) / ((at.at(-1)! - at[0]!) / 1000);
    let most = 0;
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[i]! - at[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    console.log(`${backend}: 500 deliveries paced at 50/s arrived at ${rate.toFixed(2)}/s, at most ${most} in one second`);
    // The pacer's guarantee is "at most" (10 % for the receiver's own timing). How close to the
    // limit it keeps up is speed, which depends on the machine: printed above, never asserted.
    // (`most` is only reported: the receiver shares this process's event loop, so a stall here
    // bunches arrivals that were sent on time.)
    expect(rate).toBeLessThanOrEqual(50 * 1.1);
    const done = await settled(t.apiKey, sub.id);
    expect(done.stats).toMatchObject({ succeeded_deliveries: 500, failed_deliveries: 0, pending_deliveries: 0, lag_seconds: null });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(500);
  }, 120_000);
});
