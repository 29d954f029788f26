import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { events, webhookDeliveries, webhookSubscriptions } from '../../src/db/schema';
import { EVENT_TYPES } from '../../src/contract/events';
import { purgeOldRecords } from '../../src/events/retention';
import { rescueStalledDeliveries } from '../../src/webhooks/rescue';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, verifySignature, type Receiver, type Received } from '../receiver';

const SCHEDULE = [0, 40, 80, 120];
const PUBLIC_BASE_URL = 'https://amp.example.com';

backends.describe('Webhooks (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','), WEBHOOK_TIMEOUT_MS: '1000', PUBLIC_BASE_URL },
    });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(respond);
    receivers.push(r);
    return r;
  }

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    return t;
  }

  async function subscribe(key: string, body: Record<string, unknown>) {
    const res = await s.call('/api/v1/webhooks', { key, body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; secret: string; url: string; events: string[]; status: string };
  }

  const slugify = (key: string, text = 'Hello World') =>
    s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text } } });

  const detail = async (key: string, id: string) => {
    const res = await s.call(`/api/v1/webhooks/${id}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  /** Waits until the subscription has no pending delivery. */
  async function settled(key: string, id: string, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = await detail(key, id);
      if (d.stats.pending_deliveries === 0) return d;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${JSON.stringify(d.stats)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const ofEvent = (type: string) => (r: Received) => r.body?.event === type;

  it('free plan: 403 plan_required; a key without scope *: 403 insufficient_scope', async () => {
    const free = await s.register();
    const body = expectError(await s.call('/api/v1/webhooks', { key: free.apiKey }), 403, 'plan_required');
    expect(body.required_plan).toBe('pro');
    const t = await proTenant();
    const limited = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'exec', scopes: ['modules:execute'] } });
    expectError(await s.call('/api/v1/webhooks', { key: limited.body.api_key }), 403, 'insufficient_scope');
    expectError(await s.call('/api/v1/webhooks'), 401, 'unauthorized');
  });

  it('validates the body: events must be known kinds or *, url required, secret printable', async () => {
    const t = await proTenant();
    const r = await receiver();
    const bad = expectError(
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['execution.done'] } }),
      400,
      'invalid_request',
    );
    expect(bad.message).toMatch(/execution\.done/);
    expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: [] } }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { events: ['*'] } }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: 'not a url', events: ['*'] } }), 400, 'invalid_request');
    expectError(
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], secret: 'short' } }),
      400,
      'invalid_request',
    );
    expectError(
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], colour: 'red' } }),
      400,
      'invalid_request',
    );
    expectError(
      await s.call('/api/v1/webhooks', { key: t.apiKey, rawBody: '{"url":', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
  });

  it('delivers signed envelopes: generated whsec_ secret shown once, masked after; same bytes as signed', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['*'] });
    expect(sub.id).toMatch(/^wh_/);
    // Standard Webhooks form: whsec_ + standard base64 of 24 random bytes.
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(sub.status).toBe('active');
    const verifier = new Webhook(sub.secret);

    const exec = await slugify(t.apiKey);
    expect(exec.status).toBe(200);
    const [installed] = await r.waitFor(1, { filter: ofEvent('module.installed') });
    const [completed] = await r.waitFor(1, { filter: ofEvent('execution.completed') });
    for (const got of [installed!, completed!]) {
      expect(got.headers['content-type']).toBe('application/json');
      expect(verifySignature(sub.secret, got.raw, got.headers['x-webhook-signature'])).toBe(true);
      expect(verifySignature('whsec_wrong', got.raw, got.headers['x-webhook-signature'])).toBe(false);
      expect(Object.keys(got.body).sort()).toEqual(['data', 'event', 'id', 'timestamp']);
      expect(got.body.id).toMatch(/^evt_/);
      expect(got.headers['x-webhook-id']).toBe(got.body.id);
      expect(got.headers['webhook-id']).toBe(got.body.id);
      expect(got.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
      // The standardwebhooks library verifies id, timestamp and the exact body.
      expect(verifier.verify(got.raw.toString('utf8'), got.headers as Record<string, string>)).toEqual(got.body);
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
          got.raw.toString('utf8'),
          got.headers as Record<string, string>,
        ),
      ).toThrow();
      expect(new Date(got.body.timestamp).toISOString()).toBe(got.body.timestamp);
    }
    expect(completed!.body.data).toMatchObject({
      execution_id: exec.body.execution_id,
      module: 'text',
      action: 'slugify',
      status: 'success',
      request_id: exec.body.request_id,
      tenant_id: t.tenantId,
      output: { slug: 'hello-world' },
    });
    expect(Number.isInteger(completed!.body.data.latency_ms)).toBe(true);
    expect(installed!.body.data).toMatchObject({ module: 'text', source: 'first_use' });

    const view = await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey });
    expect(view.body.secret).not.toBe(sub.secret);
    expect(view.body.secret.endsWith(sub.secret.slice(-4))).toBe(true);
    expect(view.text).not.toContain(sub.secret);
    const list = await s.call('/api/v1/webhooks', { key: t.apiKey });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([sub.id]);
    expect(list.text).not.toContain(sub.secret);
  });

  it('a caller-chosen secret signs; updating it signs later deliveries with the new one', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'], secret: 'my-own-signing-secret-1' });
    expect(sub.secret).toBe('my-own-signing-secret-1');
    await slugify(t.apiKey, 'one');
    const [first] = await r.waitFor(1);
    expect(verifySignature('my-own-signing-secret-1', first!.raw, first!.headers['x-webhook-signature'])).toBe(true);
    // A caller-chosen secret is the raw HMAC key of webhook-signature.
    expect(
      new Webhook('my-own-signing-secret-1', { format: 'raw' }).verify(
        first!.raw.toString('utf8'),
        first!.headers as Record<string, string>,
      ),
    ).toEqual(first!.body);

    const put = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { secret: 'rotated-secret-2222' } });
    expect(put.status).toBe(200);
    expect(put.body.secret).toBe('…2222');
    await slugify(t.apiKey, 'two');
    const [, second] = await r.waitFor(2);
    expect(verifySignature('rotated-secret-2222', second!.raw, second!.headers['x-webhook-signature'])).toBe(true);
    expect(verifySignature('my-own-signing-secret-1', second!.raw, second!.headers['x-webhook-signature'])).toBe(false);
    expect(
      new Webhook('rotated-secret-2222', { format: 'raw' }).verify(second!.raw.toString('utf8'), second!.headers as Record<string, string>),
    ).toEqual(second!.body);
    expect(() =>
      new Webhook('my-own-signing-secret-1', { format: 'raw' }).verify(
        second!.raw.toString('utf8'),
        second!.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('sends only subscribed kinds; * gets all; module.uninstalled and execution.failed are emitted', async () => {
    const t = await proTenant();
    const all = await receiver();
    const failedOnly = await receiver();
    await subscribe(t.apiKey, { url: all.url, events: ['*'] });
    await subscribe(t.apiKey, { url: failedOnly.url, events: ['execution.failed'] });
    await slugify(t.apiKey);
    const bad = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { nope: 1 } } });
    expect(bad.status).toBe(422);
    const un = await s.call('/api/v1/modules/text/install', { method: 'DELETE', key: t.apiKey });
    expect(un.status).toBe(200);

    await all.waitFor(4);
    const [failed] = await failedOnly.waitFor(1);
    expect(failed!.body.event).toBe('execution.failed');
    expect(failed!.body.data).toMatchObject({ status: 'failed', module: 'text', action: 'slugify', tenant_id: t.tenantId });
    expect(failed!.body.data.error.code).toBe('invalid_input');
    const kinds = all.received.map((x) => x.body.event).sort();
    expect(kinds).toEqual(['execution.completed', 'execution.failed', 'module.installed', 'module.uninstalled']);
    await new Promise((r) => setTimeout(r, 300));
    expect(failedOnly.received).toHaveLength(1);
  });

  it('retries at the configured schedule with the same event id, and records every attempt', async () => {
    const t = await proTenant();
    const r = await receiver((_req, i) => ({ status: i < 2 ? 500 : 200, body: i < 2 ? 'not yet' : 'ok' }));
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    await slugify(t.apiKey);
    const got = await r.waitFor(3);
    expect(new Set(got.map((g) => g.body.id)).size).toBe(1);
    expect(got.map((g) => g.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(got.map((g) => g.raw.toString())).toEqual([got[0]!.raw.toString(), got[0]!.raw.toString(), got[0]!.raw.toString()]);
    // Attempt n+1 comes no earlier than its delay after attempt n (no upper bound: CI machines are slow).
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(SCHEDULE[1]! - 5);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(SCHEDULE[2]! - 5);

    const d = await settled(t.apiKey, sub.id);
    expect(d.deliveries).toHaveLength(1);
    const [delivery] = d.deliveries;
    expect(delivery).toMatchObject({
      event: 'execution.completed',
      status: 'succeeded',
      attempt: 3,
      status_code: 200,
      success: true,
      event_id: got[0]!.body.id,
    });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, success: false, response_body: 'not yet' });
    expect(delivery.attempts[0].error).toMatch(/500/);
    expect(d.stats).toMatchObject({
      success_rate: 1,
      total_deliveries: 1,
      succeeded_deliveries: 1,
      failed_deliveries: 0,
      consecutive_failures: 0,
    });
    expect(typeof d.stats.avg_latency_ms).toBe('number');
  });

  it('a receiver slower than WEBHOOK_TIMEOUT_MS fails the attempt; all attempts failing is one failed delivery', async () => {
    const t = await proTenant();
    const r = await receiver(() => ({ status: 200, delayMs: 1500 }));
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    await slugify(t.apiKey);
    await r.waitFor(SCHEDULE.length, { timeoutMs: 20_000 });
    const d = await settled(t.apiKey, sub.id, 20_000);
    expect(d.deliveries[0].status).toBe('failed');
    expect(d.deliveries[0].attempts).toHaveLength(SCHEDULE.length);
    expect(d.deliveries[0].attempts[0].error).toMatch(/timed out/);
    expect(d.deliveries[0].attempts[0].status_code).toBeNull();
    expect(d.stats).toMatchObject({ success_rate: 0, failed_deliveries: 1, consecutive_failures: 1 });
    expect(d.status).toBe('active');
  });

  it('10 consecutive failed deliveries disable; the 11th event is not sent; test never counts; enable resumes', async () => {
    const t = await proTenant();
    const r = await receiver(() => ({ status: 503 }));
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    // Test sends to a failing receiver do not count toward auto-disable.
    for (let i = 0; i < 3; i++) {
      const test = await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey });
      expect(test.status).toBe(200);
      expect(test.body).toMatchObject({ delivered: false, status_code: 503 });
    }
    expect((await detail(t.apiKey, sub.id)).stats.consecutive_failures).toBe(0);

    for (let i = 0; i < 10; i++) expect((await slugify(t.apiKey, `n${i}`)).status).toBe(200);
    await r.waitFor(3 + 10 * SCHEDULE.length, { timeoutMs: 30_000 });
    const disabled = await settled(t.apiKey, sub.id, 20_000);
    expect(
      disabled.status,
      JSON.stringify({ ...disabled, deliveries: disabled.deliveries.map((x: any) => [x.status, x.attempt, x.attempts.length]) }),
    ).toBe('disabled');
    expect(disabled.disabled_at).not.toBeNull();
    expect(disabled.stats).toMatchObject({ failed_deliveries: 10, consecutive_failures: 10, success_rate: 0 });

    const before = r.received.length;
    await slugify(t.apiKey, 'eleventh');
    await new Promise((res) => setTimeout(res, 500));
    expect(r.received.length).toBe(before);
    // The 11th event stays in the event log: the subscription got no delivery for it.
    expect((await detail(t.apiKey, sub.id)).stats.total_deliveries).toBe(10);

    r.respond = () => ({ status: 200 });
    const enabled = await s.call(`/api/v1/webhooks/${sub.id}/enable`, { method: 'POST', key: t.apiKey });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_at: null });
    await slugify(t.apiKey, 'after enable');
    const got = await r.waitFor(before + 1);
    expect(got.at(-1)!.body.data.output).toEqual({ slug: 'after-enable' });
  });

  it('operators re-enable any subscription with x-admin-token', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['*'] });
    expectError(await s.call(`/api/v1/admin/webhooks/${sub.id}/enable`, { method: 'POST' }), 401, 'unauthorized');
    const res = await s.call(`/api/v1/admin/webhooks/${sub.id}/enable`, { method: 'POST', headers: { 'x-admin-token': ADMIN_TOKEN } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('active');
    expectError(
      await s.call('/api/v1/admin/webhooks/wh_missing/enable', { method: 'POST', headers: { 'x-admin-token': ADMIN_TOKEN } }),
      404,
      'not_found',
    );
  });

  it('caps the envelope at 64 KB: a 200 KB output is a truncated summary with the full result link', async () => {
    const t = await proTenant();
    const r = await receiver();
    await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    const exec = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { action: 'replace', input: { text: 'x'.repeat(20_000), find: 'x', replacement: 'y'.repeat(10) } },
    });
    expect(exec.status).toBe(200);
    expect(JSON.stringify(exec.body.output).length).toBeGreaterThan(200_000);
    const [got] = await r.waitFor(1);
    expect(got!.raw.length).toBeLessThanOrEqual(65_536);
    // Absolute, on PUBLIC_BASE_URL.
    expect(got!.body.data).toMatchObject({
      truncated: true,
      full_result_url: `${PUBLIC_BASE_URL}/api/v1/executions/${exec.body.execution_id}`,
      execution_id: exec.body.execution_id,
    });
    const full = await s.call(new URL(got!.body.data.full_result_url).pathname, { key: t.apiKey });
    expect(full.status).toBe(200);
    expect(full.body.output.result).toHaveLength(200_000);
  });

  it('replays recorded events of the subscribed kinds as new deliveries with the same ids', async () => {
    const t = await proTenant();
    const r = await receiver();
    const since = new Date(Date.now() - 1000).toISOString();
    await slugify(t.apiKey, 'a');
    await slugify(t.apiKey, 'b');
    // Subscribed after the events: nothing was sent for them.
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    const replay = await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since } });
    expect(replay.status, replay.text).toBe(202);
    expect(replay.body).toMatchObject({ subscription_id: sub.id, replayed: 2, has_more: false, next_since: null });
    const got = await r.waitFor(2);
    expect(got.map((g) => g.body.data.output.slug).sort()).toEqual(['a', 'b']);
    const ids = got.map((g) => g.body.id);

    const again = await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since, until: new Date().toISOString() } });
    expect(again.body.replayed).toBe(2);
    const more = await r.waitFor(4);
    expect(
      more
        .slice(2)
        .map((g) => g.body.id)
        .sort(),
    ).toEqual([...ids].sort());
    const d = await settled(t.apiKey, sub.id);
    expect(d.deliveries.filter((x: { kind: string }) => x.kind === 'replay')).toHaveLength(4);

    const old = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    expectError(await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since: old } }), 400, 'invalid_request');
    expectError(await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since: 'yesterday' } }), 400, 'invalid_request');
    expectError(
      await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since, until: since } }),
      400,
      'invalid_request',
    );
  });

  it('test sends a signed webhook.test event synchronously and shows it in the history', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['module.installed'] });
    const res = await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got!.body).toMatchObject({
      id: res.body.event_id,
      event: 'webhook.test',
      data: { subscription_id: sub.id, tenant_id: t.tenantId },
    });
    expect(EVENT_TYPES as readonly string[]).not.toContain(got!.body.event);
    expect(verifySignature(sub.secret, got!.raw, got!.headers['x-webhook-signature'])).toBe(true);
    expect(new Webhook(sub.secret).verify(got!.raw.toString('utf8'), got!.headers as Record<string, string>)).toEqual(got!.body);
    const d = await detail(t.apiKey, sub.id);
    expect(d.deliveries[0]).toMatchObject({ kind: 'test', event: 'webhook.test', status: 'succeeded' });
    expect(d.stats.total_deliveries).toBe(0);
  });

  it('update, delete, and isolation: another tenant gets 404 for every operation', async () => {
    const t = await proTenant();
    const other = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['*'] });
    const base = `/api/v1/webhooks/${sub.id}`;
    expectError(await s.call(base, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(base, { method: 'PUT', key: other.apiKey, body: { events: ['*'] } }), 404, 'not_found');
    expectError(await s.call(base, { method: 'DELETE', key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`${base}/test`, { method: 'POST', key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`${base}/enable`, { method: 'POST', key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`${base}/replay`, { key: other.apiKey, body: { since: new Date().toISOString() } }), 404, 'not_found');
    expect((await s.call('/api/v1/webhooks', { key: other.apiKey })).body.data).toEqual([]);
    expect(r.received).toHaveLength(0);

    const put = await s.call(base, {
      method: 'PUT',
      key: t.apiKey,
      body: { events: ['module.installed', 'module.installed', 'execution.failed'] },
    });
    expect(put.status).toBe(200);
    expect(put.body.events).toEqual(['module.installed', 'execution.failed']);
    expectError(await s.call(base, { method: 'PUT', key: t.apiKey, body: {} }), 400, 'invalid_request');
    expectError(await s.call(base, { method: 'PUT', key: t.apiKey, body: { status: 'disabled' } }), 400, 'invalid_request');

    const del = await s.call(base, { method: 'DELETE', key: t.apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: sub.id, deleted: true });
    expectError(await s.call(base, { key: t.apiKey }), 404, 'not_found');
    await slugify(t.apiKey);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received).toHaveLength(0);
  });

  it('retention: events and finished deliveries older than 30 days are deleted; pending and recent kept', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['*'] });
    await slugify(t.apiKey);
    await r.waitFor(2);
    await settled(t.apiKey, sub.id);
    const old = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    const db = s.svc.db;
    await db.update(webhookDeliveries).set({ createdAt: old }).where(eq(webhookDeliveries.subscriptionId, sub.id));
    await db.update(events).set({ createdAt: old }).where(eq(events.tenantId, t.tenantId));
    await db.insert(webhookDeliveries).values({
      id: 'dlv_retention_pending',
      tenantId: t.tenantId,
      subscriptionId: sub.id,
      eventId: 'evt_x',
      eventType: 'module.installed',
      createdAt: old,
    });
    const removed = await purgeOldRecords(s.svc);
    expect(removed.deliveries).toBeGreaterThanOrEqual(2);
    expect(removed.events).toBeGreaterThanOrEqual(2);
    const left = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, sub.id));
    expect(left.map((x) => x.id)).toEqual(['dlv_retention_pending']);
    expect(await db.select().from(events).where(eq(events.tenantId, t.tenantId))).toEqual([]);
    // Statistics are counters on the subscription: they survive the purge.
    expect((await detail(t.apiKey, sub.id)).stats.succeeded_deliveries).toBe(2);
  });

  it('a secret that cannot be decrypted (ENCRYPTION_KEY changed) fails the attempts visibly, sends nothing', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    await s.svc.db
      .update(webhookSubscriptions)
      .set({ secretEncrypted: 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA' })
      .where(eq(webhookSubscriptions.id, sub.id));
    await slugify(t.apiKey);
    const d = await settled(t.apiKey, sub.id);
    expect(d.deliveries[0].status).toBe('failed');
    expect(d.deliveries[0].attempts).toHaveLength(SCHEDULE.length);
    expect(d.deliveries[0].error).toMatch(/ENCRYPTION_KEY/);
    expect(r.connections).toBe(0);
  });

  it('a pending delivery whose attempt job was lost is rescheduled by the maintenance backstop', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['module.installed'] });
    const db = s.svc.db;
    // A delivery with no job at all, due 20 minutes ago (as if pg-boss had given up on its job).
    const [event] = await db
      .insert(events)
      .values({ id: 'evt_stalled_1', tenantId: t.tenantId, type: 'module.installed', data: { module: 'x' } })
      .returning();
    await db.insert(webhookDeliveries).values({
      id: 'dlv_stalled_1',
      tenantId: t.tenantId,
      subscriptionId: sub.id,
      eventId: event!.id,
      eventType: 'module.installed',
      nextAttemptAt: new Date(Date.now() - 20 * 60_000),
    });
    expect(await rescueStalledDeliveries(s.svc)).toBe(1);
    const [got] = await r.waitFor(1);
    expect(got!.body.id).toBe('evt_stalled_1');
    expect((await settled(t.apiKey, sub.id)).deliveries[0]).toMatchObject({ id: 'dlv_stalled_1', status: 'succeeded' });
    expect(await rescueStalledDeliveries(s.svc)).toBe(0);
  });

  it('a plan downgrade to free stops deliveries (webhooks are Pro and above)', async () => {
    const t = await proTenant();
    const r = await receiver();
    await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    await s.setPlan(t.tenantId, 'free');
    await slugify(t.apiKey);
    await new Promise((res) => setTimeout(res, 400));
    expect(r.received).toHaveLength(0);
  });
});

describe('Webhook receivers without WEBHOOK_ALLOW_PRIVATE', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.close());

  it('refuses http://, loopback, private and names resolving to loopback before any socket opens', async () => {
    const r = await startReceiver();
    try {
      const t = await s.register();
      await s.setPlan(t.tenantId, 'pro');
      const port = new URL(r.url).port;
      const refused = [
        `http://127.0.0.1:${port}/hook`,
        `https://127.0.0.1:${port}/hook`,
        'https://10.0.0.1/hook',
        'https://[::1]/hook',
        `https://localhost:${port}/hook`,
        'https://169.254.169.254/latest/meta-data',
        'https://[::ffff:127.0.0.1]/hook',
        'ftp://example.com/hook',
      ];
      for (const url of refused) {
        const body = expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url, events: ['*'] } }), 400, 'invalid_request');
        expect(body.issues?.[0]?.path, url).toBe('url');
      }
      expect(r.connections).toBe(0);
      expect((await s.call('/api/v1/webhooks', { key: t.apiKey })).body.data).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('accepts a public-looking name that does not resolve yet (every attempt checks again)', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const res = await s.call('/api/v1/webhooks', {
      key: t.apiKey,
      body: { url: 'https://hooks.not-resolvable.invalid/amp', events: ['*'] },
    });
    expect(res.status, res.text).toBe(201);
    const test = await s.call(`/api/v1/webhooks/${res.body.id}/test`, { method: 'POST', key: t.apiKey });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ delivered: false, status_code: null });
    expect(test.body.error).toMatch(/resolved/);
  });
});

describe('Webhook worker: a slow receiver does not hold up other deliveries', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '30000' } });
  });
  afterAll(async () => s?.close());

  it("another tenant's delivery arrives while five attempts hang on a slow receiver", async () => {
    const slow = await startReceiver(() => ({ status: 200, delayMs: 25_000 }));
    const fast = await startReceiver();
    try {
      const a = await s.register();
      const b = await s.register();
      for (const t of [a, b]) await s.setPlan(t.tenantId, 'pro');
      await s.call('/api/v1/webhooks', { key: a.apiKey, body: { url: slow.url, events: ['execution.completed'] } });
      await s.call('/api/v1/webhooks', { key: b.apiKey, body: { url: fast.url, events: ['execution.completed'] } });
      for (let i = 0; i < 5; i++) {
        await s.call('/api/v1/modules/text/execute', { key: a.apiKey, body: { action: 'slugify', input: { text: `a${i}` } } });
      }
      await slow.waitFor(5);
      await s.call('/api/v1/modules/text/execute', { key: b.apiKey, body: { action: 'slugify', input: { text: 'b' } } });
      const [got] = await fast.waitFor(1, { timeoutMs: 10_000 });
      expect(got!.body.data.output).toEqual({ slug: 'b' });
    } finally {
      await fast.close();
      await slow.close();
    }
  });
});
