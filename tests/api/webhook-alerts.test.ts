/**
 * Failures made loud (docs/webhooks.md, Failure alerts): a subscription's failed deliveries in a
 * row reaching its `failure_alert_threshold` mark it failing and mail the tenant's owner once; a
 * success ends the run; the auto-disable mails again and sends `webhook.disabled` to the tenant's
 * other subscriptions that take it, never to the disabled one. A real server, real receivers
 * (one answering 500) and a local SMTP server (tests/browser/mailbox.ts).
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { EVENT_DATA_SCHEMAS } from '../../src/contract/events';
import { events } from '../../src/db/schema';
import { unitOfWork } from '../../src/outbox';
import { countConsecutiveFailures } from '../../src/webhooks/alerts';
import { WEBHOOK_AUTO_DISABLE_AFTER } from '../../src/contract/limits';
import { startMailbox, type Mailbox } from '../browser/mailbox';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

backends.describe('Webhook failure alerts (%s)', (backend) => {
  let s: TestServer;
  let mailbox: Mailbox;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    mailbox = await startMailbox();
    // One attempt per delivery: each event to a failing receiver is one failed delivery at once.
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0', WEBHOOK_TIMEOUT_MS: '2000', SMTP_URL: mailbox.url },
    });
  });
  afterAll(async () => {
    await s?.close();
    await mailbox?.close();
  });
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
    return res.body as { id: string; failure_alert_threshold: number; failing_since: string | null };
  }

  const detail = async (key: string, id: string) => {
    const res = await s.call(`/api/v1/webhooks/${id}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  /** Waits until `check` holds for the subscription's detail (no pending delivery left). */
  async function until(key: string, id: string, check: (d: any) => boolean, what: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = await detail(key, id);
      if (d.stats.pending_deliveries === 0 && check(d)) return d;
      if (Date.now() > deadline) throw new Error(`${what}: not reached, ${JSON.stringify({ ...d, deliveries: d.deliveries.length })}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits until `count()` reaches `n` (mails arrive after the alert job runs). */
  async function waitCount(count: () => number, n: number, what: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (count() < n) {
      if (Date.now() > deadline) throw new Error(`${what}: ${count()} of ${n}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const slugify = async (key: string, text: string) => {
    const res = await s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text } } });
    expect(res.status, res.text).toBe(200);
  };

  it('failure_alert_threshold: default 3, settable 1–10 on create and update, anything else a clear 400', async () => {
    const t = await proTenant();
    const r = await receiver();
    const plain = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    expect(plain).toMatchObject({ failure_alert_threshold: 3, failing_since: null });
    for (const bad of [0, 11, 2.5, '3', null]) {
      const res = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], failure_alert_threshold: bad } });
      const body = expectError(res, 400, 'invalid_request');
      expect(body.message, JSON.stringify(bad)).toMatch(/failure_alert_threshold/);
    }
    const tooHigh = await s.call(`/api/v1/webhooks/${plain.id}`, { method: 'PUT', key: t.apiKey, body: { failure_alert_threshold: 11 } });
    expect(expectError(tooHigh, 400, 'invalid_request').message).toMatch(`at most ${WEBHOOK_AUTO_DISABLE_AFTER}`);
    const set = await s.call(`/api/v1/webhooks/${plain.id}`, { method: 'PUT', key: t.apiKey, body: { failure_alert_threshold: 10 } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.failure_alert_threshold).toBe(10);
    const made = await subscribe(t.apiKey, { url: r.url, events: ['*'], failure_alert_threshold: 1 });
    expect(made.failure_alert_threshold).toBe(1);
    const list = await s.call('/api/v1/webhooks', { key: t.apiKey });
    expect(list.body.data.map((w: any) => [w.id, w.failure_alert_threshold, w.failing_since])).toEqual([
      [made.id, 1, null],
      [plain.id, 10, null],
    ]);
  });

  it('the threshold mails the owner once and marks the subscription failing; a success ends it; the disable mails once and sends one webhook.disabled to another subscription only', async () => {
    const t = await proTenant();
    const failing = await receiver(() => ({ status: 500, body: 'down for the test' }));
    const watcher = await receiver();
    const sub = await subscribe(t.apiKey, {
      url: failing.url,
      events: ['execution.completed', 'webhook.disabled'],
      failure_alert_threshold: 2,
    });
    const other = await subscribe(t.apiKey, { url: watcher.url, events: ['webhook.disabled'] });
    const failingMails = () => mailbox.all(t.email, /^Webhook failing/);
    const disabledMails = () => mailbox.all(t.email, /^Webhook disabled/);
    const health = async () => (await s.call('/api/v1/webhooks/health', { key: t.apiKey })).body;

    // One failed delivery: below the threshold, nothing is said.
    await slugify(t.apiKey, 'one');
    let d = await until(t.apiKey, sub.id, (x) => x.consecutive_failures === 1, 'first failure');
    expect(d.failing_since).toBeNull();
    expect(await health()).toEqual({ disabled: 0, failing: 0, subscriptions: [] });

    // The second reaches the threshold: failing since now, one mail.
    await slugify(t.apiKey, 'two');
    d = await until(t.apiKey, sub.id, (x) => x.consecutive_failures === 2, 'threshold');
    expect(d.failing_since).not.toBeNull();
    const firstRun = d.failing_since;
    const mail = await mailbox.waitFor(t.email, /^Webhook failing/);
    expect(mail.text).toContain(sub.id);
    expect(mail.text).toContain(failing.url);
    expect(mail.text).toContain('HTTP 500');
    expect(mail.text).toContain(`/dashboard/webhooks/${sub.id}`);
    expect(await health()).toMatchObject({
      disabled: 0,
      failing: 1,
      subscriptions: [{ id: sub.id, status: 'active', consecutive_failures: 2, failure_alert_threshold: 2, failing_since: firstRun }],
    });

    // A third failure in the same run says nothing new.
    await slugify(t.apiKey, 'three');
    d = await until(t.apiKey, sub.id, (x) => x.consecutive_failures === 3, 'third failure');
    expect(d.failing_since).toBe(firstRun);

    // A success ends the run.
    failing.respond = () => ({ status: 200 });
    await slugify(t.apiKey, 'recovered');
    d = await until(t.apiKey, sub.id, (x) => x.consecutive_failures === 0, 'success');
    expect(d.failing_since).toBeNull();
    expect(await health()).toEqual({ disabled: 0, failing: 0, subscriptions: [] });

    // A new run: failing again at 2 (a second mail, for this run), disabled at 10.
    failing.respond = () => ({ status: 500 });
    for (let i = 1; i <= WEBHOOK_AUTO_DISABLE_AFTER; i++) {
      await slugify(t.apiKey, `again ${i}`);
      d = await until(t.apiKey, sub.id, (x) => x.consecutive_failures === i, `failure ${i} of the second run`);
    }
    expect(d.status).toBe('disabled');
    expect(d.disabled_at).not.toBeNull();
    expect(d.failing_since).not.toBeNull();
    expect(d.failing_since).not.toBe(firstRun);

    const disabledMail = await mailbox.waitFor(t.email, /^Webhook disabled/);
    expect(disabledMail.text).toContain(sub.id);
    expect(disabledMail.text).toContain(`${WEBHOOK_AUTO_DISABLE_AFTER} failed deliveries in a row`);
    await waitCount(() => failingMails().length, 2, 'failing mails');
    expect(failingMails()).toHaveLength(2);
    expect(disabledMails()).toHaveLength(1);

    // webhook.disabled: one delivery, to the other subscription.
    const [got] = await watcher.waitFor(1);
    expect(got!.body.event).toBe('webhook.disabled');
    const data = EVENT_DATA_SCHEMAS['webhook.disabled'].parse(got!.body.data);
    expect(data).toEqual({
      webhook_id: sub.id,
      url: failing.url,
      consecutive_failures: WEBHOOK_AUTO_DISABLE_AFTER,
      disabled_at: d.disabled_at,
      failing_since: d.failing_since,
      last_status_code: 500,
      last_error: 'The receiver answered 500.',
    });
    const watched = await until(t.apiKey, other.id, (x) => x.stats.succeeded_deliveries === 1, 'webhook.disabled delivered');
    expect(watched.stats.total_deliveries).toBe(1);
    // The disabled subscription takes webhook.disabled, but not its own.
    expect(failing.received.filter((r) => r.body?.event === 'webhook.disabled')).toEqual([]);
    expect(d.deliveries.filter((x: any) => x.event === 'webhook.disabled')).toEqual([]);

    expect(await health()).toMatchObject({
      disabled: 1,
      failing: 0,
      subscriptions: [{ id: sub.id, status: 'disabled', disabled_at: d.disabled_at, failing_since: d.failing_since }],
    });

    // Enabling ends the run: nothing needs attention.
    const enabled = await s.call(`/api/v1/webhooks/${sub.id}/enable`, { method: 'POST', key: t.apiKey });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, failing_since: null, disabled_at: null });
    expect(await health()).toEqual({ disabled: 0, failing: 0, subscriptions: [] });
    expect(disabledMails()).toHaveLength(1);
  });

  it('recorders racing on one subscription (as several instances do) make each transition once: one failing mail, one disabled mail, one event', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'], failure_alert_threshold: 3 });
    const failure = {
      prepared: { subscriptionId: sub.id },
      outcome: { success: false, statusCode: 502, latencyMs: 1, error: 'The receiver answered 502.', responseBody: null },
    };
    // Twelve transactions at once, each recording one failed delivery of the subscription: they
    // serialise on its row, the third crosses the threshold and the tenth disables it.
    const disabled = await Promise.all(
      Array.from({ length: 12 }, () => unitOfWork(s.svc, (_tx, out) => countConsecutiveFailures(s.svc, out, [failure]))),
    );
    expect(disabled.reduce((a, b) => a + b, 0)).toBe(1);
    const d = await detail(t.apiKey, sub.id);
    expect(d).toMatchObject({ status: 'disabled', consecutive_failures: 12 });
    await mailbox.waitFor(t.email, /^Webhook disabled/);
    await waitCount(() => mailbox.all(t.email, /^Webhook failing/).length, 1, 'failing mail');
    const logged = await s.svc.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, 'webhook.disabled')));
    expect(logged.map((e) => (e.data as { webhook_id: string }).webhook_id)).toEqual([sub.id]);
    expect(logged[0]!.data).toMatchObject({ consecutive_failures: WEBHOOK_AUTO_DISABLE_AFTER, last_status_code: 502 });
    expect(mailbox.all(t.email, /^Webhook failing/)).toHaveLength(1);
    expect(mailbox.all(t.email, /^Webhook disabled/)).toHaveLength(1);
  });

  it('the health view answers on every plan, and only about its own tenant', async () => {
    const free = await s.register();
    const res = await s.call('/api/v1/webhooks/health', { key: free.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ disabled: 0, failing: 0, subscriptions: [] });
    expectError(await s.call('/api/v1/webhooks/health'), 401, 'unauthorized');
  });
});
