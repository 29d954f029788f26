import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { events, executions, installations, usageCounters } from '../../src/db/schema';
import { reserveExecutions } from '../../src/metering/usage';
import { PLANS } from '../../src/tenants/plans';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

/** Execution slots over HTTP: a free tenant holds 5 in-flight executions; the 6th is refused. */
describe('concurrency limit on execute', () => {
  let s: TestServer;
  let slow: Server;
  let slowUrl: string;
  /** Requests the upstream holds until the test lets them go. */
  const held: ServerResponse[] = [];
  const answerAll = () => {
    for (const res of held.splice(0)) res.end('{"ok":true}');
  };

  beforeAll(async () => {
    // A slow upstream on loopback for the built-in http.fetch action (WEBHOOK_ALLOW_PRIVATE=1).
    slow = createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
    s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => {
    answerAll();
    await s?.close();
    slow?.close();
  });

  it('refuses the 6th concurrent execution with 429 concurrency_limit_exceeded and releases every slot', async () => {
    const t = await s.register();
    const fetchCall = () => s.call('/api/v1/modules/http/execute', { key: t.apiKey, body: { action: 'fetch', input: { url: slowUrl } } });
    const first = fetchCall(); // installs the module
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000, interval: 20 });
    answerAll();
    expect((await first).status).toBe(200);
    const five = Array.from({ length: 5 }, fetchCall);
    await vi.waitFor(() => expect(held).toHaveLength(5), { timeout: 30_000, interval: 20 });
    const refused = await fetchCall();
    expectError(refused, 429, 'concurrency_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('1');
    answerAll();
    expect((await Promise.all(five)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // Every slot came back: five more run at once again.
    const again = Array.from({ length: 5 }, fetchCall);
    await vi.waitFor(() => expect(held).toHaveLength(5), { timeout: 30_000, interval: 20 });
    answerAll();
    expect((await Promise.all(again)).every((r) => r.status === 200)).toBe(true);
    expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
  }, 60_000);

  it("a batch's calls share the plan's slots: with 3 held elsewhere, 2 of a batch of 4 run and 2 are refused; a chain runs in one slot", async () => {
    const t = await s.register();
    const fetchInput = { url: slowUrl };
    const fetchCall = () => s.call('/api/v1/modules/http/execute', { key: t.apiKey, body: { action: 'fetch', input: fetchInput } });
    const install = fetchCall();
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000, interval: 20 });
    answerAll();
    expect((await install).status).toBe(200);
    const three = Array.from({ length: 3 }, fetchCall);
    await vi.waitFor(() => expect(held).toHaveLength(3), { timeout: 30_000, interval: 20 });
    const batch = s.call('/api/v1/batch', {
      key: t.apiKey,
      body: { calls: Array.from({ length: 4 }, (_, i) => ({ id: `c${i}`, module: 'http', action: 'fetch', input: fetchInput })) },
    });
    await vi.waitFor(() => expect(held).toHaveLength(5), { timeout: 30_000, interval: 20 });
    expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(5);
    answerAll();
    const b = await batch;
    expect(b.status, b.text).toBe(200);
    const calls = (b.body as { data: { status: string; error?: { code: string } }[] }).data;
    expect(calls.map((c) => c.status).sort()).toEqual(['failed', 'failed', 'success', 'success']);
    for (const c of calls.filter((c) => c.status === 'failed')) expect(c.error!.code).toBe('concurrency_limit_exceeded');
    expect((await Promise.all(three)).map((r) => r.status)).toEqual([200, 200, 200]);
    await vi.waitFor(async () => expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0), { timeout: 10_000, interval: 20 });
    // A chain of two fetches holds one slot throughout.
    const chain = s.call('/api/v1/chain', {
      key: t.apiKey,
      body: {
        steps: [
          { module: 'http', action: 'fetch', input: fetchInput },
          { module: 'http', action: 'fetch', input: fetchInput, map: '{}' },
        ],
      },
    });
    for (let step = 0; step < 2; step++) {
      await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000, interval: 20 });
      expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(1);
      answerAll();
    }
    const c = await chain;
    expect(c.status, c.text).toBe(200);
    expect((c.body as { status: string }).status).toBe('success');
    await vi.waitFor(async () => expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0), { timeout: 10_000, interval: 20 });
  }, 60_000);
});

/** Fair execution (docs/decisions.md, Modules and execution): one tenant's burst never fails another tenant's call. */
backends.describe('fair execution (%s)', (backend) => {
  let s: TestServer;
  let upstream: Server;
  let upstreamUrl: string;
  /** Requests the upstream holds until the test lets them go. */
  let held: ServerResponse[] = [];

  beforeAll(async () => {
    upstream = createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/slow`;
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', EXECUTION_QUEUE_WAIT_MS: '30000' } });
  });
  afterAll(async () => {
    for (const res of held) res.end('{}');
    await s?.close();
    upstream?.close();
  });

  const tenant = async (plan: 'free' | 'pro' | 'business') => {
    const t = await s.register();
    if (plan !== 'free') await s.setPlan(t.tenantId, plan);
    return t;
  };
  const execute = (key: string, module: string, action: string, input: Record<string, unknown>) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body: { action, input } });
  // CPU-bound work that takes a worker: a short slugify runs inline (text.slugify is marked `inline`), one over the inline cap does not.
  const slugify = (key: string) => execute(key, 'text', 'slugify', { text: 'Hello World '.repeat(50) });
  const recorded = async (tenantId: string) => {
    const rows = await s.svc.db.select().from(executions).where(eq(executions.tenantId, tenantId));
    const [usage] = await s.svc.db.select().from(usageCounters).where(eq(usageCounters.tenantId, tenantId));
    const installed = await s.svc.db.select().from(installations).where(eq(installations.tenantId, tenantId));
    const evented = await s.svc.db.select().from(events).where(eq(events.tenantId, tenantId));
    return { rows, used: usage?.executions ?? 0, installed: installed.map((i) => i.moduleName), events: evented.map((e) => e.type) };
  };
  /** Takes every worker of the built-in pool, as a flood of long CPU-bound actions would. */
  const occupyPool = async () => {
    const q = s.svc.pool.queue;
    const leases = await Promise.all(Array.from({ length: q.capacity }, () => q.admit('test-occupant', 0)));
    expect(leases.every(Boolean)).toBe(true);
    return () => leases.forEach((l) => l!.release());
  };

  it('a business tenant with 100 http.fetch calls in flight (and its 101st refused) does not delay a pro tenant: I/O does not hold a worker', async () => {
    const business = await tenant('business');
    const pro = await tenant('pro');
    // Each flood call's fetch fails 10 s after it starts (http.fetch's own limit), and the flood is held until the pro call is
    // answered: the one-off work (installs; the worker pool's threads starting and loading the text pack) is done before it.
    const install = async (key: string, module: string) =>
      expect((await s.call(`/api/v1/modules/${module}/install`, { key, method: 'POST' })).status).toBe(201);
    await install(business.apiKey, 'http');
    await install(pro.apiKey, 'text');
    const warmUp = await tenant('business');
    const warmed = await Promise.all(Array.from({ length: s.svc.pool.queue.capacity }, () => slugify(warmUp.apiKey)));
    expect(warmed.map((r) => r.status)).toEqual(warmed.map(() => 200));
    held = [];
    const flood = Array.from({ length: 101 }, () => execute(business.apiKey, 'http', 'fetch', { url: upstreamUrl }));
    // All 100 admitted calls are waiting on the network at once (none waits for a worker).
    await vi.waitFor(() => expect(held.length).toBe(100), { timeout: 30_000, interval: 50 });
    const small = await slugify(pro.apiKey);
    expect(small.status, small.text).toBe(200);
    expect(held.length).toBe(100); // the pro call finished while every flood call was still in flight
    for (const res of held.splice(0)) res.end('{"ok":true}');
    const results = await Promise.all(flood);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 200)).toHaveLength(100);
    expectError(
      results.find((r) => r.status === 429)!,
      429,
      'concurrency_limit_exceeded',
    );
    const p = await recorded(pro.tenantId);
    expect(p.rows.map((r) => r.status)).toEqual(['success']);
    expect(p.used).toBe(1);
    expect(p.events).not.toContain('execution.failed');
    const b = await recorded(business.tenantId);
    expect(b.rows.filter((r) => r.status === 'success')).toHaveLength(100);
    expect(b.used).toBe(100);
  }, 90_000);

  it('CPU-bound work waiting for a worker is served round-robin: the small tenant queues behind one flood call, not behind the flood', async () => {
    const business = await tenant('business');
    const pro = await tenant('pro');
    await slugify(business.apiKey); // installs text for both, so only execution work is measured
    await slugify(pro.apiKey);
    const release = await occupyPool();
    // The order workers are handed out is what fairness decides; the order calls finish in also
    // depends on each worker's state (a worker loads a pack on its first call), so it is not asserted.
    const q = s.svc.pool.queue;
    const admit = q.admit.bind(q);
    const granted: string[] = [];
    q.admit = (tenantId, maxWaitMs) => admit(tenantId, maxWaitMs).then((lease) => (lease && granted.push(tenantId), lease));
    try {
      const flood = Array.from({ length: 12 }, () => slugify(business.apiKey));
      await vi.waitFor(() => expect(q.waitingCount).toBe(12), { timeout: 30_000, interval: 20 });
      const small = slugify(pro.apiKey);
      await vi.waitFor(() => expect(q.waitingCount).toBe(13), { timeout: 30_000, interval: 20 });
      release();
      const results = await Promise.all([...flood, small]);
      expect(results.every((r) => r.status === 200)).toBe(true);
      // First-come-first-served would hand the pro call the 13th worker; round-robin hands it the
      // second one freed.
      expect(granted).toHaveLength(13);
      expect(granted.indexOf(pro.tenantId)).toBe(1);
    } finally {
      q.admit = admit;
    }
    const p = await recorded(pro.tenantId);
    expect(p.rows.map((r) => r.status)).toEqual(['success', 'success']);
  }, 90_000);

  it('refuses an execution that cannot start within the admission wait: 429, nothing installed, run, counted or recorded', async () => {
    const t = await tenant('free');
    const release = await occupyPool();
    const wait = s.svc.config.executionQueueWaitMs;
    s.svc.config.executionQueueWaitMs = 100;
    try {
      const refused = await slugify(t.apiKey);
      expectError(refused, 429, 'concurrency_limit_exceeded');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.body.execution).toBeUndefined();
    } finally {
      s.svc.config.executionQueueWaitMs = wait;
      release();
    }
    expect(await recorded(t.tenantId)).toEqual({ rows: [], used: 0, installed: [], events: [] });
    expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
    // Once a worker is free the same call runs, installs on first use and is counted once.
    expect((await slugify(t.apiKey)).status).toBe(200);
    const after = await recorded(t.tenantId);
    expect(after).toMatchObject({ used: 1, installed: ['text'] });
    expect(after.events.sort()).toEqual(['execution.completed', 'module.installed']);
  }, 60_000);

  it('a call refused with quota_exceeded installs nothing and counts nothing', async () => {
    const t = await tenant('free');
    await reserveExecutions(s.svc.db, { tenantId: t.tenantId, plan: 'free' }, PLANS.free.executionsPerMonth!);
    expectError(await slugify(t.apiKey), 429, 'quota_exceeded');
    const r = await recorded(t.tenantId);
    expect(r).toEqual({ rows: [], used: PLANS.free.executionsPerMonth, installed: [], events: [] });
  }, 60_000);
});
