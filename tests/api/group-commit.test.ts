/**
 * The quota rule under group commit (docs/performance.md, Group commit): execution starts are
 * written together per flush (src/executions/records.ts), and still never more start than the quota allows, on any number
 * of instances, and usage always equals the recorded executions. On PostgreSQL two instances
 * share one database, so their flushes race on the same counter rows.
 */
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/auth/principal';
import { events, executions, usageCounters, webhookDeliveries } from '../../src/db/schema';
import { finishExecution, startExecution } from '../../src/executions/records';
import { AppError } from '../../src/lib/errors';
import { reserveExecutions } from '../../src/metering/usage';
import { PLANS, type Plan } from '../../src/tenants/plans';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

backends.describe('group-committed execution starts (%s)', (backend) => {
  let a: TestServer;
  /** A second instance on the same database (PostgreSQL); the same one in embedded mode. */
  let b: TestServer;

  /** Where the subscriptions of these tests point: it answers at once, so no send is left for a close to wait out. */
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    const env = { WEBHOOK_ALLOW_PRIVATE: '1' };
    a = await startTestServer({ backend, env });
    b = backend === 'postgres' ? await startTestServer({ backend, databaseUrl: a.config.databaseUrl, env }) : a;
  });
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
    await receiver?.close();
  });

  const principal = (tenantId: string, plan: Plan): Principal => ({
    tenantId,
    plan,
    requestsPerMinute: null,
    executionsPerMonth: null,
    overageUnitMicroUsd: null,
    monthlyFeeMicroUsd: null,
    scopes: ['*'],
    via: 'api_key',
  });
  const tenant = async (plan: Plan) => {
    const t = await a.register();
    if (plan !== 'free') await a.setPlan(t.tenantId, plan);
    return principal(t.tenantId, plan);
  };
  /** `n` starts at once, alternating between the instances. */
  const startMany = (p: Principal, n: number) =>
    Array.from({ length: n }, (_, i) =>
      startExecution(
        (i % 2 ? b : a).svc,
        p,
        { module: 'crypto', action: 'uuid', input: {} },
        { requestId: `req_gc_${i}`, source: 'api' },
        false,
      ),
    );
  const books = async (tenantId: string) => {
    const [rows] = await a.svc.db.select({ n: count() }).from(executions).where(eq(executions.tenantId, tenantId));
    const [usage] = await a.svc.db.select().from(usageCounters).where(eq(usageCounters.tenantId, tenantId));
    const billing = await a.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId)));
    return { recorded: rows!.n, used: usage?.executions ?? 0, overage: usage?.overage ?? 0, billing };
  };

  it('a free tenant 37 short of its quota, 160 starts racing over both instances with other tenants: exactly 37 start, the rest are quota_exceeded, usage equals recorded executions', async () => {
    const quota = PLANS.free.executionsPerMonth!;
    const edge = await tenant('free');
    await reserveExecutions(a.svc.db, edge, quota - 37);
    const others = await Promise.all([tenant('free'), tenant('pro'), tenant('enterprise')]);

    const [edgeResults, ...otherResults] = await Promise.all([
      Promise.allSettled(startMany(edge, 160)),
      ...others.map((p) => Promise.allSettled(startMany(p, 40))),
    ]);
    const started = edgeResults!.filter((r) => r.status === 'fulfilled');
    expect(started).toHaveLength(37);
    for (const r of edgeResults!) {
      if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('quota_exceeded');
    }
    const after = await books(edge.tenantId);
    // The reservation made before counts; the 37 started are recorded.
    expect(after.used).toBe(quota);
    expect(after.recorded).toBe(37);
    expect(after.billing.filter((e) => e.type === 'billing.limit_exceeded')).toHaveLength(1);
    expect(after.billing.find((e) => e.type === 'billing.limit_exceeded')!.data).toMatchObject({ used: quota, limit: quota });

    // The other tenants, sharing those flushes, all started and are counted exactly.
    for (const [i, p] of others.entries()) {
      expect(otherResults[i]!.every((r) => r.status === 'fulfilled')).toBe(true);
      expect(await books(p.tenantId)).toMatchObject({ recorded: 40, used: 40, overage: 0 });
    }
    // A started row is what its caller got.
    const first = (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof startExecution>>>).value;
    const [row] = await a.svc.db.select().from(executions).where(eq(executions.id, first.id));
    expect(row).toMatchObject({
      id: first.id,
      tenantId: edge.tenantId,
      status: 'running',
      module: 'crypto',
      action: 'uuid',
      source: 'api',
    });
    expect(row!.createdAt.getTime()).toBe(first.createdAt.getTime());
  }, 120_000);

  it('a pro tenant crossing 80% and 100% of its quota with 300 racing starts: all start, the overage is exact, each threshold event is recorded once at its exact count', async () => {
    const quota = PLANS.pro.executionsPerMonth!;
    const p = await tenant('pro');
    const before = quota * 0.8 - 100;
    await reserveExecutions(a.svc.db, p, before);
    // 100 to reach 80%, then 9,900 more would be needed for 100%: cross 100% with a second reservation.
    const first = await Promise.allSettled(startMany(p, 300));
    expect(first.every((r) => r.status === 'fulfilled')).toBe(true);
    await reserveExecutions(a.svc.db, p, quota - (before + 300) - 50);
    const second = await Promise.allSettled(startMany(p, 120));
    expect(second.every((r) => r.status === 'fulfilled')).toBe(true);

    const after = await books(p.tenantId);
    expect(after.used).toBe(quota + 70);
    expect(after.overage).toBe(70);
    expect(after.recorded).toBe(420);
    const approaching = after.billing.filter((e) => e.type === 'billing.limit_approaching');
    const exceeded = after.billing.filter((e) => e.type === 'billing.limit_exceeded');
    expect(approaching).toHaveLength(1);
    expect(approaching[0]!.data).toMatchObject({ used: quota * 0.8, limit: quota, percent: 80 });
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.data).toMatchObject({ used: quota, limit: quota, overage: true });
  }, 120_000);

  it('over HTTP: concurrent batches of crypto.uuid from both instances at the free quota edge never pass it, and usage equals recorded executions', async () => {
    const t = await a.register();
    const quota = PLANS.free.executionsPerMonth!;
    // Installed first, so every call of the race is group-committed.
    expect((await a.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'uuid', input: {} } })).status).toBe(200);
    await reserveExecutions(a.svc.db, principal(t.tenantId, 'free'), quota - 1 - 12);
    const calls = Array.from({ length: 10 }, () => ({ module: 'crypto', action: 'uuid', input: {} }));
    const batches = await Promise.all(
      Array.from({ length: 4 }, (_, i) => (i % 2 ? b : a).call('/api/v1/batch', { key: t.apiKey, body: { calls } })),
    );
    const results = batches.flatMap((r) => (r.body as { data: { status: string; error?: { code: string } }[] }).data);
    const succeeded = results.filter((r) => r.status === 'success').length;
    expect(succeeded).toBeLessThanOrEqual(12);
    for (const r of results) if (r.status === 'failed') expect(['quota_exceeded', 'concurrency_limit_exceeded']).toContain(r.error!.code);
    const after = await books(t.tenantId);
    expect(after.recorded).toBe(1 + succeeded);
    expect(after.used).toBe(quota - 12 + succeeded);
    // What is left of the quota is still there, and not one execution more.
    for (let i = succeeded; i < 12; i++) {
      expect((await b.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'uuid', input: {} } })).status).toBe(200);
    }
    expectError(
      await a.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'uuid', input: {} } }),
      429,
      'quota_exceeded',
    );
    expect(await books(t.tenantId)).toMatchObject({ recorded: 13, used: quota });
  }, 120_000);

  it('starts, finishes and inline records are written by their flush statements, never by the per-call fallback', async () => {
    const logged: string[] = [];
    const spies = (['warn', 'debug'] as const).map((level) =>
      vi.spyOn(a.svc.logger, level).mockImplementation(((_obj: unknown, msg?: string) => void logged.push(String(msg))) as never),
    );
    try {
      const quiet = await tenant('pro');
      const subscribed = await a.register();
      await a.setPlan(subscribed.tenantId, 'pro');
      expect((await a.call('/api/v1/webhooks', { key: subscribed.apiKey, body: { url: receiver.url, events: ['*'] } })).status).toBe(201);
      const loud = principal(subscribed.tenantId, 'pro');
      const rows = await Promise.all([...startMany(quiet, 20), ...startMany(loud, 20)]);
      const finished = await Promise.all(rows.map((row) => finishExecution(a.svc, row, { ok: true, output: { n: 1 } }, 1)));
      expect(finished.every((f) => f.finished.status === 'success')).toBe(true);
      const uuid = await Promise.all(
        Array.from({ length: 10 }, () =>
          a.call('/api/v1/modules/crypto/execute', { key: subscribed.apiKey, body: { action: 'uuid', input: {} } }),
        ),
      );
      expect(uuid.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(await books(quiet.tenantId)).toMatchObject({ recorded: 20, used: 20 });
      const deliveries = await a.svc.db
        .select({ n: count() })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.tenantId, subscribed.tenantId));
      // 20 completed here, 10 recorded inline, and crypto's installation.
      expect(deliveries[0]!.n).toBe(31);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(logged.filter((m) => /flush failed/.test(m))).toEqual([]);
  }, 120_000);

  it('inline calls of tenants without webhooks (one statement per flush): a threshold crossed mid-race is recorded once, and a subscription made between calls gets the next calls delivered', async () => {
    const quota = PLANS.pro.executionsPerMonth!;
    const crossing = await a.register();
    await a.setPlan(crossing.tenantId, 'pro');
    const uuid = (key: string, i: number) =>
      (i % 2 ? b : a).call('/api/v1/modules/crypto/execute', { key, body: { action: 'uuid', input: {} } });
    expect((await uuid(crossing.apiKey, 0)).status).toBe(200);
    await reserveExecutions(a.svc.db, principal(crossing.tenantId, 'pro'), Math.ceil(quota * 0.8) - 1 - 30);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => uuid(crossing.apiKey, i)));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    }
    const crossed = await books(crossing.tenantId);
    expect(crossed).toMatchObject({ recorded: 61, used: Math.ceil(quota * 0.8) - 1 - 30 + 61 });
    expect(crossed.billing.filter((e) => e.type === 'billing.limit_approaching')).toHaveLength(1);
    expect(crossed.billing.find((e) => e.type === 'billing.limit_approaching')!.data).toMatchObject({
      used: Math.ceil(quota * 0.8),
      limit: quota,
    });
    expect(crossed.billing.filter((e) => e.type === 'execution.completed')).toHaveLength(61);

    const subscribing = await a.register();
    await a.setPlan(subscribing.tenantId, 'pro');
    for (let i = 0; i < 5; i++) expect((await uuid(subscribing.apiKey, i)).status).toBe(200);
    const hook = await b.call('/api/v1/webhooks', {
      key: subscribing.apiKey,
      body: { url: receiver.url, events: ['execution.completed'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => uuid(subscribing.apiKey, i)));
    expect(after.map((r) => r.status)).toEqual(Array(6).fill(200));
    const deliveries = await a.svc.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, subscribing.tenantId));
    const delivered = await a.svc.db.select().from(events).where(eq(events.tenantId, subscribing.tenantId));
    const laterEvents = new Set(
      delivered
        .filter((e) => after.some((r) => (e.data as { execution_id?: string }).execution_id === r.body.execution_id))
        .map((e) => e.id),
    );
    expect(laterEvents.size).toBe(6);
    expect(new Set(deliveries.map((d) => d.eventId))).toEqual(laterEvents);
    expect(await books(subscribing.tenantId)).toMatchObject({ recorded: 11, used: 11 });
  }, 120_000);

  it('inline calls (crypto.uuid) are recorded in one commit: row, event, deliveries and thresholds exact across both instances; past a pausing quota nothing is recorded', async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'pro');
    const hook = await a.call('/api/v1/webhooks', {
      key: t.apiKey,
      body: { url: receiver.url, events: ['execution.completed', 'execution.failed'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const uuid = (i: number, input: Record<string, unknown> = {}) =>
      (i % 2 ? b : a).call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'uuid', input } });
    expect((await uuid(0)).status).toBe(200); // installs crypto: the race below is all inline calls
    const quota = PLANS.pro.executionsPerMonth!;
    await reserveExecutions(a.svc.db, principal(t.tenantId, 'pro'), Math.ceil(quota * 0.8) - 1 - 50);
    // Rounds of 20, within the plan's concurrency limit (25) even while the last round's slots are being given back, each racing across both instances.
    const answers: Awaited<ReturnType<typeof uuid>>[] = [];
    for (let round = 0; round < 5; round++) answers.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => uuid(i)))));
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    const invalid = await uuid(1, { version: 5 });
    const failed = expectError(invalid, 422, 'invalid_input').execution as { execution_id: string; status: string };
    expect(failed.status).toBe('failed');

    const rows = await a.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId));
    expect(rows).toHaveLength(102);
    const one = rows.find((r) => r.id === (answers[7]!.body.execution_id as string))!;
    expect(one).toMatchObject({ status: 'success', module: 'crypto', action: 'uuid', source: 'api', errorCode: null });
    expect(one.finishedAt!.getTime()).toBeGreaterThanOrEqual(one.createdAt.getTime());
    expect(one.output).toEqual(answers[7]!.body.output);
    expect(rows.find((r) => r.id === failed.execution_id)).toMatchObject({ status: 'failed', errorCode: 'invalid_input' });
    const evts = await a.svc.db.select().from(events).where(eq(events.tenantId, t.tenantId));
    expect(evts.filter((e) => e.type === 'execution.completed')).toHaveLength(101);
    expect(evts.filter((e) => e.type === 'execution.failed')).toHaveLength(1);
    const approaching = evts.filter((e) => e.type === 'billing.limit_approaching');
    expect(approaching).toHaveLength(1);
    expect(approaching[0]!.data).toMatchObject({ used: Math.ceil(quota * 0.8), limit: quota });
    const deliveries = await a.svc.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, t.tenantId));
    expect(deliveries[0]!.n).toBe(102);
    expect(await books(t.tenantId)).toMatchObject({ recorded: 102, used: Math.ceil(quota * 0.8) - 1 - 50 + 102 });

    // A free tenant at its quota: the call is refused, and nothing of it is recorded or counted.
    const free = await a.register();
    expect((await a.call('/api/v1/modules/crypto/execute', { key: free.apiKey, body: { action: 'uuid', input: {} } })).status).toBe(200);
    await reserveExecutions(a.svc.db, principal(free.tenantId, 'free'), PLANS.free.executionsPerMonth! - 1);
    expectError(
      await b.call('/api/v1/modules/crypto/execute', { key: free.apiKey, body: { action: 'uuid', input: {} } }),
      429,
      'quota_exceeded',
    );
    expect(await books(free.tenantId)).toMatchObject({ recorded: 1, used: PLANS.free.executionsPerMonth });
    const freeEvents = await a.svc.db.select().from(events).where(eq(events.tenantId, free.tenantId));
    expect(freeEvents.filter((e) => e.type.startsWith('execution.'))).toHaveLength(1);
  }, 120_000);
});
