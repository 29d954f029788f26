/**
 * Crash recovery of webhook delivery: the service runs as a child process (tests/child-service.ts),
 * a receiver refuses (503) the first attempt of every delivery, the process is
 * killed with SIGKILL while the retries wait in the database, and a new process on the same data
 * (the same PGlite DATA_DIR, or the same PostgreSQL database) must deliver every event.
 * At-least-once: the same event id may arrive twice (counted and printed, not a failure).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, backends, createTestDatabase, TEST_REDIS_URL, type Backend } from '../harness';
import { call, killChild, startChild, until, type Child } from '../child-service';
import { startReceiver, verifySignature, type Received, type Receiver } from '../receiver';

const EXECUTIONS = 10;
/** Short retries, but a long last gap: even on a slow machine no delivery can exhaust its
 * attempts (and fail for good) before the kill. */
const RETRY_SCHEDULE_MS = '0,1500,3000,15000';
/** How long the restarted service gets to deliver everything (a job claimed at the moment of the
 * kill comes back only after pg-boss expires it: expireInSeconds + its supervise interval). */
const DELIVER_DEADLINE_MS = 150_000;

const header = (r: Received, name: string) => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** pg-boss's view of the delivery queue, for failure reports. PGlite can only be opened once the service is gone. */
async function jobStates(backend: Backend, ctx: { databaseUrl?: string; dataDir: string }): Promise<unknown> {
  const sql = `select state, data->>'deliveryId' as delivery, (data->>'attempt')::int as attempt, retry_count, start_after, started_on, completed_on
               from pgboss.job where name = 'webhook-delivery' order by created_on`;
  if (backend === 'postgres') {
    const c = new pg.Client({ connectionString: ctx.databaseUrl });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: path.join(ctx.dataDir, 'pglite') });
  try {
    return (await db.query(sql)).rows;
  } finally {
    await db.close();
  }
}

backends.describe('webhook delivery after a crash (%s)', (backend) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-webhook-crash-'));
  const children: Child[] = [];
  let receiver: Receiver | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;

  afterAll(async () => {
    for (const c of children) await killChild(c, 'SIGKILL');
    await receiver?.close();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL with retries pending: a restarted service delivers every event, signed', async () => {
    const env: Record<string, string | undefined> = {
      AMP_NO_NEXT: '1',
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'error',
      REGISTER_LIMIT_PER_HOUR: '10000',
    };
    let databaseUrl: string | undefined;
    if (backend === 'postgres') {
      const db = await createTestDatabase();
      dropDatabase = db.drop;
      databaseUrl = db.url;
      env.DATABASE_URL = db.url;
      env.REDIS_URL = TEST_REDIS_URL;
    }

    // Every answer the receiver gave, by request index (receiver.received[i] got answers[i]).
    const answers: number[] = [];
    let answer = 503;
    receiver = await startReceiver((_req, i) => {
      answers[i] = answer;
      return { status: answer };
    });
    const rx = receiver;

    // 1. First process: tenant on Pro, a subscription to everything, executions.
    let t0 = Date.now();
    const first = await startChild(env);
    children.push(first);
    console.log(`[webhook-recovery:${backend}] first process healthy in ${Date.now() - t0} ms`);

    const reg = await call(first, '/api/v1/auth/register', {
      body: { agent_name: 'crash-agent', owner_email: `crash-${randomBytes(4).toString('hex')}@example.com` },
    });
    expect(reg.status, reg.text).toBe(201);
    const apiKey: string = reg.body.api_key;
    const plan = await call(first, `/api/v1/admin/tenants/${reg.body.tenant_id}/plan`, {
      method: 'PUT',
      admin: true,
      body: { plan: 'pro' },
    });
    expect(plan.status, plan.text).toBe(200);
    const sub = await call(first, '/api/v1/webhooks', { key: apiKey, body: { url: rx.url, events: ['*'] } });
    expect(sub.status, sub.text).toBe(201);
    const webhookId: string = sub.body.id;
    const secret: string = sub.body.secret;
    expect(secret).toMatch(/^whsec_/);

    for (let i = 0; i < EXECUTIONS; i++) {
      const res = await call(first, '/api/v1/modules/text/execute', {
        key: apiKey,
        body: { action: 'slugify', input: { text: `Hello ${i}` } },
      });
      expect(res.status, res.text).toBe(200);
    }

    // 2. Every delivery has had its (refused) first attempt recorded; retries wait in the database.
    const firstAttempts = (r: Received) => header(r, 'x-webhook-attempt') === '1';
    await rx.waitFor(EXECUTIONS, {
      timeoutMs: 60_000,
      filter: (r) => firstAttempts(r) && header(r, 'x-webhook-event') === 'execution.completed',
    });
    const before = await until(
      'every delivery to have a recorded first attempt',
      async () => {
        const res = await call(first, `/api/v1/webhooks/${webhookId}`, { key: apiKey });
        expect(res.status, res.text).toBe(200);
        const deliveries: any[] = res.body.deliveries;
        const seen = new Set(rx.received.filter(firstAttempts).map((r) => header(r, 'x-webhook-id')));
        const ready = deliveries.length > EXECUTIONS && deliveries.every((d) => d.attempt >= 1 && seen.has(d.event_id));
        return ready ? res.body : undefined;
      },
      60_000,
    );
    // The events emitted: collected from the refused first attempts.
    const emitted = new Map<string, string>();
    rx.received.forEach((r, i) => {
      if (!firstAttempts(r)) return;
      expect(answers[i]).toBe(503);
      emitted.set(header(r, 'x-webhook-id')!, header(r, 'x-webhook-event')!);
    });
    expect([...emitted.values()].filter((e) => e === 'execution.completed')).toHaveLength(EXECUTIONS);
    expect([...emitted.values()]).toContain('module.installed');
    expect(new Set(before.deliveries.map((d: any) => d.event_id))).toEqual(new Set(emitted.keys()));
    const pendingAtKill = before.deliveries.filter((d: any) => d.status === 'pending').length;

    // 3. Crash: SIGKILL, no graceful anything. The receiver recovers meanwhile.
    first.proc.kill('SIGKILL');
    await first.exited;
    const requestsBeforeRestart = rx.received.length;
    answer = 200;
    console.log(
      `[webhook-recovery:${backend}] killed with ${emitted.size} events, ${pendingAtKill} deliveries pending, ${requestsBeforeRestart} requests received (attempts ≥ 2 before kill: ${rx.received.filter((r) => !firstAttempts(r)).length})`,
    );

    t0 = Date.now();
    const second = await startChild(env);
    children.push(second);
    const restartMs = Date.now() - t0;

    // 4. Every emitted event arrives with a 2xx answer.
    const deliveredOk = () =>
      new Set(rx.received.filter((_r, i) => answers[i]! >= 200 && answers[i]! < 300).map((r) => header(r, 'x-webhook-id')));
    try {
      await until('every event to be delivered', async () => [...emitted.keys()].every((id) => deliveredOk().has(id)), DELIVER_DEADLINE_MS);
    } catch (err) {
      const missing = [...emitted.keys()].filter((id) => !deliveredOk().has(id));
      const view = await call(second, `/api/v1/webhooks/${webhookId}`, { key: apiKey }).catch((e: unknown) => ({ text: String(e) }));
      await killChild(second, 'SIGTERM');
      const jobs = await jobStates(backend, { databaseUrl, dataDir }).catch((e: unknown) => String(e));
      throw new Error(
        `${(err as Error).message}: ${missing.length} of ${emitted.size} events never arrived with a 2xx: ${missing.join(', ')}\n` +
          `GET /api/v1/webhooks/${webhookId}: ${view.text}\npgboss.job: ${JSON.stringify(jobs, null, 1)}\nservice output:\n${second.output()}`,
        { cause: err },
      );
    }
    const deliverMs = Date.now() - t0;

    // Each request (every attempt, before and after the crash) is signed with the subscription's secret.
    for (const r of rx.received) {
      expect(verifySignature(secret, r.raw, r.headers['x-webhook-signature']), `signature of ${header(r, 'x-webhook-id')}`).toBe(true);
      expect(r.body?.id).toBe(header(r, 'x-webhook-id'));
    }

    // The history settles: one delivery per event, all succeeded, nothing lost.
    const settled = await until(
      'every delivery to settle',
      async () => {
        const res = await call(second, `/api/v1/webhooks/${webhookId}`, { key: apiKey });
        return res.status === 200 && res.body.deliveries.every((d: any) => d.status !== 'pending') ? res.body : undefined;
      },
      60_000,
    );
    const byEvent = new Map<string, any[]>();
    for (const d of settled.deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
    expect(new Set(byEvent.keys())).toEqual(new Set(emitted.keys()));
    for (const [id, ds] of byEvent) {
      expect(ds, `deliveries of ${id}`).toHaveLength(1);
      expect(ds[0].status, `delivery of ${id}: ${JSON.stringify(ds[0])}`).toBe('succeeded');
      expect(ds[0].attempts.at(-1).success).toBe(true);
      expect(ds[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 503, success: false });
    }
    expect(settled.stats).toMatchObject({
      total_deliveries: emitted.size,
      succeeded_deliveries: emitted.size,
      failed_deliveries: 0,
      pending_deliveries: 0,
      consecutive_failures: 0,
    });
    expect(settled.status).toBe('active');

    // At-least-once: duplicates are allowed, only counted.
    const okCount = new Map<string, number>();
    rx.received.forEach((r, i) => {
      if (answers[i]! >= 200 && answers[i]! < 300)
        okCount.set(header(r, 'x-webhook-id')!, (okCount.get(header(r, 'x-webhook-id')!) ?? 0) + 1);
    });
    const duplicates = [...okCount.values()].reduce((n, c) => n + c - 1, 0);
    console.log(
      `[webhook-recovery:${backend}] restart healthy in ${restartMs} ms; all ${emitted.size} events delivered ${deliverMs} ms after the restart began; ` +
        `${rx.received.length - requestsBeforeRestart} requests after restart, ${duplicates} duplicate 2xx deliveries`,
    );

    await killChild(second, 'SIGTERM');
  }, 300_000);
});
