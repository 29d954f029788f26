/**
 * Durability of workflow runs (docs/workflows.md, Durability): the service runs as a child process
 * (tests/child-service.ts); a run's flaky step fails its first attempt and waits out its retry backoff in
 * the database when the process is killed with SIGKILL; a new process on the same data (the
 * same PGlite DATA_DIR, or the same PostgreSQL database) resumes the run without re-executing
 * the steps that finished: every step attempt is exactly one execution record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKFLOW_STEP_QUEUE } from '../../src/workflows/queue';
import { call, killChild, makeDueNow, startChild, until, type Child } from '../child-service';
import { ADMIN_TOKEN, backends, createTestDatabase } from '../harness';

/** Start-up under load: the child's migrations and pg-boss can take minutes on a busy machine. */
const STARTUP_TIMEOUT_MS = 180_000;

/** Answers `/flaky` by dropping the connection the first time (a module_error), then 200. */
async function startFlaky(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = createHttpServer((req, res) => {
    hits++;
    if (hits === 1) return req.socket.destroy();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/flaky`,
    hits: () => hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Long enough that the kill surely comes while the retry waits in the database. */
const BACKOFF_MS = 20_000;

backends.describe('workflow run after a crash (%s)', (backend) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-workflow-crash-'));
  const children: Child[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;
  let flaky: Awaited<ReturnType<typeof startFlaky>> | undefined;

  afterAll(async () => {
    for (const c of children) await killChild(c, 'SIGKILL');
    await flaky?.close();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'SIGKILL while a step waits for its retry: a restarted service finishes the run, each step attempt executed exactly once',
    async () => {
      const env: Record<string, string | undefined> = {
        AMP_NO_NEXT: '1',
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        WEBHOOK_ALLOW_PRIVATE: '1',
        LOG_LEVEL: 'error',
        REGISTER_LIMIT_PER_HOUR: '10000',
      };
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        dropDatabase = db.drop;
        // No Redis: durability is the database's (and a shared Redis's public rate-limit pool is not this test's).
        env.DATABASE_URL = db.url;
      }
      flaky = await startFlaky();

      const first = await startChild(env, STARTUP_TIMEOUT_MS);
      children.push(first);
      const reg = await call(first, '/api/v1/auth/register', {
        body: { agent_name: 'crash-agent', owner_email: `wf-crash-${Date.now()}@example.com` },
      });
      expect(reg.status, reg.text).toBe(201);
      const key: string = reg.body.api_key;
      const plan = await call(first, `/api/v1/admin/tenants/${reg.body.tenant_id}/plan`, {
        method: 'PUT',
        admin: true,
        body: { plan: 'business' },
      });
      expect(plan.status, plan.text).toBe(200);
      const wf = await call(first, '/api/v1/workflows', {
        key,
        body: {
          name: 'crash',
          steps: [
            { id: 'a', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
            {
              id: 'b',
              module: 'http',
              action: 'fetch',
              input: { url: `${flaky.url}?slug={{steps.a.output.slug}}` },
              depends_on: ['a'],
              retry: { max_attempts: 2, backoff_ms: BACKOFF_MS, backoff: 'fixed' },
            },
            {
              id: 'c',
              module: 'text',
              action: 'change_case',
              input: { text: '{{steps.a.output.slug}}', to: 'constant' },
              depends_on: ['b'],
            },
            { id: 'd', module: 'text', action: 'change_case', input: { text: '{{steps.a.output.slug}}', to: 'camel' }, depends_on: ['b'] },
            {
              id: 'e',
              module: 'json',
              action: 'merge',
              input: { objects: ['{{steps.c.output}}', { camel: '{{steps.d.output.result}}', status: '{{steps.b.output.status}}' }] },
              depends_on: ['c', 'd'],
            },
          ],
        },
      });
      expect(wf.status, wf.text).toBe(201);
      const run = await call(first, `/api/v1/workflows/${wf.body.id}/runs`, { key, body: { input: { title: 'Crash Test' } } });
      expect(run.status, run.text).toBe(202);
      const runPath = `/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`;

      // b's first attempt failed and its retry waits (20 s) in pg-boss: kill now.
      const before = await until(
        "b's first attempt to fail with its retry scheduled",
        async () => {
          const res = await call(first, runPath, { key });
          const b = res.body.steps?.find((x: any) => x.id === 'b');
          return b?.status === 'pending' && b.attempts === 1 ? res.body : undefined;
        },
        90_000,
      );
      first.proc.kill('SIGKILL');
      await first.exited;
      expect(before.steps.map((x: any) => x.status)).toEqual(['succeeded', 'pending', 'pending', 'pending', 'pending']);
      expect(flaky.hits()).toBe(1);
      // b's retry is the one job waiting in the database; it is made due instead of waited out.
      expect(await makeDueNow({ databaseUrl: env.DATABASE_URL, dataDir }, WORKFLOW_STEP_QUEUE)).toBe(1);

      const second = await startChild(env, STARTUP_TIMEOUT_MS);
      children.push(second);
      const done = await until(
        'the run to finish on the restarted service',
        async () => {
          const res = await call(second, runPath, { key });
          return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
        },
        BACKOFF_MS + 120_000,
        500,
      );
      expect(done.status, JSON.stringify(done)).toBe('completed');
      expect(done.steps.map((x: any) => [x.id, x.status, x.attempts, x.execution_ids.length])).toEqual([
        ['a', 'succeeded', 1, 1],
        ['b', 'succeeded', 2, 2],
        ['c', 'succeeded', 1, 1],
        ['d', 'succeeded', 1, 1],
        ['e', 'succeeded', 1, 1],
      ]);
      expect(done.output).toEqual({ e: { result: { result: 'CRASH_TEST', camel: 'crashTest', status: 200 } } });
      expect(flaky.hits()).toBe(2);

      // The execution records: exactly one per step attempt, none interrupted, all from the workflow.
      const list = await call(second, '/api/v1/executions?limit=100', { key });
      expect(list.status, list.text).toBe(200);
      const records: any[] = list.body.data;
      expect(records).toHaveLength(6);
      expect(records.every((r) => r.source === 'workflow')).toBe(true);
      expect(new Set(records.map((r) => r.execution_id))).toEqual(new Set(done.steps.flatMap((x: any) => x.execution_ids)));
      expect(records.filter((r) => r.status === 'failed').map((r) => r.error.code)).toEqual(['module_error']);
      const usage = await call(second, '/api/v1/billing/usage', { key });
      expect(usage.body.executions.used).toBe(6);
    },
    BACKOFF_MS + 400_000,
  );
});

/**
 * SIGKILL in the middle of a step (embedded; on PostgreSQL, tests/api/workflow-waits-recovery.test.ts
 * kills two instances mid-step). The restarted service closes the attempt's execution as
 * `interrupted` and runs the step again; the steps that had finished are not rerun.
 */
describe('workflow step interrupted by a crash (embedded)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-workflow-midstep-'));
  const children: Child[] = [];
  let hold = true;
  const held: import('node:http').ServerResponse[] = [];
  const server = createHttpServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    if (hold) held.push(res);
    else res.end(JSON.stringify({ ok: true }));
  });

  afterAll(async () => {
    for (const c of children) await killChild(c, 'SIGKILL');
    for (const res of held) res.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the restarted service reruns the interrupted step once, and no finished step', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const slow = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    const env = {
      AMP_NO_NEXT: '1',
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE: '1',
      LOG_LEVEL: 'error',
      REGISTER_LIMIT_PER_HOUR: '10000',
    };
    const first = await startChild(env, STARTUP_TIMEOUT_MS);
    children.push(first);
    const reg = await call(first, '/api/v1/auth/register', {
      body: { agent_name: 'crash-agent', owner_email: `wf-mid-${Date.now()}@example.com` },
    });
    expect(reg.status, reg.text).toBe(201);
    const key: string = reg.body.api_key;
    expect(
      (await call(first, `/api/v1/admin/tenants/${reg.body.tenant_id}/plan`, { method: 'PUT', admin: true, body: { plan: 'business' } }))
        .status,
    ).toBe(200);
    const wf = await call(first, '/api/v1/workflows', {
      key,
      body: {
        name: 'midstep',
        steps: [
          { id: 'a', module: 'text', action: 'slugify', input: { text: 'Mid Step' } },
          { id: 'b', module: 'http', action: 'fetch', input: { url: `${slow}?slug={{steps.a.output.slug}}` }, depends_on: ['a'] },
          { id: 'c', module: 'text', action: 'slugify', input: { text: 'after {{steps.b.output.status}}' }, depends_on: ['b'] },
        ],
      },
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await call(first, `/api/v1/workflows/${wf.body.id}/runs`, { key, body: { input: {} } });
    expect(run.status, run.text).toBe(202);
    const runPath = `/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`;
    // http.fetch gives up after 10 s: kill while it waits.
    await until('step b to be waiting on the slow server', async () => held.length === 1, 90_000, 50);
    first.proc.kill('SIGKILL');
    await first.exited;
    hold = false;

    const second = await startChild(env, STARTUP_TIMEOUT_MS);
    children.push(second);
    const done = await until(
      'the run to finish on the restarted service',
      async () => {
        const res = await call(second, runPath, { key });
        return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
      },
      120_000,
      500,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.steps.map((x: any) => [x.id, x.status, x.attempts, x.execution_ids.length])).toEqual([
      ['a', 'succeeded', 1, 1],
      ['b', 'succeeded', 1, 1],
      ['c', 'succeeded', 1, 1],
    ]);
    expect(done.steps[2].output).toEqual({ slug: 'after-200' });
    // a once; b twice (the interrupted attempt, closed as such, and its rerun); c once.
    const records: any[] = (await call(second, '/api/v1/executions?limit=100', { key })).body.data;
    expect(records).toHaveLength(4);
    const interrupted = records.filter((r) => r.status === 'failed');
    expect(interrupted.map((r) => [r.action, r.error.code])).toEqual([['fetch', 'interrupted']]);
    expect(
      records
        .filter((r) => r.status === 'success')
        .map((r) => r.execution_id)
        .sort(),
    ).toEqual(done.steps.flatMap((x: any) => x.execution_ids).sort());
  }, 400_000);
});
