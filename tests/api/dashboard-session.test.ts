/**
 * Dashboard sessions on the API side (src/server/session.ts): /api/trpc calls without their own
 * credential are authenticated from next-auth's session cookie, as the session's bearer token or
 * API key; cookie-authenticated mutations from another origin are 403 `forbidden` (CSRF). The
 * cookie is made here as next-auth makes it (next-auth/jwt `encode` with SESSION_SECRET); the
 * browser tests (tests/browser/sign-in.test.ts) get it from the real sign-in pages.
 */
import { randomBytes } from 'node:crypto';
import { encode } from 'next-auth/jwt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dashboardForwardToken } from '../../src/server/session';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

const ME = `/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`;
const COOKIE = 'next-auth.session-token';

backends.describe('dashboard session cookie on /api/trpc (%s)', (backend) => {
  let s: TestServer;
  let bearer: string;
  let bearerTenant: string;
  let keyTenant: { apiKey: string; tenantId: string };

  beforeAll(async () => {
    s = await startTestServer({ backend });
    const signup = await s.call('/auth/v1/signup', {
      headers: { apikey: s.config.auth.anonKey },
      body: { email: 'dash@example.com', password: 'dash-password-1' },
    });
    expect(signup.status).toBe(200);
    bearer = signup.body.access_token;
    const created = await s.call('/api/v1/auth/register', { bearer, body: { agent_name: 'dash' } });
    expect(created.status).toBe(201);
    bearerTenant = created.body.tenant_id;
    keyTenant = await s.register();
  });
  afterAll(() => s?.close());

  const cookieOf = async (dashboard: Record<string, unknown>, secret = s.config.sessionSecret) =>
    `${COOKIE}=${await encode({ token: { sub: 'x', dashboard }, secret })}`;
  const passwordCookie = () =>
    cookieOf({
      kind: 'password',
      email: 'dash@example.com',
      admin: false,
      accessToken: bearer,
      refreshToken: 'r',
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
  const keyCookie = () => cookieOf({ kind: 'api_key', admin: false, apiKey: keyTenant.apiKey, tenantId: keyTenant.tenantId });

  it('a password session acts as its bearer token; an API-key session as its key', async () => {
    const viaBearer = await s.call(ME, { headers: { cookie: await passwordCookie() } });
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.result.data).toMatchObject({ tenant_id: bearerTenant, credential: { type: 'bearer', scopes: ['*'] } });
    const viaKey = await s.call(ME, { headers: { cookie: await keyCookie() } });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.result.data).toMatchObject({ tenant_id: keyTenant.tenantId, credential: { type: 'api_key', scopes: ['*'] } });
    // Metered as that tenant, like any call with its credential.
    expect(viaKey.headers.get('x-ratelimit-limit')).toBe('60');
    expect(viaKey.headers.get('x-execution-remaining')).not.toBeNull();
  });

  it('no cookie, a cookie sealed with another secret, or a session that could not be refreshed: 401', async () => {
    const none = await s.call(ME);
    expect(none.status).toBe(401);
    expect(none.body.error.data.app.error).toBe('unauthorized');
    const forged = await cookieOf({ kind: 'api_key', apiKey: keyTenant.apiKey }, 'another-secret-another-secret-00');
    expect((await s.call(ME, { headers: { cookie: forged } })).status).toBe(401);
    expect((await s.call(ME, { headers: { cookie: `${COOKIE}=not-a-jwe` } })).status).toBe(401);
    const ended = await cookieOf({ kind: 'password', accessToken: bearer, error: 'refresh_failed' });
    expect((await s.call(ME, { headers: { cookie: ended } })).status).toBe(401);
  });

  it("a request's own credential wins over the cookie (API clients are not cookie sessions)", async () => {
    const res = await s.call(ME, { key: keyTenant.apiKey, headers: { cookie: await passwordCookie() } });
    expect(res.body.result.data.tenant_id).toBe(keyTenant.tenantId);
    // ... and no Origin is required of them.
    const mutation = await s.call('/api/trpc/keys.create', {
      key: keyTenant.apiKey,
      headers: { cookie: await passwordCookie(), origin: 'https://evil.example' },
      body: { name: 'x' },
    });
    expect(mutation.body.error.data.app.error).toBe('plan_required');
  });

  it('a mutation with the cookie from another origin, or without Origin, is 403 forbidden (CSRF); from our origin it runs', async () => {
    const cookie = await keyCookie();
    for (const origin of ['https://evil.example', 'null', undefined]) {
      const res = await s.call('/api/trpc/keys.create', { headers: { cookie, ...(origin ? { origin } : {}) }, body: { name: 'csrf' } });
      const body = expectError(res, 403, 'forbidden');
      expect(body.message).toMatch(/cross-site request forgery/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    }
    // The service's own origin: the public base URL's, or the host the request was sent to.
    for (const origin of [new URL(s.config.publicBaseUrl).origin, s.url]) {
      const res = await s.call('/api/trpc/keys.create', { headers: { cookie, origin }, body: { name: 'second' } });
      expect(res.status).toBe(403);
      expect(res.body.error.data.app.error).toBe('plan_required'); // the free plan's one key: the call reached the procedure
    }
    // Queries (GET) need no Origin.
    expect((await s.call(ME, { headers: { cookie } })).status).toBe(200);
  });

  it('a revoked key ends its API-key sessions at once', async () => {
    const other = await s.register();
    await s.setPlan(other.tenantId, 'pro');
    const second = await s.call('/api/v1/keys', { key: other.apiKey, body: { name: 'dashboard', scopes: ['*'] } });
    expect(second.status).toBe(201);
    const cookie = await cookieOf({ kind: 'api_key', admin: false, apiKey: second.body.api_key, tenantId: other.tenantId });
    expect((await s.call(ME, { headers: { cookie } })).status).toBe(200);
    const revoked = await s.call(`/api/v1/keys/${second.body.key_id}`, { method: 'DELETE', key: other.apiKey });
    expect(revoked.status).toBe(200);
    const after = await s.call(ME, { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.error.data.app.error).toBe('unauthorized');
  });

  it("the dashboard's server calls count against the browser's address only with this process's forwarding token", async () => {
    const token = dashboardForwardToken(); // what server.ts hands to Next
    // Fresh documentation addresses each run (the Redis variant's pools outlive a run by a minute).
    const [ip1, ip2, ip3] = [1, 2, 3].map(() => `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`);
    const remaining = async (headers: Record<string, string>) =>
      Number((await s.call('/api/v1/me', { headers })).headers.get('x-ratelimit-remaining'));
    const a = await remaining({ 'x-amp-client-ip': ip1!, 'x-amp-dashboard-token': token });
    expect(await remaining({ 'x-amp-client-ip': ip1!, 'x-amp-dashboard-token': token })).toBe(a - 1);
    // Another browser: its own pool (a 401 counts against the public pool of the client address).
    expect(await remaining({ 'x-amp-client-ip': ip2!, 'x-amp-dashboard-token': token })).toBe(599);
    // Without the token (or with a wrong one) the header is ignored: the socket's address counts.
    const loopback = await remaining({});
    expect(await remaining({ 'x-amp-client-ip': ip3!, 'x-amp-dashboard-token': 'guess' })).toBe(loopback - 1);
    expect(await remaining({ 'x-amp-client-ip': ip3! })).toBe(loopback - 2);
  });
});
