/**
 * GET /api/v1/me/rate-limit (the dashboard's "requests per minute"): the tenant's current
 * sliding window read without counting, equal to what the X-RateLimit-* headers report, shared
 * by the tenant's keys, and over tRPC as `tenants.requestRate`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('request rate window (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('counts the requests of the window without counting itself', async () => {
    const t = await s.register();
    const first = await s.call('/api/v1/me/rate-limit', { key: t.apiKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ limit: 60, window_seconds: 60 });
    const before = first.body.used as number;
    expect(first.body.remaining).toBe(60 - before);
    expect(new Date(first.body.reset_at as string).toISOString()).toBe(first.body.reset_at);

    for (let i = 0; i < 3; i++) expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    const keys = await s.call('/api/v1/keys', { key: t.apiKey });
    const after = await s.call('/api/v1/me/rate-limit', { key: t.apiKey });
    expect(after.body.used).toBe(before + 4);
    // The same pool the headers of the last counted call described.
    expect(after.body.remaining).toBe(Number(keys.headers.get('x-ratelimit-remaining')));
    // Reading it is exempt: a second read sees the same count.
    expect((await s.call('/api/v1/me/rate-limit', { key: t.apiKey })).body.used).toBe(before + 4);

    // Over tRPC, as the dashboard reads it.
    const trpc = await s.call(`/api/trpc/tenants.requestRate?input=${encodeURIComponent('{}')}`, { key: t.apiKey });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data).toMatchObject({ limit: 60, used: before + 4 });
  });

  it("follows the tenant's limit and is per tenant; without a credential it is 401", async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const other = await s.register();
    expect((await s.call('/api/v1/keys', { key: other.apiKey })).status).toBe(200);
    const res = await s.call('/api/v1/me/rate-limit', { key: t.apiKey });
    expect(res.body.limit).toBe(Number((await s.call('/api/v1/keys', { key: t.apiKey })).headers.get('x-ratelimit-limit')));
    expect(res.body.used).toBe(0);
    expectError(await s.call('/api/v1/me/rate-limit'), 401, 'unauthorized');
  });
});
