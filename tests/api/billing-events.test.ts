/**
 * billing.limit_approaching (80% of the quota) and billing.limit_exceeded (100%): recorded in the
 * transaction of the reservation that crosses the mark, so exactly once per cycle however many
 * executions race across it (docs/billing.md, Events).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { events, usageCounters } from '../../src/db/schema';
import { cycleStart } from '../../src/metering/cycle';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('billing threshold events (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  /** Puts the tenant's counter for this cycle at `executions` (as if it had run them). */
  const setUsed = (tenantId: string, executions: number) =>
    s.svc.db
      .insert(usageCounters)
      .values({ tenantId, cycleStart: cycleStart(), executions })
      .onConflictDoUpdate({ target: [usageCounters.tenantId, usageCounters.cycleStart], set: { executions } });
  const used = async (tenantId: string) =>
    (
      await s.svc.db
        .select()
        .from(usageCounters)
        .where(and(eq(usageCounters.tenantId, tenantId), eq(usageCounters.cycleStart, cycleStart())))
    )[0]!.executions;
  const recorded = (tenantId: string, type: string) =>
    s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));
  const slugify = (key: string) => s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text: 'Hello' } } });

  it('200 executions racing across 80% (20 concurrent batches of 10) record limit_approaching exactly once', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'business');
    await setUsed(t.tenantId, 399_950);
    const calls = Array.from({ length: 10 }, () => ({ module: 'text', action: 'slugify', input: { text: 'Hello' } }));
    const answers = await Promise.all(Array.from({ length: 20 }, () => s.call('/api/v1/batch', { key: t.apiKey, body: { calls } })));
    const succeeded = answers.reduce((n, a) => n + (a.body.succeeded as number), 0);
    expect(succeeded).toBeGreaterThanOrEqual(50);
    expect(await used(t.tenantId)).toBe(399_950 + succeeded);

    const approaching = await recorded(t.tenantId, 'billing.limit_approaching');
    expect(approaching).toHaveLength(1);
    expect(approaching[0]!.data).toMatchObject({ tenant_id: t.tenantId, plan: 'business', limit: 500_000, used: 400_000, percent: 80 });
    expect(approaching[0]!.data.period_end).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    expect(await recorded(t.tenantId, 'billing.limit_exceeded')).toHaveLength(0);
  });

  it('pro: crossing the quota records limit_exceeded once (overage: true) and executions go on', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    await setUsed(t.tenantId, 49_990);
    const answers = await Promise.all(Array.from({ length: 20 }, () => slugify(t.apiKey)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const exceeded = await recorded(t.tenantId, 'billing.limit_exceeded');
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.data).toMatchObject({ plan: 'pro', used: 50_000, limit: 50_000, overage: true });
    // 80% was crossed long before (not by these executions): nothing for it now.
    expect(await recorded(t.tenantId, 'billing.limit_approaching')).toHaveLength(0);
  });

  it('free: the execution that reaches the quota records limit_exceeded (overage: false); then paused', async () => {
    const t = await s.register();
    await setUsed(t.tenantId, 995);
    for (let i = 0; i < 5; i++) expect((await slugify(t.apiKey)).status).toBe(200);
    expectError(await slugify(t.apiKey), 429, 'quota_exceeded');
    expectError(await slugify(t.apiKey), 429, 'quota_exceeded');
    const exceeded = await recorded(t.tenantId, 'billing.limit_exceeded');
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.data).toMatchObject({ plan: 'free', used: 1_000, limit: 1_000, overage: false });
  });

  it("the event carries exactly the documented data fields (delivery is the webhook suites' concern)", async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    await setUsed(t.tenantId, 39_999);
    expect((await slugify(t.apiKey)).status).toBe(200);
    const [event] = await recorded(t.tenantId, 'billing.limit_approaching');
    expect(Object.keys(event!.data).sort()).toEqual(['limit', 'percent', 'period_end', 'plan', 'tenant_id', 'used']);
  });
});
