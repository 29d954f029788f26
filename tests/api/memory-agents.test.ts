/** GET /api/v1/memory/agents: the tenant's agents with live entries, for the dashboard's agent picker. */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryEntries } from '../../src/db/schema';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('memory agents (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const put = (apiKey: string, agent_id: string, key: string) =>
    s.call('/api/v1/memory', { key: apiKey, body: { agent_id, key, value: { key } } });

  it('lists agents with their live entry counts, most recently updated first; other tenants and expired entries are not seen', async () => {
    const t = await s.register();
    const other = await s.register();
    expect((await s.call('/api/v1/memory/agents', { key: t.apiKey })).body).toEqual({ data: [], has_more: false });

    for (const [agent, key] of [
      ['alpha', 'a1'],
      ['alpha', 'a2'],
      ['beta', 'b1'],
    ])
      expect((await put(t.apiKey, agent!, key!)).status).toBe(201);
    expect((await put(other.apiKey, 'gamma', 'g1')).status).toBe(201);
    // An expired entry of a third agent: not live, not listed.
    await s.svc.db.insert(memoryEntries).values({
      tenantId: t.tenantId,
      agentId: 'expired-agent',
      key: 'x',
      value: sql`'1'::jsonb`,
      expiresAt: new Date(Date.now() - 60_000),
    });
    // alpha changes last.
    await s.svc.db
      .update(memoryEntries)
      .set({ updatedAt: new Date(Date.now() + 60_000) })
      .where(eq(memoryEntries.agentId, 'alpha'));

    const res = await s.call('/api/v1/memory/agents', { key: t.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.data.map((a: { agent_id: string; entries: number }) => [a.agent_id, a.entries])).toEqual([
      ['alpha', 2],
      ['beta', 1],
    ]);
    expect(Date.parse(res.body.data[0].last_updated_at)).toBeGreaterThan(Date.parse(res.body.data[1].last_updated_at));

    const limited = await s.call('/api/v1/memory/agents?limit=1', { key: t.apiKey });
    expect(limited.body).toMatchObject({ has_more: true, data: [{ agent_id: 'alpha' }] });

    const theirs = await s.call('/api/v1/memory/agents', { key: other.apiKey });
    expect(theirs.body.data.map((a: { agent_id: string }) => a.agent_id)).toEqual(['gamma']);
  });

  it('needs memory:read; refuses a bad limit', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro'); // the free plan has one key
    const exec = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'exec', scopes: ['modules:execute'] } });
    expect(exec.status, exec.text).toBe(201);
    expectError(await s.call('/api/v1/memory/agents', { key: exec.body.api_key }), 403, 'insufficient_scope');
    expectError(await s.call('/api/v1/memory/agents?limit=0', { key: t.apiKey }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/memory/agents?limit=101', { key: t.apiKey }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/memory/agents'), 401, 'unauthorized');
  });
});
