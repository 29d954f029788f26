import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../harness';

/** /api/trpc (the dashboard's transport) runs the same procedures, with domain errors mapped. */
describe('tRPC transport', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.close());

  it('answers a query and maps a domain error to its status and code', async () => {
    const t = await s.register();
    const me = await s.call(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`, { key: t.apiKey });
    expect(me.status).toBe(200);
    expect(me.body.result.data).toMatchObject({ tenant_id: t.tenantId, plan: 'free' });

    const denied = await s.call('/api/trpc/keys.create', { key: t.apiKey, body: { name: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: -32003,
      message: expect.stringMatching(/pro plan/),
      data: { code: 'FORBIDDEN', httpStatus: 403, app: { error: 'plan_required', required_plan: 'pro' } },
    });
    expect(JSON.stringify(denied.body)).not.toMatch(/stack|\.ts:/);
    const unauthenticated = await s.call('/api/trpc/tenants.me');
    expect(unauthenticated.status).toBe(401);
  });

  it('a batch carries at most 20 calls: one more is a 400 in the error format, nothing runs', async () => {
    const t = await s.register();
    const batch = (n: number) => {
      const paths = Array.from({ length: n }, () => 'tenants.me').join(',');
      const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]));
      return `/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
    };
    const ok = await s.call(batch(20), { key: t.apiKey });
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(20);
    const remaining = Number(ok.headers.get('x-ratelimit-remaining'));
    const refused = expectError(await s.call(batch(21), { key: t.apiKey }), 400, 'invalid_request');
    expect(refused.message).toMatch(/at most 20 calls/);
    // Reported, not consumed: the refused batch ran nothing and cost nothing.
    const after = await s.call(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`, { key: t.apiKey });
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
  });
});
