/**
 * One tenant's hanging receiver does not hold up another tenant's deliveries
 * (src/jobs/webhooks.ts, lanes): a subscription gets at most SENDS_PER_SUBSCRIPTION requests at
 * once, its other attempts wait without taking the instance's slots, and those that wait too
 * long go back to the queue unmade (a new job for the same attempt): nothing is counted, lost or
 * sent twice.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookAttempts, webhookDeliveries } from '../../src/db/schema';
import { SENDS_PER_SUBSCRIPTION } from '../../src/jobs/webhooks';
import { DELIVERY_QUEUE } from '../../src/outbox';
import { backends, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

/** More than the instance's 128 slots could hold if one subscription could take them all. */
const HANGING_DELIVERIES = 150;

backends.describe('webhook deliveries across tenants (%s)', (backend) => {
  let s: TestServer;
  let hanging: Receiver;
  let healthy: Receiver;
  beforeAll(async () => {
    // The deadline outlasts the test's waits: without lanes the hanging receiver's attempts would hold every slot until it.
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '30000', WEBHOOK_RETRY_SCHEDULE_MS: '0,600000' },
    });
    hanging = await startReceiver(() => ({ status: 200, delayMs: 120_000 }));
    healthy = await startReceiver();
  });
  afterAll(async () => {
    await hanging?.close();
    await healthy?.close();
    await s?.close();
  });

  async function subscribedTenant(receiver: Receiver) {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const sub = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
    expect(sub.status, sub.text).toBe(201);
    return { ...t, subscriptionId: sub.body.id as string };
  }

  it("a hanging receiver holds its subscription's sends only; another tenant's delivery goes out meanwhile; waiting attempts go back unmade", async () => {
    const slow = await subscribedTenant(hanging);
    const fast = await subscribedTenant(healthy);
    const calls = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, module: 'text', action: 'slugify', input: { text: `Event ${i}` } }));
    for (let i = 0; i < HANGING_DELIVERIES / 10; i++) {
      const res = await s.call('/api/v1/batch', { key: slow.apiKey, body: { calls } });
      expect(res.status, res.text).toBe(200);
    }
    // Its receiver answers nothing: every send it gets stays open.
    await hanging.waitFor(SENDS_PER_SUBSCRIPTION);

    const res = await s.call('/api/v1/modules/text/execute', {
      key: fast.apiKey,
      body: { action: 'slugify', input: { text: 'Other tenant' } },
    });
    expect(res.status, res.text).toBe(200);
    const [got] = await healthy.waitFor(1, { timeoutMs: 15_000 });
    expect(got!.body.data.execution_id).toBe(res.body.execution_id);
    expect(hanging.received).toHaveLength(SENDS_PER_SUBSCRIPTION);

    // Attempts that waited too long were put back: their jobs completed, no attempt recorded.
    const slowDeliveries = s.svc.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, slow.subscriptionId));
    const completedJobs = async () => {
      const { rows } = await s.svc.boss
        .getDb()
        .executeSql(`select count(*)::int as n from pgboss.job where name = $1 and state = 'completed' and group_id = $2`, [
          DELIVERY_QUEUE,
          slow.subscriptionId,
        ]);
      return (rows[0] as { n: number }).n;
    };
    for (let tries = 0; (await completedJobs()) === 0 && tries < 150; tries++) await new Promise((r) => setTimeout(r, 100));
    expect(await completedJobs()).toBeGreaterThan(0);
    const [recorded] = await s.svc.db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, slowDeliveries));
    expect(Number(recorded!.n)).toBe(0);

    // The receiver goes away: every delivery gets its first attempt (refused), each exactly once.
    await hanging.close();
    const attempted = async () => {
      const rows = await s.svc.db
        .select({ attempts: webhookDeliveries.attempts })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.subscriptionId, slow.subscriptionId));
      return rows.filter((r) => r.attempts === 1).length;
    };
    for (let tries = 0; (await attempted()) < HANGING_DELIVERIES && tries < 300; tries++) await new Promise((r) => setTimeout(r, 100));
    expect(await attempted()).toBe(HANGING_DELIVERIES);
    const perDelivery = await s.svc.db
      .select({ deliveryId: webhookAttempts.deliveryId, n: sql<number>`count(*)::int` })
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, slowDeliveries))
      .groupBy(webhookAttempts.deliveryId);
    expect(perDelivery).toHaveLength(HANGING_DELIVERIES);
    expect(perDelivery.every((r) => Number(r.n) === 1)).toBe(true);
  });
});
