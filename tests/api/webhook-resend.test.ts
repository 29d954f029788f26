/**
 * Resend, recover, and messages versus deliveries in the statistics, against a real server and a
 * real receiver (node:http on loopback): a resend is one more attempt of the same delivery with the
 * same message id; recover sends again only what the receiver did not get; replaying the same
 * events twice is two deliveries of one message each.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { webhookSubscriptions } from '../../src/db/schema';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, verifySignature, type Received, type Receiver } from '../receiver';

const SCHEDULE = [0, 40, 80, 120];

backends.describe('Webhook resend and recover (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','), WEBHOOK_TIMEOUT_MS: '2000' },
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
    await s.setPlan(t.tenantId, 'pro', 100_000);
    return t;
  }

  async function subscribe(key: string, url: string, events = ['execution.completed']) {
    const res = await s.call('/api/v1/webhooks', { key, body: { url, events } });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; secret: string };
  }

  const slugify = async (key: string, text: string) => {
    const res = await s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text } } });
    expect(res.status, res.text).toBe(200);
    return res.body as { execution_id: string };
  };

  const detail = async (key: string, id: string) => {
    const res = await s.call(`/api/v1/webhooks/${id}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  /** Waits until the subscription has no pending delivery (and at least `finished` finished ones). */
  async function settled(key: string, id: string, finished = 0, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = await detail(key, id);
      if (d.stats.pending_deliveries === 0 && d.stats.succeeded_deliveries + d.stats.failed_deliveries >= finished) return d;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${JSON.stringify(d.stats)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const slugOf = (r: Received) => String(r.body?.data?.output?.slug ?? '');
  const header = (r: Received, name: string) => r.headers[name] as string | undefined;
  const resendPath = (id: string, deliveryId: string) => `/api/v1/webhooks/${id}/deliveries/${deliveryId}/resend`;

  it('resend: one more attempt of the same delivery, same message id; counted once; never retried', async () => {
    const t = await proTenant();
    const state = { failing: true };
    const r = await receiver(() => ({ status: state.failing ? 503 : 200 }));
    const sub = await subscribe(t.apiKey, r.url);
    await slugify(t.apiKey, 'resend me');
    const failed = await settled(t.apiKey, sub.id, 1);
    expect(failed.stats).toMatchObject({ failed_deliveries: 1, succeeded_deliveries: 0, total_deliveries: 1, messages: 1, attempts: 4 });
    const [delivery] = failed.deliveries;
    expect(delivery).toMatchObject({ status: 'failed', attempt: 4 });
    expect(r.received).toHaveLength(4);

    state.failing = false;
    const res = await s.call(resendPath(sub.id, delivery.id), { method: 'POST', key: t.apiKey });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ id: delivery.id, event_id: delivery.event_id, status: 'pending', attempt: 4, kind: 'event' });
    expect(res.body.attempts).toHaveLength(4);
    const [, , , , resent] = await r.waitFor(5);
    // The same message: webhook-id, X-Webhook-Id and the envelope id are the event id; the same delivery, attempt 5.
    expect(resent!.body.id).toBe(delivery.event_id);
    expect(header(resent!, 'webhook-id')).toBe(delivery.event_id);
    expect(header(resent!, 'x-webhook-id')).toBe(delivery.event_id);
    expect(header(resent!, 'x-webhook-delivery')).toBe(delivery.id);
    expect(header(resent!, 'x-webhook-attempt')).toBe('5');
    expect(verifySignature(sub.secret, resent!.raw, header(resent!, 'x-webhook-signature'))).toBe(true);
    expect(resent!.raw.equals(r.received[0]!.raw)).toBe(true);

    const after = await settled(t.apiKey, sub.id, 1);
    expect(after.deliveries).toHaveLength(1);
    expect(after.deliveries[0]).toMatchObject({ id: delivery.id, status: 'succeeded', attempt: 5, status_code: 200 });
    expect(after.deliveries[0].attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    // One delivery, counted by its latest outcome; one message; five attempts.
    expect(after.stats).toMatchObject({
      total_deliveries: 1,
      succeeded_deliveries: 1,
      failed_deliveries: 0,
      pending_deliveries: 0,
      success_rate: 1,
      messages: 1,
      attempts: 5,
      consecutive_failures: 0,
    });

    // A succeeded delivery can be resent too; a failing resend is one attempt, not retried.
    state.failing = true;
    const again = await s.call(resendPath(sub.id, delivery.id), { method: 'POST', key: t.apiKey });
    expect(again.status, again.text).toBe(202);
    await r.waitFor(6);
    const last = await settled(t.apiKey, sub.id, 1);
    expect(last.deliveries[0]).toMatchObject({ status: 'failed', attempt: 6, status_code: 503 });
    expect(last.stats).toMatchObject({ total_deliveries: 1, succeeded_deliveries: 0, failed_deliveries: 1, attempts: 6, messages: 1 });
    const one = await s.call(`/api/v1/webhooks/${sub.id}/deliveries/${delivery.id}`, { key: t.apiKey });
    expect(one.body.attempts).toHaveLength(6);
    expect(r.received).toHaveLength(6);
  });

  it('resend refuses: a pending delivery (an attempt running), a test send, a disabled subscription; 404 across tenants', async () => {
    const t = await proTenant();
    const other = await proTenant();
    const state = { hold: true };
    const r = await receiver(() => ({ status: 200, delayMs: state.hold ? 1_000 : 0 }));
    const sub = await subscribe(t.apiKey, r.url);
    await slugify(t.apiKey, 'slow');
    // The first attempt is at the receiver and not answered yet: the delivery is pending.
    await r.waitFor(1);
    const pending = (await detail(t.apiKey, sub.id)).deliveries[0];
    expect(pending.status).toBe('pending');
    const refused = expectError(await s.call(resendPath(sub.id, pending.id), { method: 'POST', key: t.apiKey }), 409, 'conflict');
    expect(refused.message).toMatch(/pending/);
    state.hold = false;
    const done = await settled(t.apiKey, sub.id, 1);
    expect(done.deliveries[0]).toMatchObject({ status: 'succeeded', attempt: 1 });
    expect(r.received).toHaveLength(1);

    // Another tenant: its own webhook or none, the delivery is not found; an unknown delivery neither.
    const theirs = await subscribe(other.apiKey, r.url);
    expectError(await s.call(resendPath(sub.id, pending.id), { method: 'POST', key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(resendPath(theirs.id, pending.id), { method: 'POST', key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(resendPath(sub.id, 'dlv_nope'), { method: 'POST', key: t.apiKey }), 404, 'not_found');
    expectError(
      await s.call(resendPath(sub.id, pending.id), { method: 'POST', key: t.apiKey, body: { colour: 'red' } }),
      400,
      'invalid_request',
    );

    // A test send is not stored: refused, send a new test instead.
    const test = await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey });
    expect(test.status, test.text).toBe(200);
    const testRefused = expectError(
      await s.call(resendPath(sub.id, test.body.delivery_id), { method: 'POST', key: t.apiKey }),
      409,
      'conflict',
    );
    expect(testRefused.message).toMatch(/test/);

    // A disabled subscription: enable it first.
    await s.svc.db
      .update(webhookSubscriptions)
      .set({ status: 'disabled', disabledAt: new Date() })
      .where(eq(webhookSubscriptions.id, sub.id));
    const disabled = expectError(await s.call(resendPath(sub.id, pending.id), { method: 'POST', key: t.apiKey }), 409, 'conflict');
    expect(disabled.message).toMatch(/disabled/);
    expect((await s.call(`/api/v1/webhooks/${sub.id}/enable`, { method: 'POST', key: t.apiKey })).status).toBe(200);
    const ok = await s.call(resendPath(sub.id, pending.id), { method: 'POST', key: t.apiKey });
    expect(ok.status, ok.text).toBe(202);
    await r.waitFor(3);
    expect((await settled(t.apiKey, sub.id, 1)).deliveries.find((d: { id: string }) => d.id === pending.id)).toMatchObject({
      status: 'succeeded',
      attempt: 2,
    });
  });

  it('two resends of one delivery at once: one is made (202), the other refused (409); one request reaches the receiver', async () => {
    const t = await proTenant();
    // The resend's attempt is held at the receiver until both resends are answered, so the
    // delivery is pending for the whole race (on a slow machine the attempt could otherwise finish
    // between the two calls, and the second would be a later resend, rightly made).
    let bothAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (bothAnswered = resolve));
    const r = await receiver((_req, index) => ({ status: 200, after: index === 1 ? answered : undefined }));
    const sub = await subscribe(t.apiKey, r.url);
    await slugify(t.apiKey, 'twice');
    const [delivery] = (await settled(t.apiKey, sub.id, 1)).deliveries;
    const answers = await Promise.all([1, 2].map(() => s.call(resendPath(sub.id, delivery.id), { method: 'POST', key: t.apiKey }))).finally(
      bothAnswered,
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    expectError(
      answers.find((a) => a.status === 409)!,
      409,
      'conflict',
    );
    await r.waitFor(2);
    const d = await settled(t.apiKey, sub.id, 1);
    expect(d.deliveries[0]).toMatchObject({ id: delivery.id, status: 'succeeded', attempt: 2 });
    expect(d.stats).toMatchObject({ total_deliveries: 1, succeeded_deliveries: 1, attempts: 2, messages: 1 });
    expect(r.received).toHaveLength(2);
  });

  it('recover sends again only what the receiver did not get: failed, and missed while disabled', async () => {
    const t = await proTenant();
    const state = { failSlugs: true };
    const r = await receiver((req) => ({ status: state.failSlugs && slugOf(req).startsWith('bad') ? 500 : 200 }));
    const since = new Date(Date.now() - 1000).toISOString();
    await slugify(t.apiKey, 'before'); // before the subscription: never meant for it
    const sub = await subscribe(t.apiKey, r.url);
    for (const text of ['ok 1', 'bad 1', 'ok 2', 'bad 2', 'ok 3', 'bad 3']) await slugify(t.apiKey, text);
    const first = await settled(t.apiKey, sub.id, 6);
    expect(first.stats).toMatchObject({ succeeded_deliveries: 3, failed_deliveries: 3 });
    const originalIds = new Map<string, string>();
    for (const got of r.received) originalIds.set(slugOf(got), got.body.id);

    // Disabled for a while: these two events get no delivery at all.
    await s.svc.db
      .update(webhookSubscriptions)
      .set({ status: 'disabled', disabledAt: new Date() })
      .where(eq(webhookSubscriptions.id, sub.id));
    expectError(await s.call(`/api/v1/webhooks/${sub.id}/recover`, { key: t.apiKey, body: { since } }), 409, 'conflict');
    await slugify(t.apiKey, 'gap 1');
    await slugify(t.apiKey, 'gap 2');
    expect((await s.call(`/api/v1/webhooks/${sub.id}/enable`, { method: 'POST', key: t.apiKey })).status).toBe(200);
    await slugify(t.apiKey, 'ok 4');
    await settled(t.apiKey, sub.id, 7);

    state.failSlugs = false;
    const before = r.received.length;
    const res = await s.call(`/api/v1/webhooks/${sub.id}/recover`, { key: t.apiKey, body: { since } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ subscription_id: sub.id, recovered: 5, since, has_more: false, next_since: null });
    expect(typeof res.body.until).toBe('string');
    await r.waitFor(before + 5);
    const d = await settled(t.apiKey, sub.id, 12);
    const recovered = r.received.slice(before);
    expect(recovered.map(slugOf).sort()).toEqual(['bad-1', 'bad-2', 'bad-3', 'gap-1', 'gap-2']);
    // The same message ids as the failed originals.
    for (const got of recovered.filter((g) => slugOf(g).startsWith('bad'))) {
      expect(got.body.id).toBe(originalIds.get(slugOf(got)));
      expect(header(got, 'webhook-id')).toBe(got.body.id);
    }
    expect(d.deliveries.filter((x: { kind: string }) => x.kind === 'recover')).toHaveLength(5);
    expect(d.stats).toMatchObject({ messages: 9, total_deliveries: 12, succeeded_deliveries: 9, failed_deliveries: 3 });

    // Nothing left to recover; the window rules are replay's.
    const again = await s.call(`/api/v1/webhooks/${sub.id}/recover`, { key: t.apiKey, body: { since } });
    expect(again.status, again.text).toBe(202);
    expect(again.body.recovered).toBe(0);
    const old = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    const recover = (body: unknown, key = t.apiKey) => s.call(`/api/v1/webhooks/${sub.id}/recover`, { key, body });
    expectError(await recover({ since: old }), 400, 'invalid_request');
    expectError(await recover({ since: 'yesterday' }), 400, 'invalid_request');
    expectError(await recover({}), 400, 'invalid_request');
    expectError(await recover({ since, until: since }), 400, 'invalid_request');
    expectError(await recover({ since, colour: 'red' }), 400, 'invalid_request');
    const other = await proTenant();
    expectError(await recover({ since }, other.apiKey), 404, 'not_found');
    expect(r.received).toHaveLength(before + 5);
  });

  it("operators recover any tenant's missed events (POST /api/v1/admin/webhooks/{id}/recover)", async () => {
    const t = await proTenant();
    const r = await receiver();
    const since = new Date(Date.now() - 1000).toISOString();
    const sub = await subscribe(t.apiKey, r.url);
    await s.svc.db
      .update(webhookSubscriptions)
      .set({ status: 'disabled', disabledAt: new Date() })
      .where(eq(webhookSubscriptions.id, sub.id));
    await slugify(t.apiKey, 'missed 1');
    await slugify(t.apiKey, 'missed 2');
    const admin = (path: string, body?: unknown, token: string | null = ADMIN_TOKEN) =>
      s.call(path, { method: 'POST', ...(token ? { headers: { 'x-admin-token': token } } : {}), ...(body ? { body } : {}) });
    // Disabled: enable first (409); without the operator's token 401; an unknown id 404.
    expectError(await admin(`/api/v1/admin/webhooks/${sub.id}/recover`, { since }), 409, 'conflict');
    expectError(await admin(`/api/v1/admin/webhooks/${sub.id}/recover`, { since }, null), 401, 'unauthorized');
    expectError(await admin(`/api/v1/admin/webhooks/wh_unknown/recover`, { since }), 404, 'not_found');
    expect((await admin(`/api/v1/admin/webhooks/${sub.id}/enable`)).status).toBe(200);
    const res = await admin(`/api/v1/admin/webhooks/${sub.id}/recover`, { since });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ subscription_id: sub.id, recovered: 2 });
    await r.waitFor(2);
    expect(r.received.map(slugOf).sort()).toEqual(['missed-1', 'missed-2']);
    // A tenant's key is not an operator's credential.
    expectError(await s.call(`/api/v1/admin/webhooks/${sub.id}/recover`, { key: t.apiKey, body: { since } }), 401, 'unauthorized');
  });

  it('replaying 18 events twice: 18 messages, 36 deliveries and attempts; the same message ids', async () => {
    const t = await proTenant();
    const r = await receiver();
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 18; i++) await slugify(t.apiKey, `event ${i}`);
    const sub = await subscribe(t.apiKey, r.url);
    for (let round = 1; round <= 2; round++) {
      const res = await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since } });
      expect(res.status, res.text).toBe(202);
      expect(res.body.replayed).toBe(18);
    }
    const got = await r.waitFor(36);
    const d = await settled(t.apiKey, sub.id, 36);
    expect(d.stats).toMatchObject({ messages: 18, total_deliveries: 36, succeeded_deliveries: 36, attempts: 36 });
    const ids = got.map((g) => g.body.id);
    expect(new Set(ids).size).toBe(18);
    for (const g of got) expect(header(g, 'webhook-id')).toBe(g.body.id);
    expect(new Set(got.map((g) => header(g, 'x-webhook-delivery'))).size).toBe(36);
  });
});
