import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryEntries } from '../../src/db/schema';
import { purgeExpiredMemory } from '../../src/memory/purge';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

const path = (agent: string, key: string) => `/api/v1/memory/${encodeURIComponent(agent)}/${encodeURIComponent(key)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

backends.describe('memory (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const rows = (tenantId: string) => s.svc.db.select().from(memoryEntries).where(eq(memoryEntries.tenantId, tenantId));

  /** `n` live entries inserted directly (one multi-row insert), to reach the plan limit quickly. */
  async function fill(tenantId: string, n: number, agentId = 'filler') {
    const values = Array.from({ length: n }, (_, i) => ({ tenantId, agentId, key: `k${i}`, value: sql`${JSON.stringify(i)}::jsonb` }));
    await s.svc.db.insert(memoryEntries).values(values);
  }

  it('creates (201), replaces (200) and reads an entry', async () => {
    const t = await s.register();
    const created = await s.call('/api/v1/memory', {
      key: t.apiKey,
      body: { agent_id: 'agent-1', key: 'profile', value: { name: 'Ada', langs: ['en', 'fr'] }, tags: ['user', 'user', 'prefs'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      agent_id: 'agent-1',
      key: 'profile',
      value: { name: 'Ada', langs: ['en', 'fr'] },
      tags: ['user', 'prefs'],
      expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);

    await sleep(5);
    const updated = await s.call('/api/v1/memory', {
      key: t.apiKey,
      body: { agent_id: 'agent-1', key: 'profile', value: null, ttl_seconds: 3600 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ value: null, tags: [], created_at: created.body.created_at });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThan(Date.parse(created.body.updated_at));
    const expiresIn = Date.parse(updated.body.expires_at) - Date.parse(updated.body.updated_at);
    expect(expiresIn).toBeGreaterThan(3_590_000);
    expect(expiresIn).toBeLessThan(3_610_000);

    const got = await s.call(path('agent-1', 'profile'), { key: t.apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(updated.body);

    // Any JSON value: scalars, strings, arrays.
    for (const value of ['text', 42, false, [1, { a: [] }]]) {
      const res = await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'agent-1', key: 'scalar', value } });
      expect(res.status).toBeLessThan(202);
      expect((await s.call(path('agent-1', 'scalar'), { key: t.apiKey })).body.value).toEqual(value);
    }
  });

  it('deletes an entry; keys with reserved characters travel URL-encoded', async () => {
    const t = await s.register();
    const key = 'notes/2024 Q1?#%&+é';
    expect((await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a:b.c_d-e', key, value: 1 } })).status).toBe(201);
    const got = await s.call(path('a:b.c_d-e', key), { key: t.apiKey });
    expect(got.status).toBe(200);
    expect(got.body.key).toBe(key);

    const deleted = await s.call(path('a:b.c_d-e', key), { method: 'DELETE', key: t.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ agent_id: 'a:b.c_d-e', key, deleted: true });
    expectError(await s.call(path('a:b.c_d-e', key), { key: t.apiKey }), 404, 'not_found');
    expectError(await s.call(path('a:b.c_d-e', key), { method: 'DELETE', key: t.apiKey }), 404, 'not_found');
    expect(await rows(t.tenantId)).toHaveLength(0);
  });

  it('lists newest-updated first, searches keys and values (q), filters by tag, paginates', async () => {
    const t = await s.register();
    const put = (key: string, value: unknown, tags?: string[]) =>
      s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'researcher', key, value, tags } });
    expect((await put('paris-trip', { note: 'Eiffel tower visit booked' }, ['travel'])).status).toBe(201);
    expect((await put('groceries', ['milk', 'eggs', 'bread'], ['todo'])).status).toBe(201);
    expect((await put('rome-trip', 'Colosseum tickets', ['travel', 'todo'])).status).toBe(201);
    expect((await put('meeting', { with: 'Bob', topic: 'budget' })).status).toBe(201);
    await sleep(5);
    expect((await put('groceries', ['milk', 'eggs', 'bread', 'tower cake'], ['todo'])).status).toBe(200);

    const all = await s.call('/api/v1/memory?agent_id=researcher', { key: t.apiKey });
    expect(all.status).toBe(200);
    expect(all.body.data[0].key).toBe('groceries');
    expect(all.body.data).toHaveLength(4);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });

    const q = async (query: string) =>
      (await s.call(`/api/v1/memory?agent_id=researcher&q=${encodeURIComponent(query)}`, { key: t.apiKey })).body.data
        .map((e: any) => e.key)
        .sort();
    expect(await q('tower')).toEqual(['groceries', 'paris-trip']);
    expect(await q('colosseum')).toEqual(['rome-trip']);
    expect(await q('trip')).toEqual(['paris-trip', 'rome-trip']); // hyphenated keys are searchable by their parts
    expect(await q('budget -eiffel')).toEqual(['meeting']);
    expect(await q('"Eiffel tower"')).toEqual(['paris-trip']);
    expect(await q('bob OR milk')).toEqual(['groceries', 'meeting']);
    expect(await q('(((')).toEqual([]); // any user syntax is accepted

    const tagged = await s.call('/api/v1/memory?agent_id=researcher&tag=travel', { key: t.apiKey });
    expect(tagged.body.data.map((e: any) => e.key).sort()).toEqual(['paris-trip', 'rome-trip']);
    const both = await s.call('/api/v1/memory?agent_id=researcher&tag=todo&q=tickets', { key: t.apiKey });
    expect(both.body.data.map((e: any) => e.key)).toEqual(['rome-trip']);

    const page1 = await s.call('/api/v1/memory?agent_id=researcher&limit=3', { key: t.apiKey });
    expect(page1.body.data).toHaveLength(3);
    expect(page1.body.has_more).toBe(true);
    const page2 = await s.call(`/api/v1/memory?agent_id=researcher&limit=3&cursor=${page1.body.next_cursor}`, { key: t.apiKey });
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...page1.body.data, ...page2.body.data].map((e: any) => e.key)).toEqual(all.body.data.map((e: any) => e.key));
    expectError(await s.call('/api/v1/memory?agent_id=researcher&cursor=garbage', { key: t.apiKey }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/memory', { key: t.apiKey }), 400, 'invalid_request');
  });

  it('expires entries after ttl_seconds: never returned, then purged', async () => {
    const t = await s.register();
    const res = await s.call('/api/v1/memory', {
      key: t.apiKey,
      body: { agent_id: 'ttl', key: 'short', value: 'soon gone', ttl_seconds: 1 },
    });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).not.toBeNull();
    expect((await s.call(path('ttl', 'short'), { key: t.apiKey })).status).toBe(200);
    await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'ttl', key: 'long', value: 'stays', ttl_seconds: 3600 } });

    await sleep(1_100);
    expectError(await s.call(path('ttl', 'short'), { key: t.apiKey }), 404, 'not_found');
    const list = await s.call('/api/v1/memory?agent_id=ttl', { key: t.apiKey });
    expect(list.body.data.map((e: any) => e.key)).toEqual(['long']);
    expect((await s.call('/api/v1/memory?agent_id=ttl&q=soon', { key: t.apiKey })).body.data).toEqual([]);
    expectError(await s.call(path('ttl', 'short'), { method: 'DELETE', key: t.apiKey }), 404, 'not_found');

    // Still stored until the purge runs.
    expect((await rows(t.tenantId)).map((r) => r.key).sort()).toEqual(['long', 'short']);
    expect(await purgeExpiredMemory(s.svc)).toBeGreaterThanOrEqual(1);
    expect((await rows(t.tenantId)).map((r) => r.key)).toEqual(['long']);

    // Writing an expired key creates a new entry.
    await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'ttl', key: 'again', value: 1, ttl_seconds: 1 } });
    await sleep(1_100);
    const recreated = await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'ttl', key: 'again', value: 2 } });
    expect(recreated.status).toBe(201);
    expect(recreated.body).toMatchObject({ value: 2, expires_at: null });
  });

  it('purges in batches', async () => {
    const t = await s.register();
    await fill(t.tenantId, 12, 'batch');
    await s.svc.db
      .update(memoryEntries)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(memoryEntries.tenantId, t.tenantId), eq(memoryEntries.agentId, 'batch')));
    expect(await purgeExpiredMemory(s.svc, 5)).toBeGreaterThanOrEqual(12);
    expect(await rows(t.tenantId)).toHaveLength(0);
  });

  it('isolates agents and tenants (404)', async () => {
    const a = await s.register();
    const b = await s.register();
    await s.call('/api/v1/memory', { key: a.apiKey, body: { agent_id: 'alpha', key: 'secret', value: 'a-only' } });

    expectError(await s.call(path('beta', 'secret'), { key: a.apiKey }), 404, 'not_found');
    expect((await s.call('/api/v1/memory?agent_id=beta', { key: a.apiKey })).body.data).toEqual([]);

    expectError(await s.call(path('alpha', 'secret'), { key: b.apiKey }), 404, 'not_found');
    expectError(await s.call(path('alpha', 'secret'), { method: 'DELETE', key: b.apiKey }), 404, 'not_found');
    expect((await s.call('/api/v1/memory?agent_id=alpha', { key: b.apiKey })).body.data).toEqual([]);
    expect((await s.call('/api/v1/memory?agent_id=alpha&q=secret', { key: b.apiKey })).body.data).toEqual([]);

    // The other tenant's write of the same agent and key is its own entry.
    const own = await s.call('/api/v1/memory', { key: b.apiKey, body: { agent_id: 'alpha', key: 'secret', value: 'b-only' } });
    expect(own.status).toBe(201);
    expect((await s.call(path('alpha', 'secret'), { key: a.apiKey })).body.value).toBe('a-only');
    expect((await s.call(path('alpha', 'secret'), { key: b.apiKey })).body.value).toBe('b-only');
  });

  it('enforces memory:read and memory:write', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const newKey = async (scopes: string[]) =>
      (await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'k', scopes } })).body.api_key as string;
    const reader = await newKey(['memory:read']);
    const writer = await newKey(['memory:write']);
    const other = await newKey(['modules:read']);

    expect((await s.call('/api/v1/memory', { key: writer, body: { agent_id: 'x', key: 'k', value: 1 } })).status).toBe(201);
    const denied = expectError(
      await s.call('/api/v1/memory', { key: reader, body: { agent_id: 'x', key: 'k', value: 2 } }),
      403,
      'insufficient_scope',
    );
    expect(denied.required_scope).toBe('memory:write');
    expect(expectError(await s.call(path('x', 'k'), { method: 'DELETE', key: reader }), 403, 'insufficient_scope').required_scope).toBe(
      'memory:write',
    );

    expect((await s.call(path('x', 'k'), { key: reader })).body.value).toBe(1);
    expect((await s.call('/api/v1/memory?agent_id=x', { key: reader })).status).toBe(200);
    expect(expectError(await s.call(path('x', 'k'), { key: writer }), 403, 'insufficient_scope').required_scope).toBe('memory:read');
    expect(expectError(await s.call('/api/v1/memory?agent_id=x', { key: other }), 403, 'insufficient_scope').required_scope).toBe(
      'memory:read',
    );
    expect(
      expectError(await s.call('/api/v1/memory', { key: other, body: { agent_id: 'x', key: 'k', value: 3 } }), 403, 'insufficient_scope')
        .required_scope,
    ).toBe('memory:write');
    expect((await s.call(path('x', 'k'), { method: 'DELETE', key: writer })).status).toBe(200);
  });

  it('validates the body: value up to 64 KiB, agent ids, tags, ttl, unknown fields', async () => {
    const t = await s.register();
    const post = (body: unknown) => s.call('/api/v1/memory', { key: t.apiKey, body });
    // 65,534 characters + 2 quotes = exactly 65,536 bytes of JSON.
    expect((await post({ agent_id: 'v', key: 'max', value: 'x'.repeat(65_534) })).status).toBe(201);
    const big = expectError(await post({ agent_id: 'v', key: 'big', value: 'x'.repeat(65_535) }), 400, 'invalid_request');
    expect(big.issues).toEqual([{ path: 'value', message: expect.stringContaining('65536') }]);
    const nested = expectError(await post({ agent_id: 'v', key: 'big', value: { a: 'é'.repeat(33_000) } }), 400, 'invalid_request');
    expect(nested.issues[0].path).toBe('value');

    const bad = async (body: unknown, issuePath: string) => {
      const err = expectError(await post(body), 400, 'invalid_request');
      expect(err.issues.map((i: any) => i.path)).toContain(issuePath);
    };
    await bad({ agent_id: 'v', key: 'k' }, 'value');
    await bad({ agent_id: 'has space', key: 'k', value: 1 }, 'agent_id');
    await bad({ agent_id: 'a'.repeat(129), key: 'k', value: 1 }, 'agent_id');
    await bad({ agent_id: 'v', key: '', value: 1 }, 'key');
    await bad({ agent_id: 'v', key: 'k'.repeat(257), value: 1 }, 'key');
    await bad({ agent_id: 'v', key: 'nul\u0000', value: 1 }, 'key');
    await bad({ agent_id: 'v', key: 'k', value: { s: 'nul\u0000' } }, 'value');
    await bad({ agent_id: 'v', key: 'k', value: ['lone \ud800 surrogate'] }, 'value');
    await bad({ agent_id: 'v', key: 'k', value: { ['\udc00']: 1 } }, 'value');
    await bad({ agent_id: 'v', key: 'k', value: 1, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags');
    await bad({ agent_id: 'v', key: 'k', value: 1, tags: ['x'.repeat(65)] }, 'tags.0');
    await bad({ agent_id: 'v', key: 'k', value: 1, ttl_seconds: 0 }, 'ttl_seconds');
    await bad({ agent_id: 'v', key: 'k', value: 1, ttl_seconds: 31_536_001 }, 'ttl_seconds');
    await bad({ agent_id: 'v', key: 'k', value: 1, ttl_seconds: 1.5 }, 'ttl_seconds');
    expectError(await post({ agent_id: 'v', key: 'k', value: 1, ttl: 5 }), 400, 'invalid_request');
    expect(await rows(t.tenantId)).toHaveLength(1);
  });

  it("stops creating entries at the plan's limit (403 plan_required); updates still work", async () => {
    const t = await s.register();
    await fill(t.tenantId, 1_000);
    const err = expectError(
      await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'one-more', value: 1 } }),
      403,
      'plan_required',
    );
    expect(err.required_plan).toBe('pro');
    expect((await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'filler', key: 'k0', value: 'replaced' } })).status).toBe(
      200,
    );

    // Expired entries do not count.
    await s.svc.db
      .update(memoryEntries)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(memoryEntries.tenantId, t.tenantId), eq(memoryEntries.key, 'k1')));
    expect((await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'one-more', value: 1 } })).status).toBe(201);
    expectError(
      await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'two-more', value: 1 } }),
      403,
      'plan_required',
    );

    // A higher plan lifts the limit.
    await s.setPlan(t.tenantId, 'pro');
    expect((await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'two-more', value: 1 } })).status).toBe(201);
  });

  it('never lets concurrent creates pass the limit', async () => {
    const t = await s.register();
    await fill(t.tenantId, 995);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'race', key: `r${i}`, value: i } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 201)).toHaveLength(5);
    expect(statuses.filter((x) => x === 403)).toHaveLength(5);
    expect(await rows(t.tenantId)).toHaveLength(1_000);
  });
});
