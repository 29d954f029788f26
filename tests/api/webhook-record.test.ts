/**
 * Recording made attempts (src/webhooks/deliver.ts recordAttempts), driven directly with the
 * delivery worker stopped: a group of successes is written by one statement, then its jobs are
 * completed. The rules are those of the transaction it replaced for that case: an attempt counts
 * once however often its job ran, the statistics add up, a success resets the failure count.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookAttempts, webhookDeliveries, webhookStats, webhookSubscriptions } from '../../src/db/schema';
import { prepareAttempts, recordAttempts, type FetchedJob, type MadeAttempt } from '../../src/webhooks/deliver';
import { stopDeliveryWorker } from '../../src/jobs/webhooks';
import { DELIVERY_QUEUE, type DeliveryJob } from '../../src/outbox';
import { queryRows } from '../../src/db';
import { backends, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

backends.describe('recording webhook attempts (%s)', (backend) => {
  let s: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,40,80,120' } });
    receiver = await startReceiver();
    await stopDeliveryWorker(s.svc);
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });

  const success = (latencyMs: number) => ({ success: true, statusCode: 200, latencyMs, error: null, responseBody: 'ok' });

  /** A pro tenant subscribed to the receiver, and the attempts of `n` executions' deliveries, fetched as the worker would. */
  async function pendingAttempts(n: number) {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const sub = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
    expect(sub.status, sub.text).toBe(201);
    for (let i = 0; i < n; i++) {
      const res = await s.call('/api/v1/modules/text/execute', {
        key: t.apiKey,
        body: { action: 'slugify', input: { text: `Event ${i}` } },
      });
      expect(res.status, res.text).toBe(200);
    }
    const jobs: FetchedJob[] = [];
    for (let tries = 0; jobs.length < n && tries < 50; tries++) {
      const fetched = await s.svc.boss.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: n });
      jobs.push(...fetched);
    }
    const prepared = await prepareAttempts(s.svc, jobs);
    expect(prepared.ready).toHaveLength(n);
    return { subscriptionId: sub.body.id as string, apiKey: t.apiKey, ready: prepared.ready };
  }

  it('a group of successes: each attempt once (a job that ran twice included), deliveries succeeded, stats, jobs completed', async () => {
    const { subscriptionId, apiKey, ready } = await pendingAttempts(3);
    await s.svc.db.update(webhookSubscriptions).set({ consecutiveFailures: 4 }).where(eq(webhookSubscriptions.id, subscriptionId));
    const made: MadeAttempt[] = ready.map((prepared, i) => ({ prepared, outcome: success(10 * (i + 1)) }));
    // The first attempt's job ran twice (it expired and was fetched again): both made it into the group.
    made.push({ prepared: ready[0]!, outcome: success(99) });

    expect(await recordAttempts(s.svc, made)).toEqual([]);
    // Recorded again (the jobs ran once more after a crash before their completion): nothing changes.
    expect(await recordAttempts(s.svc, made)).toEqual([]);

    const ids = ready.map((r) => r.deliveryId);
    const deliveries = await s.svc.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));
    expect(deliveries.map((d) => [d.status, d.attempts, d.nextAttemptAt])).toEqual(ids.map(() => ['succeeded', 1, null]));
    expect(deliveries.every((d) => d.completedAt instanceof Date)).toBe(true);
    const attempts = await s.svc.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids));
    expect(attempts.map((a) => [a.attempt, a.success, a.statusCode, a.responseBody]).sort()).toEqual(ids.map(() => [1, true, 200, 'ok']));
    expect(attempts.map((a) => a.latencyMs).sort()).toEqual([10, 20, 30]);

    const view = await s.call(`/api/v1/webhooks/${subscriptionId}`, { key: apiKey });
    expect(view.body.stats).toMatchObject({ success_rate: 1, avg_latency_ms: 20, total_deliveries: 3, consecutive_failures: 0 });

    const jobIds = ready.map((r) => r.jobId);
    const { rows } = await s.svc.boss
      .getDb()
      .executeSql(`select state from pgboss.job where name = $1 and id = any($2::uuid[])`, [DELIVERY_QUEUE, jobIds]);
    expect(rows.map((r: { state: string }) => r.state)).toEqual(jobIds.map(() => 'completed'));
  });

  it('a group with a failure keeps the ordered path: the retry is scheduled and the failure counted', async () => {
    const { subscriptionId, ready } = await pendingAttempts(2);
    const failed = { success: false, statusCode: 500, latencyMs: 5, error: 'The receiver answered 500.', responseBody: null };
    const retries = await recordAttempts(s.svc, [
      { prepared: ready[0]!, outcome: success(7) },
      { prepared: ready[1]!, outcome: failed },
    ]);
    expect(retries).toEqual([40]);
    const [pending] = await s.svc.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, ready[1]!.deliveryId));
    expect([pending!.status, pending!.attempts]).toEqual(['pending', 1]);
    const [sub] = await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, subscriptionId));
    // Failure counts are per finished delivery: a scheduled retry is not one yet.
    expect(sub!.consecutiveFailures).toBe(0);
  });

  // PostgreSQL only: PGlite has one connection, so nothing runs beside a transaction there.
  it.skipIf(backend !== 'postgres')('deleting a subscription while a recorder writes its attempts: no deadlock, both finish', async () => {
    const { subscriptionId, apiKey } = await pendingAttempts(1);
    const [{ id: deliveryId }] = (await s.svc.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, subscriptionId))) as [{ id: string }];
    let deleted: Promise<{ status: number; text: string }> | undefined;
    // What a recorder does, in its order: the delivery row first, then (statistics) the subscription's key.
    await s.svc.db.transaction(async (tx) => {
      await tx.update(webhookDeliveries).set({ attempts: 1, status: 'succeeded' }).where(eq(webhookDeliveries.id, deliveryId));
      deleted = s.call(`/api/v1/webhooks/${subscriptionId}`, { key: apiKey, method: 'DELETE' });
      // Until the DELETE waits for a lock (on the delivery this transaction holds).
      for (let i = 0; i < 100; i++) {
        const [row] = await queryRows<{ n: number }>(
          s.svc.db,
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (Number(row?.n) > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      // Before the fix the DELETE held the subscription row here, and this insert's foreign-key check deadlocked with it.
      await tx.insert(webhookStats).values({ subscriptionId, shard: 0, deliveriesSucceeded: 1 }).onConflictDoNothing();
    });
    const res = await deleted!;
    expect(res.status, res.text).toBe(200);
    expect(await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, subscriptionId))).toEqual([]);
  });
});
