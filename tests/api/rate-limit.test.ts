import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, clientAddress, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('request rate limit (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    // TRUST_PROXY: the public pool's test names its own client address (X-Forwarded-For), so other
    // files' anonymous requests on the shared Redis are not counted in it.
    s = await startTestServer({ backend, env: { TRUST_PROXY: '1' } });
  });
  afterAll(async () => s?.close());

  it('the 61st request of a free tenant within 60 s is 429 with the documented body and headers', async () => {
    const t = await s.register();
    for (let i = 0; i < 60; i++) {
      const ok = await s.call('/api/v1/keys', { key: t.apiKey });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('60');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const res = await s.call('/api/v1/keys', { key: t.apiKey });
    const body = expectError(res, 429, 'rate_limit_exceeded');
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60); // never more than the window
    expect(body).toMatchObject({ retry_after: Number(retryAfter), limit: 60 });
    expect(typeof body.message).toBe('string');
    expect(new Date(body.reset_at).toISOString()).toBe(body.reset_at);
    expect(Date.parse(body.reset_at)).toBeGreaterThan(Date.now());
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-execution-remaining')).toBe('1000');

    // Another tenant is unaffected; public exempt endpoints keep answering.
    const other = await s.register();
    expect((await s.call('/api/v1/keys', { key: other.apiKey })).status).toBe(200);
    expect((await s.call('/api/v1/health', { key: t.apiKey })).status).toBe(200);
    expect((await s.call('/api/openapi.json', { key: t.apiKey })).status).toBe(200);
  });

  it('all keys of one tenant share one pool', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro', 10);
    const second = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'second', scopes: ['keys:manage'] } });
    expect(second.status).toBe(201);
    // 2 requests used so far (plan change does not count; the create does). Fill up alternating keys.
    let used = 1;
    while (used < 10) {
      const key = used % 2 ? second.body.api_key : t.apiKey;
      expect((await s.call('/api/v1/keys', { key })).status).toBe(200);
      used++;
    }
    expectError(await s.call('/api/v1/keys', { key: t.apiKey }), 429, 'rate_limit_exceeded');
    expectError(await s.call('/api/v1/keys', { key: second.body.api_key }), 429, 'rate_limit_exceeded');
  });

  it('reports X-Execution-Remaining on authenticated responses (enterprise: unlimited)', async () => {
    const t = await s.register();
    expect((await s.call('/api/v1/keys', { key: t.apiKey })).headers.get('x-execution-remaining')).toBe('1000');
    await s.setPlan(t.tenantId, 'enterprise');
    const res = await s.call('/api/v1/keys', { key: t.apiKey });
    expect(res.headers.get('x-execution-remaining')).toBe('unlimited');
    expect(res.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5000;w=60');
    expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
  });

  it("unauthenticated responses report the client IP's public pool; 401s consume it", async () => {
    const headers = { 'x-forwarded-for': clientAddress() };
    const first = await s.call('/api/v1/keys', { headers });
    expect(first.status).toBe(401);
    expect(first.headers.get('x-ratelimit-limit')).toBe('600');
    const before = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await s.call('/api/v1/keys', { key: 'amp_wrongwrongwrongwrongwrongwrongwrong', headers });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    const health = await s.call('/api/v1/health', { headers });
    expect(health.headers.get('x-ratelimit-limit')).toBe('600');
    // Exempt: reported, not consumed.
    expect(Number(health.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    expect(health.headers.get('x-execution-remaining')).toBeNull();
  });
});
