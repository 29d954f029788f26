/**
 * Operators (src/identity/operator.ts): besides `x-admin-token`, a bearer token whose email is in
 * ADMIN_EMAILS and proven (the built-in provider's mailed confirmation) reaches the admin
 * endpoints; an unproven or unlisted email is 403; without credentials 401; with neither
 * ADMIN_TOKEN nor ADMIN_EMAILS the endpoints do not exist (404). And the cross-tenant lists an
 * operator needs: disabled subscriptions and failed deliveries, and the tenants' usage.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMailbox, verifyLink, type Mailbox } from '../browser/mailbox';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

const OPERATOR = 'ops-admin@example.com';
const PASSWORD = 'operator-password-1';

backends.describe('admin endpoints for operators signed in with a bearer token (%s)', (backend) => {
  let mailbox: Mailbox;
  let s: TestServer; // SMTP (emails proven by mail), ADMIN_TOKEN and ADMIN_EMAILS
  let emailsOnly: TestServer; // no SMTP (nothing proven), ADMIN_EMAILS only
  let neither: TestServer; // no ADMIN_TOKEN, no ADMIN_EMAILS
  let receiver: Receiver;

  beforeAll(async () => {
    mailbox = await startMailbox();
    receiver = await startReceiver(() => ({ status: 503 }));
    [s, emailsOnly, neither] = await Promise.all([
      startTestServer({
        backend,
        env: {
          SMTP_URL: mailbox.url,
          ADMIN_EMAILS: `${OPERATOR},listed-unproven@example.com`,
          WEBHOOK_ALLOW_PRIVATE: '1',
          WEBHOOK_RETRY_SCHEDULE_MS: '0',
          WEBHOOK_TIMEOUT_MS: '1000',
        },
      }),
      startTestServer({ backend, env: { ADMIN_TOKEN: undefined, ADMIN_EMAILS: OPERATOR } }),
      startTestServer({ backend, env: { ADMIN_TOKEN: undefined, ADMIN_EMAILS: undefined } }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([s?.close(), emailsOnly?.close(), neither?.close()]);
    await Promise.all([mailbox?.close(), receiver?.close()]);
  });

  const anon = (server: TestServer) => ({ apikey: server.config.auth.anonKey });

  /** Signs up on the built-in provider; with SMTP follows the mailed link first. Returns an access token. */
  async function signUp(server: TestServer, email: string, confirmByMail: boolean): Promise<string> {
    const signup = await server.call('/auth/v1/signup', { headers: anon(server), body: { email, password: PASSWORD } });
    expect(signup.status, signup.text).toBe(200);
    if (!confirmByMail) return signup.body.access_token;
    const link = new URL(verifyLink(await mailbox.waitFor(email, /confirm/i)));
    const verified = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    expect(verified.status).toBe(303);
    const token = await server.call('/auth/v1/token?grant_type=password', { headers: anon(server), body: { email, password: PASSWORD } });
    expect(token.status, token.text).toBe(200);
    return token.body.access_token;
  }

  it('an operator bearer (email listed and confirmed by mail) reaches the admin endpoints; others are refused', async () => {
    const operator = await signUp(s, OPERATOR, true);
    const tenants = await s.call('/api/v1/admin/tenants?limit=5', { bearer: operator });
    expect(tenants.status, tenants.text).toBe(200);
    expect(Array.isArray(tenants.body.data)).toBe(true);

    // Confirmed but not listed: a valid bearer of a non-operator.
    const stranger = await signUp(s, 'not-an-operator@example.com', true);
    expectError(await s.call('/api/v1/admin/tenants', { bearer: stranger }), 403, 'forbidden');
    // The admin token still works; a wrong one or none is 401; an invalid bearer is 401.
    expect((await s.call('/api/v1/admin/tenants', { headers: { 'x-admin-token': ADMIN_TOKEN } })).status).toBe(200);
    expectError(await s.call('/api/v1/admin/tenants', { headers: { 'x-admin-token': 'wrong' } }), 401, 'unauthorized');
    expectError(await s.call('/api/v1/admin/tenants'), 401, 'unauthorized');
    expectError(await s.call('/api/v1/admin/tenants', { bearer: 'not-a-jwt' }), 401, 'unauthorized');
  });

  it('an email in ADMIN_EMAILS that is not proven (no SMTP: no mailed confirmation) is no operator: 403', async () => {
    const unproven = await signUp(emailsOnly, OPERATOR, false);
    expectError(await emailsOnly.call('/api/v1/admin/tenants', { bearer: unproven }), 403, 'forbidden');
    // ADMIN_EMAILS alone makes the endpoints exist: 401 without credentials, not 404.
    expectError(await emailsOnly.call('/api/v1/admin/tenants'), 401, 'unauthorized');
    expectError(await emailsOnly.call('/api/v1/admin/tenants', { headers: { 'x-admin-token': ADMIN_TOKEN } }), 401, 'unauthorized');
  });

  it('without ADMIN_TOKEN and ADMIN_EMAILS the admin endpoints do not exist (404), whatever the credential', async () => {
    const bearer = await signUp(neither, OPERATOR, false);
    expectError(await neither.call('/api/v1/admin/tenants'), 404, 'not_found');
    expectError(await neither.call('/api/v1/admin/tenants', { bearer }), 404, 'not_found');
    expectError(await neither.call('/api/v1/admin/webhooks/disabled', { headers: { 'x-admin-token': ADMIN_TOKEN } }), 404, 'not_found');
  });

  it('lists disabled subscriptions and failed deliveries across tenants, the tenants with usage, and re-enables with the bearer', async () => {
    // The operator signed up (and confirmed) in the first test: sign in again.
    const signIn = await s.call('/auth/v1/token?grant_type=password', { headers: anon(s), body: { email: OPERATOR, password: PASSWORD } });
    expect(signIn.status, signIn.text).toBe(200);
    const token: string = signIn.body.access_token;
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const sub = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
    expect(sub.status, sub.text).toBe(201);
    for (let i = 0; i < 10; i++) {
      const run = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: `n ${i}` } } });
      expect(run.status, run.text).toBe(200);
    }
    // Wait until the service disabled it (10 failed deliveries in a row).
    const deadline = Date.now() + 60_000;
    let disabled: any[] = [];
    while (Date.now() < deadline) {
      const list = await s.call('/api/v1/admin/webhooks/disabled?limit=100', { bearer: token });
      expect(list.status, list.text).toBe(200);
      disabled = list.body.data.filter((w: { id: string }) => w.id === sub.body.id);
      if (disabled.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(disabled[0]).toMatchObject({
      id: sub.body.id,
      status: 'disabled',
      tenant_id: t.tenantId,
      owner_email: t.email,
      url: receiver.url,
    });
    expect(disabled[0].secret).toMatch(/^…/);

    const failed = await s.call('/api/v1/admin/webhooks/failed-deliveries?limit=100', { bearer: token });
    expect(failed.status, failed.text).toBe(200);
    const mine = failed.body.data.filter((d: { subscription_id: string }) => d.subscription_id === sub.body.id);
    expect(mine).toHaveLength(10);
    expect(mine[0]).toMatchObject({ status: 'failed', tenant_id: t.tenantId, url: receiver.url, status_code: 503, success: false });
    expect(mine[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 503, success: false });

    // Pagination: one at a time, no duplicates.
    const first = await s.call('/api/v1/admin/webhooks/failed-deliveries?limit=1', { bearer: token });
    expect(first.body).toMatchObject({ has_more: true });
    const second = await s.call(`/api/v1/admin/webhooks/failed-deliveries?limit=1&cursor=${first.body.next_cursor}`, { bearer: token });
    expect(second.status).toBe(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expectError(await s.call('/api/v1/admin/webhooks/failed-deliveries?cursor=nope', { bearer: token }), 400, 'invalid_request');

    const tenants = await s.call('/api/v1/admin/tenants?limit=100', { bearer: token });
    expect(tenants.body.data.find((x: { tenant_id: string }) => x.tenant_id === t.tenantId)).toMatchObject({
      plan: 'pro',
      executions_this_cycle: 10,
      disabled_webhooks: 1,
    });

    const enabled = await s.call(`/api/v1/admin/webhooks/${sub.body.id}/enable`, { method: 'POST', bearer: token });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0 });
    const after = await s.call('/api/v1/admin/webhooks/disabled?limit=100', { bearer: token });
    expect(after.body.data.some((w: { id: string }) => w.id === sub.body.id)).toBe(false);

    // Not for tenants: a tenant's own key is no operator credential.
    expectError(await s.call('/api/v1/admin/webhooks/disabled', { key: t.apiKey }), 401, 'unauthorized');
  }, 120_000);
});
