/**
 * Flow control of workflow runs (docs/workflows.md, Flow control): concurrency per key, throttle
 * per sliding period, debounce per key, each under 100 starts racing over REST, on both backends.
 * The steps call a local HTTP server that counts how many of a key's runs are inside it at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workflowRuns } from '../../src/db/schema';
import { sleep, until } from '../child-service';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

/** Answers `/?k=<key>` after `holdMs`, keeping the most requests of one key inside at once. */
async function startCounter(holdMs: number) {
  const inside = new Map<string, number>();
  const most = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const k = new URL(req.url ?? '/', 'http://x').searchParams.get('k') ?? '';
    inside.set(k, (inside.get(k) ?? 0) + 1);
    most.set(k, Math.max(most.get(k) ?? 0, inside.get(k)!));
    setTimeout(() => {
      inside.set(k, inside.get(k)! - 1);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    }, holdMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    most,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

backends.describe('workflow flow control (%s)', (backend) => {
  let s: TestServer;
  let t: { apiKey: string; tenantId: string };
  let counter: Awaited<ReturnType<typeof startCounter>>;

  const create = async (body: Record<string, unknown>) => {
    const res = await s.call('/api/v1/workflows', { key: t.apiKey, body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  /** One start, sent again after `Retry-After` while the answer is 503 (what a client does; docs/operations.md). */
  const start = async (id: string, input: Record<string, unknown>) => {
    for (let attempt = 1; ; attempt++) {
      const res = await s.call(`/api/v1/workflows/${id}/runs`, { key: t.apiKey, body: { input } });
      if (res.status !== 503 || attempt === 3) return res;
      await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
    }
  };
  const startAll = (id: string, inputs: Record<string, unknown>[]) => Promise.all(inputs.map((input) => start(id, input)));
  const runsOf = (id: string) => s.svc.db.select().from(workflowRuns).where(eq(workflowRuns.workflowId, id));
  const allFinished = (id: string, n: number) =>
    until(
      `${n} runs to finish`,
      async () => {
        const runs = await runsOf(id);
        return runs.length === n && runs.every((r) => r.status === 'completed') ? runs : undefined;
      },
      180_000,
    );

  beforeAll(async () => {
    counter = await startCounter(50);
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    t = await s.register();
    await s.setPlan(t.tenantId, 'enterprise');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await counter?.close();
  });

  it('refuses flow control it cannot apply', async () => {
    const steps = [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } }];
    for (const [body, path] of [
      [{ concurrency: { limit: 0 } }, 'concurrency.limit'],
      [{ throttle: { limit: 1, period: '10ms' } }, 'throttle.period'],
      [{ debounce: { period: '30d' } }, 'debounce.period'],
      [{ concurrency: { limit: 1, key: '{{steps.a.output}}' } }, 'concurrency.key'],
      [{ priority: 1000 }, 'priority'],
    ] as const) {
      const res = await s.call('/api/v1/workflows', { key: t.apiKey, body: { name: 'bad', steps, ...body } });
      expectError(res, 400, 'invalid_request');
      expect(res.body.issues?.[0]?.path, res.text).toBe(path);
    }
  });

  // Each of the three races below waits up to 180 s for its 100 runs (allFinished): its budget is
  // longer, so a loaded machine ends it with what it waited for, not vitest's 30 s default (the
  // embedded race took 16.7 s with three workers on the reference machine, over 30 s with four).
  it('concurrency: 100 racing starts over two keys never have more than the limit of a key in progress', async () => {
    const wf = await create({
      name: 'one at a time per customer',
      concurrency: { limit: 3, key: '{{input.customer}}' },
      steps: [{ id: 'call', module: 'http', action: 'fetch', input: { url: `${counter.url}?k=c-{{input.customer}}` } }],
    });
    expect(wf.concurrency).toEqual({ limit: 3, key: '{{input.customer}}' });
    const started = await startAll(
      wf.id,
      Array.from({ length: 100 }, (_, n) => ({ customer: n % 2 ? 'acme' : 'globex', n })),
    );
    expect(started.every((r) => r.status === 202)).toBe(true);
    // While they run, sample the runs in progress (started, not finished) of each key.
    const most = new Map<string, number>();
    let done = false;
    const sampling = (async () => {
      while (!done) {
        const runs = await runsOf(wf.id);
        const inProgress = new Map<string, number>();
        for (const r of runs)
          if (r.admittedAt && (r.status === 'queued' || r.status === 'running'))
            inProgress.set(r.concurrencyKey!, (inProgress.get(r.concurrencyKey!) ?? 0) + 1);
        for (const [k, n] of inProgress) most.set(k, Math.max(most.get(k) ?? 0, n));
        await sleep(200);
      }
    })();
    await allFinished(wf.id, 100);
    done = true;
    await sampling;
    expect(most.get('acme')).toBe(3);
    expect(most.get('globex')).toBe(3);
    // The steps themselves never overlapped more than that either.
    expect(counter.most.get('c-acme')).toBeLessThanOrEqual(3);
    expect(counter.most.get('c-globex')).toBeLessThanOrEqual(3);
  }, 240_000);

  it('throttle: 100 racing starts, never more than the limit started in any period', async () => {
    const wf = await create({
      name: 'throttled',
      throttle: { limit: 40, period: '2s' },
      steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'n {{input.n}}' } }],
    });
    const started = await startAll(
      wf.id,
      Array.from({ length: 100 }, (_, n) => ({ n })),
    );
    expect(started.every((r) => r.status === 202)).toBe(true);
    const runs = await allFinished(wf.id, 100);
    const admitted = runs.map((r) => r.admittedAt!.getTime()).sort((a, b) => a - b);
    for (const at of admitted) expect(admitted.filter((x) => x > at - 2000 && x <= at).length).toBeLessThanOrEqual(40);
  }, 240_000);

  it('debounce: 100 racing starts of one key become one run with one of their inputs; another key its own', async () => {
    const wf = await create({
      name: 'debounced',
      debounce: { period: '2s', key: '{{input.k}}' },
      steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'n {{input.n}}' } }],
    });
    const started = await startAll(wf.id, [...Array.from({ length: 100 }, (_, n) => ({ k: 'a', n })), { k: 'b', n: 1000 }]);
    expect(started.every((r) => r.status === 202)).toBe(true);
    const ids = new Set(started.map((r) => r.body.run_id));
    expect(ids.size).toBe(2);
    const runs = await allFinished(wf.id, 2);
    const a = runs.find((r) => r.debounceKey === 'a')!;
    expect((a.input as { n: number }).n).toBeGreaterThanOrEqual(0);
    expect((runs.find((r) => r.debounceKey === 'b')!.input as { n: number }).n).toBe(1000);
    // It began no earlier than the period after the last start it took.
    expect(a.admittedAt!.getTime()).toBeGreaterThanOrEqual(a.startAfter!.getTime());
  }, 240_000);
});
