/**
 * Waiting steps and dead workers (docs/workflows.md, Durability): the service runs as child
 * processes (tests/child-service.ts).
 *
 * - SIGKILL while a run sleeps, waits for an event and waits for an approval (both backends): the
 *   restarted service resumes each branch when its time, event or decision comes, and no step
 *   runs twice.
 * - kill -9 of both instances on one PostgreSQL while their workers hold steps (the steps' jobs
 *   are active, one started, others fetched but not yet started): one instance restarted takes
 *   every run over once the jobs' heartbeats go stale, and each finishes. The time from the
 *   restart to the last run resuming is printed (the goal is under 30 s; tests assert no timing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, killChild, startChild, until, type Child } from '../child-service';
import { ADMIN_TOKEN, backends, createTestDatabase, missing } from '../harness';

const STARTUP_TIMEOUT_MS = 180_000;

const baseEnv = (dataDir: string): Record<string, string | undefined> => ({
  AMP_NO_NEXT: '1',
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  ADMIN_TOKEN,
  WEBHOOK_ALLOW_PRIVATE: '1',
  LOG_LEVEL: 'error',
  REGISTER_LIMIT_PER_HOUR: '10000',
});

async function tenantOn(child: Child, name: string): Promise<string> {
  const reg = await call(child, '/api/v1/auth/register', { body: { agent_name: name, owner_email: `${name}-${Date.now()}@example.com` } });
  expect(reg.status, reg.text).toBe(201);
  const plan = await call(child, `/api/v1/admin/tenants/${reg.body.tenant_id}/plan`, {
    method: 'PUT',
    admin: true,
    body: { plan: 'business' },
  });
  expect(plan.status, plan.text).toBe(200);
  return reg.body.api_key as string;
}

const finished = (child: Child, key: string, runPath: string, timeoutMs = 120_000) =>
  until(
    'the run to finish',
    async () => {
      const res = await call(child, runPath, { key });
      return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
    500,
  );

backends.describe('waiting steps across a crash (%s)', (backend) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-workflow-waits-crash-'));
  const children: Child[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;

  afterAll(async () => {
    for (const c of children) await killChild(c, 'SIGKILL');
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL during a sleep, a wait for an event and an approval: the restarted service resumes each, no step twice', async () => {
    const env = baseEnv(dataDir);
    if (backend === 'postgres') {
      const db = await createTestDatabase();
      dropDatabase = db.drop;
      env.DATABASE_URL = db.url;
    }
    const first = await startChild(env, STARTUP_TIMEOUT_MS);
    children.push(first);
    const key = await tenantOn(first, 'waits-crash');
    const wf = await call(first, '/api/v1/workflows', {
      key,
      body: {
        name: 'three waits',
        steps: [
          { id: 'nap', kind: 'sleep', for: '5s' },
          { id: 'after_nap', module: 'text', action: 'slugify', input: { text: 'after nap' }, depends_on: ['nap'] },
          { id: 'seen', kind: 'wait_for_event', event: 'execution.completed', match: 'event.data.module = "crypto"', timeout: '1h' },
          {
            id: 'after_seen',
            module: 'text',
            action: 'slugify',
            input: { text: 'after {{steps.seen.output.data.action}}' },
            depends_on: ['seen'],
          },
          { id: 'ok', kind: 'approval', prompt: 'Go on?', timeout: '1h' },
          { id: 'after_ok', module: 'text', action: 'slugify', input: { text: 'after ok' }, depends_on: ['ok'] },
        ],
      },
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await call(first, `/api/v1/workflows/${wf.body.id}/runs`, { key, body: { input: {} } });
    expect(run.status, run.text).toBe(202);
    const runPath = `/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`;
    await until(
      'the three waits to begin',
      async () => {
        const res = await call(first, runPath, { key });
        const waiting = res.body.steps.filter((x: any) => x.status === 'waiting').map((x: any) => x.id);
        return waiting.length === 3 ? res.body : undefined;
      },
      60_000,
    );
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await startChild(env, STARTUP_TIMEOUT_MS);
    children.push(second);
    // The sleep's time passed while the service was down: its wake-up job runs now.
    await until(
      'the sleep branch to finish',
      async () => (await call(second, runPath, { key })).body.steps.find((x: any) => x.id === 'after_nap').status === 'succeeded',
      60_000,
    );
    const uuid = await call(second, '/api/v1/modules/crypto/execute', { key, body: { action: 'uuid', input: {} } });
    expect(uuid.status, uuid.text).toBe(200);
    const approved = await call(second, `${runPath}/steps/ok/approve`, { key, body: { comment: 'after the crash' } });
    expect(approved.status, approved.text).toBe(200);

    const done = await finished(second, key, runPath);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.steps.map((x: any) => [x.id, x.status, x.attempts, x.execution_ids.length])).toEqual([
      ['nap', 'succeeded', 1, 0],
      ['after_nap', 'succeeded', 1, 1],
      ['seen', 'succeeded', 1, 0],
      ['after_seen', 'succeeded', 1, 1],
      ['ok', 'succeeded', 1, 0],
      ['after_ok', 'succeeded', 1, 1],
    ]);
    expect(done.output).toMatchObject({ after_seen: { slug: 'after-uuid' } });
    // Three step executions and the crypto call: no step ran twice.
    const records: any[] = (await call(second, '/api/v1/executions?limit=100', { key })).body.data;
    expect(records.filter((r) => r.source === 'workflow')).toHaveLength(3);
    expect(records).toHaveLength(4);
  }, 400_000);
});

describe.skipIf(missing.postgres !== undefined)('kill -9 of both instances mid-run (postgres)', () => {
  const dataDirs = [0, 1, 2].map((i) => mkdtempSync(path.join(tmpdir(), `amp-workflow-both-${i}-`)));
  const children: Child[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;
  let hold = true;
  const held: ServerResponse[] = [];
  let requests = 0;
  const gate = createHttpServer((_req, res) => {
    requests++;
    res.setHeader('content-type', 'application/json');
    if (hold) held.push(res);
    else res.end(JSON.stringify({ ok: true }));
  });

  afterAll(async () => {
    for (const c of children) await killChild(c, 'SIGKILL');
    for (const res of held) res.destroy();
    await new Promise<void>((r) => gate.close(() => r()));
    await dropDatabase?.();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  it('one instance restarted takes over every run the dead workers held, and each finishes', async () => {
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
    const slow = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/slow`;
    const db = await createTestDatabase();
    dropDatabase = db.drop;
    const envOf = (i: number) => ({ ...baseEnv(dataDirs[i]!), DATABASE_URL: db.url });
    const a = await startChild(envOf(0), STARTUP_TIMEOUT_MS);
    const b = await startChild(envOf(1), STARTUP_TIMEOUT_MS);
    children.push(a, b);
    const key = await tenantOn(a, 'both-killed');
    const wf = await call(a, '/api/v1/workflows', {
      key,
      body: {
        name: 'held',
        steps: [
          { id: 'fetch', module: 'http', action: 'fetch', input: { url: `${slow}?n={{input.n}}` } },
          { id: 'after', module: 'text', action: 'slugify', input: { text: 'done {{input.n}}' }, depends_on: ['fetch'] },
        ],
      },
    });
    expect(wf.status, wf.text).toBe(201);
    const RUNS = 6;
    const runPaths: string[] = [];
    for (let n = 0; n < RUNS; n++) {
      const started = await call(n % 2 ? b : a, `/api/v1/workflows/${wf.body.id}/runs`, { key, body: { input: { n } } });
      expect(started.status, started.text).toBe(202);
      runPaths.push(`/api/v1/workflows/${wf.body.id}/runs/${started.body.run_id}`);
    }
    // Every run's first step is in a worker's hands: its request held by the gate.
    await until('every run to hold a request at the gate', async () => held.length >= RUNS, 90_000, 50);
    a.proc.kill('SIGKILL');
    b.proc.kill('SIGKILL');
    await Promise.all([a.exited, b.exited]);
    for (const res of held.splice(0)) res.destroy();
    const before = requests;
    hold = false;

    const restarted = await startChild(envOf(2), STARTUP_TIMEOUT_MS);
    children.push(restarted);
    const healthyAt = Date.now();
    await until('every run to resume on the restarted instance', async () => requests - before >= RUNS, 120_000, 100);
    console.log(`kill -9 of both instances: every run resumed ${((Date.now() - healthyAt) / 1000).toFixed(1)} s after the restart`);
    for (const runPath of runPaths) {
      const done = await finished(restarted, key, runPath);
      expect(done.status, JSON.stringify(done)).toBe('completed');
      expect(done.steps.map((x: any) => [x.id, x.status, x.attempts])).toEqual([
        ['fetch', 'succeeded', 1],
        ['after', 'succeeded', 1],
      ]);
    }
  }, 400_000);
});
