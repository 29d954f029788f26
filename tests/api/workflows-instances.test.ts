/**
 * Two instances on one PostgreSQL database (docs/workflows.md): runs started on either are executed by
 * both instances' step workers, and no step attempt runs twice (one execution record per step).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executions } from '../../src/db/schema';
import { missing, startTestServer, type TestServer } from '../harness';

const RUNS = 12;
const letter = (n: number) => String.fromCharCode(97 + n);

describe.skipIf(missing.postgres !== undefined)('workflow runs shared by two instances on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    // Without Redis: this is about sharing PostgreSQL (and the public rate-limit pool of a shared Redis is not this test's).
    a = await startTestServer({ backend: 'postgres', redis: false });
    b = await startTestServer({ backend: 'postgres', redis: false, databaseUrl: a.config.databaseUrl });
  }, 120_000);
  // B first: A owns (and drops) the database.
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('every step of every run executes exactly once, whichever instance started the run', async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'business');
    const wf = await a.call('/api/v1/workflows', {
      key: t.apiKey,
      body: {
        name: 'shared',
        steps: [
          { id: 'a', module: 'text', action: 'slugify', input: { text: 'run {{input.name}}' } },
          { id: 'b', module: 'text', action: 'change_case', input: { text: '{{steps.a.output.slug}}', to: 'constant' }, depends_on: ['a'] },
          { id: 'c', module: 'text', action: 'change_case', input: { text: '{{steps.a.output.slug}}', to: 'camel' }, depends_on: ['a'] },
          {
            id: 'd',
            module: 'json',
            action: 'merge',
            input: { objects: ['{{steps.b.output}}', { camel: '{{steps.c.output.result}}' }] },
            depends_on: ['b', 'c'],
          },
        ],
      },
    });
    expect(wf.status, wf.text).toBe(201);
    const started = await Promise.all(
      Array.from({ length: RUNS }, (_, n) =>
        (n % 2 ? a : b).call(`/api/v1/workflows/${wf.body.id}/runs`, { key: t.apiKey, body: { input: { name: letter(n) } } }),
      ),
    );
    expect(started.every((r) => r.status === 202)).toBe(true);

    const deadline = Date.now() + 180_000;
    let runs: any[];
    for (;;) {
      runs = await Promise.all(
        started.map((r, n) =>
          (n % 2 ? b : a).call(`/api/v1/workflows/${wf.body.id}/runs/${r.body.run_id}`, { key: t.apiKey }).then((x) => x.body),
        ),
      );
      if (runs.every((r) => r.status === 'completed' || r.status === 'failed')) break;
      if (Date.now() > deadline) throw new Error(`runs did not finish: ${JSON.stringify(runs.map((r) => r.status))}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    runs.forEach((run, n) => {
      expect(run.status, JSON.stringify(run)).toBe('completed');
      expect(run.steps.map((x: any) => [x.attempts, x.execution_ids.length])).toEqual([
        [1, 1],
        [1, 1],
        [1, 1],
        [1, 1],
      ]);
      expect(run.output).toEqual({ d: { result: { result: `RUN_${letter(n).toUpperCase()}`, camel: `run${letter(n).toUpperCase()}` } } });
    });
    const records = await a.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId));
    expect(records).toHaveLength(RUNS * 4);
    expect(records.every((r) => r.source === 'workflow' && r.status === 'success')).toBe(true);
    expect(new Set(records.map((r) => r.id))).toEqual(new Set(runs.flatMap((r) => r.steps.flatMap((x: any) => x.execution_ids))));
    const usage = await b.call('/api/v1/billing/usage', { key: t.apiKey });
    expect(usage.body.executions.used).toBe(RUNS * 4);
  }, 300_000);
});
