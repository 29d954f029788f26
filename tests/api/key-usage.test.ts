/**
 * GET /api/v1/keys/{key_id}/usage: one key's executions per UTC day by outcome (its own, of its
 * own tenant), its spend, the requests its policy refused by day and reason; another tenant's key
 * is 404 and a cycle that is malformed, not begun or before the key is 400. Both backends.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyUsageCounters } from '../../src/db/schema';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The current cycle and its neighbours (UTC calendar months). */
function cycles(now = new Date()) {
  const at = (months: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  const name = (d: Date) => d.toISOString().slice(0, 7);
  return { start: at(0), end: at(1), current: name(at(0)), previous: name(at(-1)), next: name(at(1)) };
}

backends.describe('key usage (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const usage = (key: string, keyId: string, query = '') => s.call(`/api/v1/keys/${keyId}/usage${query}`, { key });
  const execute = (key: string, module: string, action: string, input: unknown) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body: { action, input } });

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    return t;
  }

  /** Execution records of `keyId` in `tenantId` at `at`, as a script's executions leave them. */
  async function seedExecutions(tenantId: string, keyId: string, at: Date, status: 'success' | 'failed', n: number) {
    const tag = Math.random().toString(36).slice(2, 10);
    await s.svc.db.execute(sql`
      insert into executions (id, tenant_id, module, action, status, request_id, input_bytes, created_at, source, key_id)
      select 'exe_seed_' || ${tag} || '_' || g, ${tenantId}::uuid, 'text', 'slugify', ${status}, 'req_seed', 0, ${at.toISOString()}::timestamptz, 'api', ${keyId}
      from generate_series(1, ${n}::int) g`);
  }

  it("counts the key's executions per day by outcome, its spend and its refusals; nothing of other keys or tenants", async () => {
    const t = await proTenant();
    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'bot', policy: { modules: ['text'] } } });
    expect(created.status).toBe(201);
    const { key_id: keyId, api_key: botKey } = created.body;

    // Today, through the API: two successes and one failure (invalid input is an execution) by the key.
    expect((await execute(botKey, 'text', 'slugify', { text: 'Hello' })).status).toBe(200);
    expect((await execute(botKey, 'text', 'slugify', { text: 'World' })).status).toBe(200);
    expectError(await execute(botKey, 'text', 'slugify', { text: 1 }), 422, 'invalid_input');
    // Refused by the key's policy: not an execution, a refusal by reason.
    expect(expectError(await execute(botKey, 'json', 'parse', { text: '{}' }), 403, 'policy_denied').reason).toBe('module_not_allowed');
    // The primary key's execution is not the bot's.
    expect((await execute(t.apiKey, 'text', 'slugify', { text: 'primary' })).status).toBe(200);

    // The first day of the cycle: records of the key, and a record another tenant holds under the same key id.
    const { start, end } = cycles();
    const firstDay = new Date(start.getTime() + 1000);
    await seedExecutions(t.tenantId, keyId, firstDay, 'success', 3);
    await seedExecutions(t.tenantId, keyId, firstDay, 'failed', 1);
    const other = await s.register();
    await seedExecutions(other.tenantId, keyId, firstDay, 'success', 5);
    await s.svc.db
      .insert(keyUsageCounters)
      .values({ keyId, tenantId: t.tenantId, cycleStart: start.toISOString().slice(0, 10), executions: 7, spendMicroUsd: 1_234_567 })
      .onConflictDoUpdate({ target: [keyUsageCounters.keyId, keyUsageCounters.cycleStart], set: { spendMicroUsd: 1_234_567 } });

    // The refusal is written off the request path: read until it shows.
    let res = await usage(t.apiKey, keyId);
    for (let i = 0; i < 200 && res.body.refusals?.length === 0; i++) {
      await sleep(100);
      res = await usage(t.apiKey, keyId);
    }
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const first = start.toISOString().slice(0, 10);
    expect(res.body).toMatchObject({
      key_id: keyId,
      cycle: { start: start.toISOString(), end: end.toISOString() },
      executions: { total: 7, succeeded: 5, failed: 2 },
      spend_usd: '1.23',
      refusals: [{ reason: 'module_not_allowed', count: 1 }],
    });
    const days = res.body.days as { date: string; succeeded: number; failed: number; refused: number }[];
    expect(days[0]!.date).toBe(first);
    expect(days.at(-1)!.date).toBe(today);
    expect(days).toHaveLength(new Date().getUTCDate());
    const byDate = new Map(days.map((d) => [d.date, d]));
    const expected = new Map<string, { succeeded: number; failed: number; refused: number }>();
    const add = (date: string, d: { succeeded: number; failed: number; refused: number }) => {
      const e = expected.get(date) ?? { succeeded: 0, failed: 0, refused: 0 };
      expected.set(date, { succeeded: e.succeeded + d.succeeded, failed: e.failed + d.failed, refused: e.refused + d.refused });
    };
    add(first, { succeeded: 3, failed: 1, refused: 0 });
    add(today, { succeeded: 2, failed: 1, refused: 1 });
    for (const d of days) expect(d, d.date).toEqual({ date: d.date, ...(expected.get(d.date) ?? { succeeded: 0, failed: 0, refused: 0 }) });
    expect(byDate.get(today)).toBeDefined();

    // A key of no refusals and no counter: zeros, and "0.00".
    const primaryId = (await s.call('/api/v1/keys', { key: t.apiKey })).body.data.find((k: any) => k.primary).key_id;
    const primary = await usage(t.apiKey, primaryId);
    expect(primary.body).toMatchObject({ executions: { total: 1, succeeded: 1, failed: 0 }, spend_usd: '0.00', refusals: [] });

    // The same call over tRPC answers the same numbers.
    const trpc = await s.call(`/api/trpc/keys.usage?input=${encodeURIComponent(JSON.stringify({ key_id: keyId }))}`, { key: t.apiKey });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data).toEqual(res.body);
  });

  it("another tenant's key, an unknown key or a revoked one is 404; a key without keys:manage is 403", async () => {
    const a = await proTenant();
    const b = await proTenant();
    const made = await s.call('/api/v1/keys', { key: a.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    expectError(await usage(b.apiKey, made.body.key_id), 404, 'not_found');
    expectError(await usage(a.apiKey, 'key_doesnotexist'), 404, 'not_found');
    const denied = expectError(await usage(made.body.api_key, made.body.key_id), 403, 'insufficient_scope');
    expect(denied.required_scope).toBe('keys:manage');
    expect((await s.call(`/api/v1/keys/${made.body.key_id}`, { method: 'DELETE', key: a.apiKey })).status).toBe(200);
    expectError(await usage(a.apiKey, made.body.key_id), 404, 'not_found');
  });

  it('?cycle: malformed, not begun, or before the key was created is 400 invalid_request with issues', async () => {
    const t = await proTenant();
    const keyId = (await s.call('/api/v1/keys', { key: t.apiKey })).body.data[0].key_id;
    const { current, previous, next } = cycles();
    for (const bad of ['2026-13', '2026-1', 'november', '2026-11-01']) {
      const body = expectError(await usage(t.apiKey, keyId, `?cycle=${bad}`), 400, 'invalid_request');
      expect(body.issues, bad).toEqual([{ path: 'cycle', message: 'A billing cycle is written YYYY-MM (e.g. 2026-11)' }]);
    }
    const notBegun = expectError(await usage(t.apiKey, keyId, `?cycle=${next}`), 400, 'invalid_request');
    expect(notBegun.issues).toEqual([{ path: 'cycle', message: `Not later than ${current}` }]);
    const beforeKey = expectError(await usage(t.apiKey, keyId, `?cycle=${previous}`), 400, 'invalid_request');
    expect(beforeKey.issues).toEqual([{ path: 'cycle', message: `Not earlier than ${current}` }]);
    expectError(await usage(t.apiKey, keyId, '?month=2026-11'), 400, 'invalid_request');
    const ok = await usage(t.apiKey, keyId, `?cycle=${current}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ executions: { total: 0, succeeded: 0, failed: 0 }, spend_usd: '0.00', refusals: [] });
  });
});
