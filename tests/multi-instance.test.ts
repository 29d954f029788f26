/**
 * Two instances on one PostgreSQL database and one Redis (README, Run it: several instances):
 * revocation, rotation and plan changes made on one are seen by the other on its very next
 * request, and both draw on one rate-limit pool per tenant.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, verifySignature } from './receiver';
import { createTestDatabase, expectError, missing, startTestServer, type TestServer } from './harness';

/** Both need PostgreSQL and Redis; reported as skipped without them. */
const needsMissing = missing.postgres !== undefined || missing.redis !== undefined;

describe.skipIf(needsMissing)('two instances sharing PostgreSQL and Redis', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE: '1', ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    a = await startTestServer({ backend: 'postgres', redis: true, env });
    b = await startTestServer({ backend: 'postgres', redis: true, databaseUrl: a.config.databaseUrl, env });
  });
  // B first: A owns (and drops) the database.
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('webhook deliveries are shared: events from both instances arrive once each, signed', async () => {
    const receiver = await startReceiver();
    try {
      const t = await a.register();
      await a.setPlan(t.tenantId, 'pro');
      const sub = await b.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
      expect(sub.status).toBe(201);
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: `n ${i}` } } }),
        ),
      );
      expect(runs.every((r) => r.status === 200)).toBe(true);
      const got = await receiver.waitFor(20);
      await new Promise((r) => setTimeout(r, 500));
      const ids = receiver.received.map((r) => r.body.id);
      expect(new Set(ids).size).toBe(20);
      expect(ids).toHaveLength(20);
      expect(got.every((r) => verifySignature(sub.body.secret, r.raw, r.headers['x-webhook-signature']))).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('runs both instances on one database with the Redis key cache', () => {
    expect(a.config.databaseUrl).toBeTruthy();
    expect(b.config.databaseUrl).toBe(a.config.databaseUrl);
    expect(a.svc.keyCache.mode).toBe('redis');
    expect(b.svc.keyCache.mode).toBe('redis');
    expect(a.svc.limiter.backend).toBe('redis');
    expect(b.svc.limiter.backend).toBe('redis');
  });

  it('a key revoked on A fails on the very next request on B (and on A)', async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'pro');
    const k = await a.call('/api/v1/keys', { key: t.apiKey, body: { name: 'shared', scopes: ['keys:manage'] } });
    expect(k.status).toBe(201);
    // Authenticates on B, twice: the second is served from B's warm cache.
    expect((await b.call('/api/v1/keys', { key: k.body.api_key })).status).toBe(200);
    expect((await b.call('/api/v1/keys', { key: k.body.api_key })).status).toBe(200);
    expect((await a.call('/api/v1/keys', { key: k.body.api_key })).status).toBe(200);

    const revoked = await a.call(`/api/v1/keys/${k.body.key_id}`, { method: 'DELETE', key: t.apiKey });
    expect(revoked.status).toBe(200);
    expectError(await b.call('/api/v1/keys', { key: k.body.api_key }), 401, 'unauthorized');
    expectError(await a.call('/api/v1/keys', { key: k.body.api_key }), 401, 'unauthorized');
    // The tenant's other key still works on both.
    expect((await b.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    expect((await a.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
  });

  it('rotation without grace on B: the old secret fails on A at once', async () => {
    const t = await a.register();
    // Warm both caches with the old secret.
    expect((await a.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    const primary = (await b.call('/api/v1/keys', { key: t.apiKey })).body.data[0];
    const rotated = await b.call(`/api/v1/keys/${primary.key_id}/rotate`, { key: t.apiKey, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previous_key_expires_at).toBeNull();
    expectError(await a.call('/api/v1/keys', { key: t.apiKey }), 401, 'unauthorized');
    expectError(await b.call('/api/v1/keys', { key: t.apiKey }), 401, 'unauthorized');
    expect((await a.call('/api/v1/keys', { key: rotated.body.api_key })).status).toBe(200);
    expect((await b.call('/api/v1/keys', { key: rotated.body.api_key })).status).toBe(200);
  });

  it('a plan change made on A applies on B on the next request', async () => {
    const t = await a.register();
    // Free: B refuses a second key (and caches the key with plan free).
    const refused = expectError(await b.call('/api/v1/keys', { key: t.apiKey, body: { name: 'second' } }), 403, 'plan_required');
    expect(refused.required_plan).toBe('pro');
    expect((await b.call('/api/v1/keys', { key: t.apiKey })).headers.get('x-ratelimit-limit')).toBe('60');
    await a.setPlan(t.tenantId, 'pro');
    const created = await b.call('/api/v1/keys', { key: t.apiKey, body: { name: 'second' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-ratelimit-limit')).toBe('300');
    // And back down: B refuses again at once.
    await a.setPlan(t.tenantId, 'free');
    expectError(await b.call('/api/v1/keys', { key: t.apiKey, body: { name: 'third' } }), 403, 'plan_required');
  });

  it("a key's execution cap holds across both: 200 racing calls against a cap of 37 run exactly 37", async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'enterprise');
    const created = await b.call('/api/v1/keys', { key: t.apiKey, body: { name: 'agent', policy: { executions_per_month: 37 } } });
    expect(created.status, created.text).toBe(201);
    const uuid = (s: TestServer, key: string) => s.call('/api/v1/modules/crypto/execute', { key, body: { action: 'uuid', input: {} } });
    expect((await uuid(a, t.apiKey)).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => uuid(i % 2 ? a : b, created.body.api_key)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(37);
    expect(answers.filter((r) => r.status === 429 && r.body.error === 'key_limit_exceeded')).toHaveLength(163);
  }, 120_000);

  it('a policy set on A applies on B on the very next request', async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'pro');
    const created = await a.call('/api/v1/keys', { key: t.apiKey, body: { name: 'agent' } });
    const slug = (s: TestServer) =>
      s.call('/api/v1/modules/text/execute', { key: created.body.api_key, body: { action: 'slugify', input: { text: 'a b' } } });
    expect((await slug(b)).status).toBe(200);
    const set = await a.call(`/api/v1/keys/${created.body.key_id}/policy`, { key: t.apiKey, method: 'PUT', body: { modules: ['crypto'] } });
    expect(set.status, set.text).toBe(200);
    expectError(await slug(b), 403, 'policy_denied');
  });

  it('both instances share one rate-limit pool per tenant', async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'free', 10);
    for (let i = 0; i < 10; i++) {
      const res = await (i % 2 === 0 ? a : b).call('/api/v1/keys', { key: t.apiKey });
      expect(res.status, `request ${i + 1} on ${i % 2 === 0 ? 'A' : 'B'}`).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
    }
    for (const s of [a, b]) {
      const res = await s.call('/api/v1/keys', { key: t.apiKey });
      const body = expectError(res, 429, 'rate_limit_exceeded');
      const retryAfter = res.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(body.retry_after)).toBe(true);
      expect(body.retry_after).toBe(Number(retryAfter));
      expect(body.limit).toBe(10);
      expect(new Date(body.reset_at).toISOString()).toBe(body.reset_at);
      expect(Date.parse(body.reset_at)).toBeGreaterThan(Date.now() - 1000);
      expect(typeof body.message).toBe('string');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // Another tenant on the same instances is not affected.
    const other = await b.register();
    expect((await a.call('/api/v1/keys', { key: other.apiKey })).status).toBe(200);
  });
});

describe.skipIf(needsMissing)('instances starting together', () => {
  it('both migrate one fresh database (advisory lock) and answer health 200', async () => {
    const db = await createTestDatabase({ empty: true });
    let servers: TestServer[] = [];
    try {
      const started = await Promise.allSettled([
        startTestServer({ backend: 'postgres', databaseUrl: db.url, redis: true }),
        startTestServer({ backend: 'postgres', databaseUrl: db.url, redis: true }),
      ]);
      servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      for (const r of started) if (r.status === 'rejected') throw r.reason;
      for (const s of servers) {
        const res = await s.call('/api/v1/health');
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ status: 'ok', checks: { database: 'ok', jobs: 'ok', redis: 'ok' } });
      }
      // The schema works from both: a tenant registered on one authenticates on the other.
      const t = await servers[0]!.register();
      expect((await servers[1]!.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    } finally {
      for (const s of servers) await s.close();
      await db.drop();
    }
  });
});
