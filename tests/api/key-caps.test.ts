import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { events, executions, keyUsageCounters, usageCounters } from '../../src/db/schema';
import { startMailbox, type Mailbox } from '../browser/mailbox';
import { backends, expectError, startTestServer, type ApiResponse, type TestServer } from '../harness';

/** A key's caps per billing cycle: executions_per_month and spend_cap_usd (docs/policies.md). */
backends.describe('key caps (%s)', (backend) => {
  let s: TestServer;
  let mailbox: Mailbox;
  beforeAll(async () => {
    mailbox = await startMailbox();
    s = await startTestServer({ backend, env: { SMTP_URL: mailbox.url } });
  });
  afterAll(async () => {
    await s?.close();
    await mailbox?.close();
  });

  async function tenantWithKey(plan: 'business' | 'enterprise', policy: Record<string, unknown>) {
    const t = await s.register();
    await s.setPlan(t.tenantId, plan);
    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'agent', policy } });
    expect(created.status, created.text).toBe(201);
    return { ...t, agentKey: created.body.api_key as string, keyId: created.body.key_id as string };
  }
  const uuid = (key: string) => s.call('/api/v1/modules/crypto/execute', { key, body: { action: 'uuid', input: {} } });
  const keyEvents = async (tenantId: string, type: string) =>
    (
      await s.svc.db
        .select()
        .from(events)
        .where(and(eq(events.tenantId, tenantId), eq(events.type, type)))
    ).map((e) => e.data);
  const statuses = (answers: ApiResponse[]) => answers.map((a) => a.status).sort();

  it('200 racing executions against a cap of 37: exactly 37 run, the rest are refused with 429 key_limit_exceeded', async () => {
    const t = await tenantWithKey('enterprise', { executions_per_month: 37 });
    await uuid(t.apiKey); // installs the module, with the uncapped primary key
    const answers = await Promise.all(Array.from({ length: 200 }, () => uuid(t.agentKey)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(37);
    const refused = answers.filter((a) => a.status !== 200);
    expect(new Set(refused.map((a) => `${a.status} ${a.body.error}`))).toEqual(new Set(['429 key_limit_exceeded']));
    const body = expectError(refused[0]!, 429, 'key_limit_exceeded');
    expect(body).toMatchObject({ limit: 'executions_per_month', cap: 37 });
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(new Date(body.reset_at).getUTCDate()).toBe(1);

    const recorded = await s.svc.db.select().from(executions).where(eq(executions.keyId, t.keyId));
    expect(recorded).toHaveLength(37);
    const [counter] = await s.svc.db.select().from(keyUsageCounters).where(eq(keyUsageCounters.keyId, t.keyId));
    expect(counter!.executions).toBe(37);
    // 80% of 37 is reached at the 30th; the cap at the 37th: each once.
    expect(await keyEvents(t.tenantId, 'key.limit_approaching')).toEqual([
      expect.objectContaining({ key_id: t.keyId, limit: 'executions_per_month', used: 30, cap: 37 }),
    ]);
    expect(await keyEvents(t.tenantId, 'key.limit_exceeded')).toEqual([
      expect.objectContaining({ key_id: t.keyId, limit: 'executions_per_month', used: 37, cap: 37 }),
    ]);
    // The tenant's other keys are not capped by it.
    expect((await uuid(t.apiKey)).status).toBe(200);
  }, 120_000);

  it("a spend cap is priced at the tenant's price per execution: 0.05 USD at 0.001 is 50 executions", async () => {
    const t = await tenantWithKey('business', { spend_cap_usd: '0.05' });
    await uuid(t.apiKey);
    const answers: ApiResponse[] = [];
    for (let wave = 0; wave < 3; wave++) answers.push(...(await Promise.all(Array.from({ length: 20 }, () => uuid(t.agentKey)))));
    expect(statuses(answers)).toEqual([...Array(50).fill(200), ...Array(10).fill(429)]);
    const body = expectError(
      answers.find((a) => a.status === 429)!,
      429,
      'key_limit_exceeded',
    );
    expect(body).toMatchObject({ limit: 'spend_cap_usd', cap: '0.05' });
    const [counter] = await s.svc.db.select().from(keyUsageCounters).where(eq(keyUsageCounters.keyId, t.keyId));
    expect(counter).toMatchObject({ executions: 50, spendMicroUsd: 50_000 });
    expect(await keyEvents(t.tenantId, 'key.limit_approaching')).toEqual([
      expect.objectContaining({ limit: 'spend_cap_usd', used: '0.04', cap: '0.05' }),
    ]);
    expect(await keyEvents(t.tenantId, 'key.limit_exceeded')).toEqual([
      expect.objectContaining({ limit: 'spend_cap_usd', used: '0.05', cap: '0.05' }),
    ]);
  }, 120_000);

  it('raising the cap lets the key run again within the cycle, and the events stay once per cycle', async () => {
    const t = await tenantWithKey('enterprise', { executions_per_month: 2 });
    await uuid(t.apiKey);
    expect(statuses(await Promise.all([uuid(t.agentKey), uuid(t.agentKey), uuid(t.agentKey)]))).toEqual([200, 200, 429]);
    const raised = await s.call(`/api/v1/keys/${t.keyId}/policy`, { key: t.apiKey, method: 'PUT', body: { executions_per_month: 4 } });
    expect(raised.status, raised.text).toBe(200);
    expect(statuses(await Promise.all([uuid(t.agentKey), uuid(t.agentKey), uuid(t.agentKey)]))).toEqual([200, 200, 429]);
    const cleared = await s.call(`/api/v1/keys/${t.keyId}/policy`, { key: t.apiKey, method: 'PUT', body: { executions_per_month: null } });
    expect(cleared.body.policy).toBeNull();
    expect((await uuid(t.agentKey)).status).toBe(200);
    expect(await keyEvents(t.tenantId, 'key.limit_exceeded')).toHaveLength(1);
  }, 60_000);

  it('batch: calls past the cap fail alone; chain: a step past the cap fails the chain there', async () => {
    const t = await tenantWithKey('enterprise', { executions_per_month: 3 });
    await uuid(t.apiKey);
    const calls = Array.from({ length: 5 }, () => ({ module: 'crypto', action: 'uuid', input: {} }));
    const batch = await s.call('/api/v1/batch', { key: t.agentKey, body: { calls } });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body).toMatchObject({ succeeded: 3, failed: 2 });
    expect(batch.body.data.filter((r: any) => r.status === 'failed').map((r: any) => r.error.code)).toEqual([
      'key_limit_exceeded',
      'key_limit_exceeded',
    ]);
  }, 60_000);

  it("a call its tenant's quota refuses is not counted against the key's cap", async () => {
    const t = await s.register(); // free: a pausing quota of 1,000 executions, 5 at a time
    const [own] = (await s.call('/api/v1/keys', { key: t.apiKey, method: 'GET' })).body.data;
    const capped = await s.call(`/api/v1/keys/${own.key_id}/policy`, { key: t.apiKey, method: 'PUT', body: { executions_per_month: 100 } });
    expect(capped.status, capped.text).toBe(200);
    expect((await uuid(t.apiKey)).status).toBe(200);
    await s.svc.db.update(usageCounters).set({ executions: 997 }).where(eq(usageCounters.tenantId, t.tenantId));
    const answers = await Promise.all(Array.from({ length: 5 }, () => uuid(t.apiKey)));
    expect(answers.map((a) => `${a.status} ${a.body.error ?? ''}`).sort()).toEqual([
      ...Array(3).fill('200 '),
      ...Array(2).fill('429 quota_exceeded'),
    ]);
    const [counter] = await s.svc.db.select().from(keyUsageCounters).where(eq(keyUsageCounters.keyId, own.key_id));
    expect(counter).toMatchObject({ executions: 4 });
  }, 60_000);

  it("the tenant's owner is mailed once near the cap and once at it", async () => {
    const t = await tenantWithKey('enterprise', { executions_per_month: 5 });
    await uuid(t.apiKey);
    for (let i = 0; i < 7; i++) await uuid(t.agentKey);
    const near = await mailbox.waitFor(t.email, /near its limit/);
    expect(near.text).toContain('4 executions of the 5 executions');
    const reached = await mailbox.waitFor(t.email, /reached its limit/);
    expect(reached.text).toContain('Your other keys are not affected');
    expect(mailbox.all(t.email, /limit/)).toHaveLength(2);
  }, 60_000);
});
