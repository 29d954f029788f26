/**
 * Workflows (docs/workflows.md): definitions and their validation, runs as durable pg-boss steps through
 * the one execute service, templates and JSONata, retries, `if`, cancellation, idempotency,
 * quota, tenant isolation. Both backends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { events, executions, workflowRuns, workflows } from '../../src/db/schema';
import { EVENT_DATA_SCHEMAS } from '../../src/contract/events';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver } from '../receiver';

/** A local HTTP server whose `/hold/<name>` requests wait until released (or until `n` are waiting). */
interface Gate {
  url: string;
  waiting(name: string): number;
  release(name: string): void;
  /** Hold `/hold/<name>` until `n` requests wait, then answer them all. */
  joinAt(name: string, n: number): void;
  close(): Promise<void>;
}

async function startGate(): Promise<Gate> {
  const held = new Map<string, ServerResponse[]>();
  const joins = new Map<string, number>();
  const answer = (name: string) => {
    for (const res of held.get(name) ?? []) res.end(JSON.stringify({ gate: name }));
    held.set(name, []);
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const name = new URL(req.url ?? '/', 'http://gate').pathname.split('/')[2] ?? '';
    res.setHeader('content-type', 'application/json');
    if (req.url === '/article.json') return res.end(JSON.stringify({ title: 'hello workflows world', tags: ['a', 'b'] }));
    if (!req.url?.startsWith('/hold/')) return res.end(JSON.stringify({ path: req.url }));
    // Requests whose client gave up (http.fetch's own 10 s limit) no longer count as waiting.
    held.set(name, [...(held.get(name) ?? []).filter((r) => !r.destroyed && !r.socket?.destroyed), res]);
    const join = joins.get(name);
    if (join !== undefined && held.get(name)!.length >= join) answer(name);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    waiting: (name) => (held.get(name) ?? []).filter((r) => !r.destroyed && !r.socket?.destroyed).length,
    release: answer,
    joinAt: (name, n) => joins.set(name, n),
    close: () =>
      new Promise<void>((r) => {
        for (const name of held.keys()) answer(name);
        server.close(() => r());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(400);
  }
}

backends.describe('workflows (%s)', (backend) => {
  let s: TestServer;
  let gate: Gate;
  let t: { apiKey: string; tenantId: string };

  beforeAll(async () => {
    gate = await startGate();
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    t = await s.register();
    // Runs are watched by polling: a plan whose request limit the polling cannot reach.
    await s.setPlan(t.tenantId, 'business');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await gate?.close();
  });

  const create = (key: string, body: unknown) => s.call('/api/v1/workflows', { key, body });
  const start = (key: string, id: string, body: unknown = { input: {} }) => s.call(`/api/v1/workflows/${id}/runs`, { key, body });
  const finished = (key: string, id: string, runId: string) =>
    until(`run ${runId} to finish`, async () => {
      const res = await s.call(`/api/v1/workflows/${id}/runs/${runId}`, { key });
      expect(res.status, res.text).toBe(200);
      return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
    });
  const workflowEvents = (tenantId: string, type: 'workflow.completed' | 'workflow.failed') =>
    s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));
  const executionsOf = (ids: string[]) =>
    s.svc.db
      .select()
      .from(executions)
      .where(eq(executions.tenantId, t.tenantId))
      .then((rows) => rows.filter((r) => ids.includes(r.id)));

  it('a diamond DAG runs its middle steps in parallel and joins them; workflow.completed carries the leaf output', async () => {
    // b and c are held by the gate until both are waiting: the run can only finish if they run at
    // once. (Their retries only cover a machine so loaded that one waits out http.fetch's 10 s.)
    gate.joinAt('diamond', 2);
    const retry = { max_attempts: 3, backoff_ms: 0, backoff: 'fixed' };
    const wf = await create(t.apiKey, {
      name: 'diamond',
      steps: [
        { id: 'a', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
        {
          id: 'b',
          module: 'http',
          action: 'fetch',
          input: { url: `${gate.url}/hold/diamond?from=b&slug={{steps.a.output.slug}}` },
          depends_on: ['a'],
          retry,
        },
        { id: 'c', module: 'http', action: 'fetch', input: { url: `${gate.url}/hold/diamond?from=c` }, depends_on: ['a'], retry },
        {
          id: 'd',
          module: 'json',
          action: 'merge',
          input: { objects: [{ b: '{{steps.b.output.status}}', c: '{{steps.c.output.status}}', slug: '{{steps.a.output.slug}}' }] },
          depends_on: ['b', 'c'],
        },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    expect(wf.body).toMatchObject({ id: expect.stringMatching(/^wf_/), version: 1, name: 'diamond' });
    const run = await start(t.apiKey, wf.body.id, { input: { title: 'Hello World' } });
    expect(run.status, run.text).toBe(202);
    expect(run.body).toMatchObject({ run_id: expect.stringMatching(/^run_/), status: 'queued', workflow_version: 1 });
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.steps.map((x: any) => [x.id, x.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'succeeded'],
      ['d', 'succeeded'],
    ]);
    expect(done.steps.every((x: any) => x.execution_ids.length === x.attempts)).toBe(true);
    expect(done.steps[1].input.url).toContain('slug=hello-world');
    expect(done.output).toEqual({ d: { result: { b: 200, c: 200, slug: 'hello-world' } } });
    const recorded = await executionsOf(done.steps.flatMap((x: any) => x.execution_ids));
    expect(recorded).toHaveLength(done.steps.reduce((n: number, x: any) => n + x.attempts, 0));
    expect(recorded.every((r) => r.source === 'workflow')).toBe(true);
    expect(recorded.filter((r) => r.status === 'success')).toHaveLength(4);
    const completed = await workflowEvents(t.tenantId, 'workflow.completed');
    expect(completed.map((e) => e.data)).toContainEqual(
      expect.objectContaining({
        workflow_id: wf.body.id,
        run_id: run.body.run_id,
        status: 'completed',
        outputs: done.output,
        workflow_version: 1,
      }),
    );
  });

  it('runs the worked example of docs/workflows.md: fetch -> parse -> two transforms in parallel -> join', async () => {
    const wf = await create(t.apiKey, {
      name: 'article card',
      steps: [
        {
          id: 'fetch',
          module: 'http',
          action: 'fetch',
          input: { url: '{{input.url}}' },
          retry: { max_attempts: 3, backoff_ms: 1000, backoff: 'exponential' },
        },
        { id: 'parse', module: 'json', action: 'parse', input: { text: '{{steps.fetch.output.body}}' }, depends_on: ['fetch'] },
        {
          id: 'title',
          module: 'text',
          action: 'change_case',
          input: { text: '{{steps.parse.output.data.title}}', to: 'title' },
          depends_on: ['parse'],
        },
        { id: 'slug', module: 'text', action: 'slugify', input: { text: '{{steps.parse.output.data.title}}' }, depends_on: ['parse'] },
        {
          id: 'card',
          module: 'json',
          action: 'merge',
          input: {
            objects: [
              { title: '{{steps.title.output.result}}', slug: '{{steps.slug.output.slug}}', tags: '{{steps.parse.output.data.tags}}' },
            ],
          },
          depends_on: ['title', 'slug'],
        },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await start(t.apiKey, wf.body.id, { input: { url: `${gate.url}/article.json` }, idempotency_key: 'article-42' });
    expect(run.status, run.text).toBe(202);
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.output).toEqual({ card: { result: { title: 'Hello Workflows World', slug: 'hello-workflows-world', tags: ['a', 'b'] } } });
  });

  it('templates keep JSON types for whole-value references; JSONata maps and conditions', async () => {
    const wf = await create(t.apiKey, {
      name: 'types',
      steps: [
        // math's first call loads mathjs into a worker: on a loaded machine that can hit the action deadline once.
        {
          id: 'a',
          module: 'math',
          action: 'evaluate',
          input: { expression: 'x * 2', variables: { x: '{{input.n}}' } },
          retry: { max_attempts: 3, backoff_ms: 0, backoff: 'fixed' },
        },
        {
          id: 'b',
          module: 'math',
          action: 'evaluate',
          input: { expression: 'y + 1' },
          map: '{"variables": {"y": steps.a.output.result * 10}}',
          depends_on: ['a'],
          retry: { max_attempts: 3, backoff_ms: 0, backoff: 'fixed' },
        },
        {
          id: 'c',
          module: 'json',
          action: 'merge',
          input: { objects: [{ whole: '{{steps.b.output}}', text: 'n={{input.n}} b={{steps.b.output.result}}', list: '{{input.list}}' }] },
          depends_on: ['b'],
        },
        { id: 'd', module: 'text', action: 'slugify', input: { text: 'big' }, if: 'steps.b.output.result > 1000', depends_on: ['b'] },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await start(t.apiKey, wf.body.id, { input: { n: 21, list: [1, 'two', { three: 3 }] } });
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const step = (id: string) => done.steps.find((x: any) => x.id === id);
    expect(step('a').input).toEqual({ expression: 'x * 2', variables: { x: 21 } });
    expect(step('a').output.result).toBe(42);
    expect(step('b').input).toEqual({ expression: 'y + 1', variables: { y: 420 } });
    expect(step('c').output.result).toEqual({ whole: step('b').output, text: 'n=21 b=421', list: [1, 'two', { three: 3 }] });
    expect(step('d').status).toBe('skipped');
    expect(done.output).toEqual({ c: step('c').output });
  });

  it('a false `if` skips the step and its dependents; the run completes', async () => {
    const wf = await create(t.apiKey, {
      name: 'skip',
      steps: [
        { id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } },
        { id: 'b', module: 'text', action: 'slugify', input: { text: 'y' }, if: 'input.go = true', depends_on: ['a'] },
        { id: 'c', module: 'text', action: 'slugify', input: { text: '{{steps.b.output.slug}}' }, depends_on: ['b'] },
      ],
    });
    const done = await finished(t.apiKey, wf.body.id, (await start(t.apiKey, wf.body.id, { input: { go: false } })).body.run_id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((x: any) => x.status)).toEqual(['succeeded', 'skipped', 'skipped']);
    expect(done.steps[1].execution_ids).toEqual([]);
    const ran = await finished(t.apiKey, wf.body.id, (await start(t.apiKey, wf.body.id, { input: { go: true } })).body.run_id);
    expect(ran.steps.map((x: any) => x.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('refuses invalid definitions with 400 naming the step', async () => {
    const step = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      module: 'text',
      action: 'slugify',
      input: { text: 'x' },
      ...extra,
    });
    const cases: [string, unknown[], RegExp][] = [
      ['duplicate id', [step('a'), step('a')], /Step 'a' is defined more than once/],
      ['unknown dependency', [step('a', { depends_on: ['zz'] })], /Step 'a' depends on unknown step 'zz'/],
      ['cycle', [step('a', { depends_on: ['b'] }), step('b', { depends_on: ['a'] })], /cycle: (a -> b -> a|b -> a -> b)/],
      ['self cycle', [step('a', { depends_on: ['a'] })], /Step 'a' is part of a dependency cycle/],
      ['unknown module', [step('a', { module: 'no-such-module' })], /Step 'a' uses unknown module 'no-such-module'/],
      ['unknown action', [step('a', { action: 'no_such_action' })], /Step 'a': module 'text' has no action 'no_such_action'/],
      [
        'reference to an unknown step',
        [step('a', { input: { text: '{{steps.zz.output.slug}}' } })],
        /Step 'a' references unknown step 'zz'/,
      ],
      [
        'reference to a non-ancestor',
        [step('a'), step('b', { input: { text: '{{steps.a.output.slug}}' } })],
        /Step 'b' references step 'a', which is not one of its dependencies/,
      ],
      [
        'reference to a sibling',
        [step('r'), step('a', { depends_on: ['r'] }), step('b', { depends_on: ['r'], input: { text: '{{steps.a.output.slug}}' } })],
        /Step 'b' references step 'a'/,
      ],
      ['a bad reference', [step('a', { input: { text: '{{env.SECRET}}' } })], /Step 'a': '\{\{env.SECRET\}\}' is not a reference/],
      ['a non-ancestor in JSONata', [step('a'), step('b', { if: 'steps.a.output.slug = "x"' })], /Step 'b' references step 'a'/],
      [
        'a non-ancestor by $lookup in if',
        [step('a'), step('b', { if: '$lookup(steps, "a").output.slug = "x"' })],
        /Step 'b' references step 'a', which is not one of its dependencies/,
      ],
      [
        'a non-ancestor by $lookup in map',
        [step('a'), step('b', { map: '{"text": $lookup(steps, "a").output.slug}' })],
        /Step 'b' references step 'a', which is not one of its dependencies/,
      ],
      [
        'a non-ancestor by ~> $lookup',
        [step('a'), step('b', { map: '{"text": (steps ~> $lookup("a")).output.slug}' })],
        /Step 'b' references step 'a'/,
      ],
      ['a non-ancestor in backticks', [step('a'), step('b', { map: '{"text": steps.`a`.output.slug}' })], /Step 'b' references step 'a'/],
      ['a non-ancestor through $$', [step('a'), step('b', { map: '{"text": $$.steps.a.output.slug}' })], /Step 'b' references step 'a'/],
      ['a non-ancestor spaced out', [step('a'), step('b', { if: 'steps . a . output.slug = "x"' })], /Step 'b' references step 'a'/],
      ['an unknown step by $lookup', [step('a', { if: '$lookup(steps, "zz")' })], /Step 'a' references unknown step 'zz'/],
      [
        'a dynamic $lookup',
        [step('a'), step('b', { depends_on: ['a'], map: '{"text": $lookup(steps, input.which).output.slug}' })],
        /Step 'b' map: reads steps without naming a step/,
      ],
      [
        'steps.*',
        [step('a'), step('b', { depends_on: ['a'], if: '$count(steps.*) > 0' })],
        /Step 'b' if: reads steps without naming a step/,
      ],
      [
        '$keys(steps)',
        [step('a'), step('b', { depends_on: ['a'], if: '"a" in $keys(steps)' })],
        /Step 'b' if: reads steps without naming a step/,
      ],
      ['invalid JSONata', [step('a', { map: '{{{' })], /Step 'a': Invalid JSONata expression/],
    ];
    for (const [what, steps, message] of cases) {
      const res = await create(t.apiKey, { name: what, steps });
      const body = expectError(res, 400, 'invalid_request');
      expect(body.message, what).toMatch(message);
      expect(body.issues[0].path, what).toMatch(/^steps\.\d+/);
    }
    // The place: the step's `if` or `map`.
    const dynamic = expectError(
      await create(t.apiKey, {
        name: 'dynamic',
        steps: [step('a'), step('b', { depends_on: ['a'], map: '{"text": $lookup(steps, input.k)}' })],
      }),
      400,
      'invalid_request',
    );
    expect(dynamic.issues).toEqual([
      { path: 'steps.1.map', message: expect.stringMatching(/^Step 'b' map: reads steps without naming a step/) },
    ]);
    const lookup = expectError(
      await create(t.apiKey, { name: 'lookup', steps: [step('a'), step('b', { if: '$lookup(steps, "a")' })] }),
      400,
      'invalid_request',
    );
    expect(lookup.issues[0].path).toBe('steps.1.if');
    // Named references to ancestors are fine, and so are fields that are only called `steps`.
    const fine = await create(t.apiKey, {
      name: 'named references',
      steps: [
        step('a'),
        step('b', {
          depends_on: ['a'],
          if: '$lookup(steps, "a").output.slug = "x" or input.steps.zz or "steps.zz" = input.s',
          map: '{"text": input.items[steps > 1].name}',
        }),
      ],
    });
    expect(fine.status, fine.text).toBe(201);
    expectError(
      await create(t.apiKey, { name: 'too many', steps: Array.from({ length: 51 }, (_, i) => step(`s${i}`)) }),
      400,
      'invalid_request',
    );
    expectError(await create(t.apiKey, { name: 'bad id', steps: [step('1abc')] }), 400, 'invalid_request');
    expectError(await create(t.apiKey, { name: 'no steps', steps: [] }), 400, 'invalid_request');
  });

  it("an expression sees only its step's ancestors, however it reaches the context", async () => {
    // `$eval` reads the context without naming a step, which no check on save can see. `other`
    // has finished before `a` is let go, so `late` would find its output if the context held it.
    const wf = await create(t.apiKey, {
      name: 'scoped context',
      steps: [
        { id: 'a', module: 'http', action: 'fetch', input: { url: `${gate.url}/hold/scoped` } },
        { id: 'other', module: 'text', action: 'slugify', input: { text: 'other' } },
        {
          id: 'late',
          module: 'json',
          action: 'merge',
          input: { objects: [] },
          map: '{"objects": [{"seen": $join($keys($eval("steps")), ",")}]}',
          depends_on: ['a'],
        },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await start(t.apiKey, wf.body.id);
    expect(run.status, run.text).toBe(202);
    await until('other to succeed while a is held', async () => {
      const res = await s.call(`/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`, { key: t.apiKey });
      return res.body.steps.find((x: any) => x.id === 'other').status === 'succeeded' && gate.waiting('scoped') > 0;
    });
    gate.release('scoped');
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.steps.find((x: any) => x.id === 'late').output).toEqual({ result: { seen: 'a' } });
  });

  it('a failing step retries with backoff, then fails the run with workflow.failed (failing step, error, completed steps)', async () => {
    const closed = `http://127.0.0.1:1/refused`;
    const wf = await create(t.apiKey, {
      name: 'retries',
      steps: [
        { id: 'ok', module: 'text', action: 'slugify', input: { text: 'fine' } },
        {
          id: 'flaky',
          module: 'http',
          action: 'fetch',
          input: { url: closed },
          depends_on: ['ok'],
          retry: { max_attempts: 3, backoff_ms: 200, backoff: 'exponential' },
        },
        { id: 'after', module: 'text', action: 'slugify', input: { text: 'never' }, depends_on: ['flaky'] },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    // Each retry's commit tells this instance's step workers when it falls due (src/jobs/workflows.ts
    // wakes one then), so a retry does not wait for the workers' next poll.
    const dueLater: { queue: string; at: number }[] = [];
    const unhook = s.svc.outbox.afterCommit((c) => dueLater.push(...c.laterJobs));
    const startedAt = Date.now();
    const run = await start(t.apiKey, wf.body.id);
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    unhook();
    expect(dueLater.map((j) => j.queue)).toEqual(['workflow-step', 'workflow-step']);
    expect(dueLater[0]!.at).toBeGreaterThanOrEqual(startedAt + 200);
    expect(dueLater[1]!.at - dueLater[0]!.at).toBeGreaterThanOrEqual(400);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ step: 'flaky', code: 'module_error' });
    const flaky = done.steps.find((x: any) => x.id === 'flaky');
    expect(flaky).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'module_error' } });
    expect(flaky.execution_ids).toHaveLength(3);
    const records = await executionsOf(flaky.execution_ids);
    expect(records.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    // Backoff: each attempt started no earlier than the previous one's end plus its backoff (200, 400 ms).
    const starts = records.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
    expect(starts[1]!.createdAt.getTime() - starts[0]!.finishedAt!.getTime()).toBeGreaterThanOrEqual(150);
    expect(starts[2]!.createdAt.getTime() - starts[1]!.finishedAt!.getTime()).toBeGreaterThanOrEqual(350);
    expect(done.steps.find((x: any) => x.id === 'after').status).toBe('cancelled');
    const failed = (await workflowEvents(t.tenantId, 'workflow.failed')).map((e) => e.data);
    expect(failed).toContainEqual(
      expect.objectContaining({
        run_id: run.body.run_id,
        status: 'failed',
        failed_step: 'flaky',
        error: expect.objectContaining({ code: 'module_error' }),
        completed_steps: ['ok'],
      }),
    );
  });

  it("a step's timeout_ms stops its execution there: each attempt is a recorded timeout, and no retry overlaps one still running", async () => {
    const wf = await create(t.apiKey, {
      name: 'step-deadline',
      steps: [
        {
          id: 'slow',
          module: 'http',
          action: 'fetch',
          input: { url: `${gate.url}/hold/deadline` },
          timeout_ms: 300,
          retry: { max_attempts: 2, backoff_ms: 100, backoff: 'fixed' },
        },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await start(t.apiKey, wf.body.id);
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(done.error).toMatchObject({ step: 'slow', code: 'timeout' });
    const slow = done.steps.find((x: any) => x.id === 'slow');
    expect(slow).toMatchObject({ status: 'failed', attempts: 2, error: { code: 'timeout' } });
    // Both attempts' executions are the step's, each stopped at the step's deadline.
    expect(slow.execution_ids).toHaveLength(2);
    const records = (await executionsOf(slow.execution_ids)).sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
    expect(records.map((r) => [r.status, r.errorCode])).toEqual([
      ['failed', 'timeout'],
      ['failed', 'timeout'],
    ]);
    expect(records[1]!.createdAt.getTime()).toBeGreaterThanOrEqual(records[0]!.finishedAt!.getTime());
    expect(records.every((r) => r.latencyMs! < 5_000)).toBe(true);
    // The fetches were abandoned at the deadline, not left waiting on the receiver.
    await until('the held requests to be dropped', async () => gate.waiting('deadline') === 0, 10_000);
  });

  it('cancel: running steps finish, nothing new starts, the run is cancelled; a finished run is 409', async () => {
    const wf = await create(t.apiKey, {
      name: 'cancel',
      steps: [
        { id: 'slow', module: 'http', action: 'fetch', input: { url: `${gate.url}/hold/cancel` } },
        { id: 'next', module: 'text', action: 'slugify', input: { text: 'x' }, depends_on: ['slow'] },
      ],
    });
    const run = await start(t.apiKey, wf.body.id);
    await until('the slow step to be waiting at the gate', async () => gate.waiting('cancel') === 1);
    const cancelled = await s.call(`/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}/cancel`, { key: t.apiKey, method: 'POST' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.steps.map((x: any) => x.status)).toEqual(['running', 'cancelled']);
    gate.release('cancel');
    const after = await until('the running step to finish', async () => {
      const res = await s.call(`/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`, { key: t.apiKey });
      return res.body.steps[0].status !== 'running' ? res.body : undefined;
    });
    expect(after.status).toBe('cancelled');
    expect(after.steps.map((x: any) => x.status)).toEqual(['succeeded', 'cancelled']);
    expect(after.steps[1].execution_ids).toEqual([]);
    expectError(
      await s.call(`/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}/cancel`, { key: t.apiKey, method: 'POST' }),
      409,
      'conflict',
    );
    const list = await s.call(`/api/v1/workflows/${wf.body.id}/runs?status=cancelled`, { key: t.apiKey });
    expect(list.body.data.map((r: any) => r.run_id)).toEqual([run.body.run_id]);
  });

  it('the same idempotency key returns the same run; runs are listed newest first with cursors', async () => {
    const wf = await create(t.apiKey, { name: 'idem', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } }] });
    const [one, two] = await Promise.all([
      start(t.apiKey, wf.body.id, { input: {}, idempotency_key: 'order-42' }),
      start(t.apiKey, wf.body.id, { input: {}, idempotency_key: 'order-42' }),
    ]);
    expect(one.status, one.text).toBe(202);
    expect(two.status, two.text).toBe(202);
    expect(two.body.run_id).toBe(one.body.run_id);
    await finished(t.apiKey, wf.body.id, one.body.run_id);
    const again = await start(t.apiKey, wf.body.id, { input: {}, idempotency_key: 'order-42' });
    expect(again.body).toMatchObject({ run_id: one.body.run_id, status: 'completed' });
    const other = await start(t.apiKey, wf.body.id, { input: {}, idempotency_key: 'order-43' });
    expect(other.body.run_id).not.toBe(one.body.run_id);
    const page1 = await s.call(`/api/v1/workflows/${wf.body.id}/runs?limit=1`, { key: t.apiKey });
    expect(page1.body).toMatchObject({ has_more: true, data: [{ run_id: other.body.run_id }] });
    const page2 = await s.call(`/api/v1/workflows/${wf.body.id}/runs?limit=1&cursor=${page1.body.next_cursor}`, { key: t.apiKey });
    expect(page2.body).toMatchObject({ has_more: false, data: [{ run_id: one.body.run_id }] });
  });

  it('counts quota once per step attempt; a run over the quota fails its step with quota_exceeded', async () => {
    const u = await s.register();
    const wf = await create(u.apiKey, {
      name: 'quota',
      steps: [
        { id: 'a', module: 'text', action: 'slugify', input: { text: 'a' } },
        {
          id: 'b',
          module: 'http',
          action: 'fetch',
          input: { url: 'http://127.0.0.1:1/' },
          depends_on: ['a'],
          retry: { max_attempts: 2, backoff_ms: 0, backoff: 'fixed' },
        },
      ],
    });
    const done = await finished(u.apiKey, wf.body.id, (await start(u.apiKey, wf.body.id)).body.run_id);
    expect(done.steps.map((x: any) => x.attempts)).toEqual([1, 2]);
    const usage = await s.call('/api/v1/billing/usage', { key: u.apiKey });
    expect(usage.body.executions.used).toBe(3);

    const quota = await s.call(`/api/v1/admin/tenants/${u.tenantId}/plan`, {
      method: 'PUT',
      headers: { 'x-admin-token': ADMIN_TOKEN },
      body: { plan: 'free', executions_per_month: 4 },
    });
    expect(quota.status, quota.text).toBe(200);
    const wf2 = await create(u.apiKey, {
      name: 'over',
      steps: [
        { id: 'a', module: 'text', action: 'slugify', input: { text: 'a' } },
        {
          id: 'b',
          module: 'text',
          action: 'slugify',
          input: { text: 'b' },
          depends_on: ['a'],
          retry: { max_attempts: 3, backoff_ms: 0, backoff: 'fixed' },
        },
      ],
    });
    const over = await finished(u.apiKey, wf2.body.id, (await start(u.apiKey, wf2.body.id)).body.run_id);
    expect(over.status).toBe('failed');
    expect(over.error).toMatchObject({ step: 'b', code: 'quota_exceeded' });
    expect(over.steps[1]).toMatchObject({ status: 'failed', attempts: 1, execution_ids: [] });
    expect((await s.call('/api/v1/billing/usage', { key: u.apiKey })).body.executions.used).toBe(4);
  });

  it('a run past its wall time (WORKFLOW_MAX_RUN_MS) fails at its next step with timeout', async () => {
    const short = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', WORKFLOW_MAX_RUN_MS: '3000' } });
    try {
      const u = await short.register();
      const wf = await short.call('/api/v1/workflows', {
        key: u.apiKey,
        body: {
          name: 'wall',
          steps: [
            { id: 'a', module: 'http', action: 'fetch', input: { url: `${gate.url}/hold/wall` } },
            { id: 'b', module: 'text', action: 'slugify', input: { text: 'late' }, depends_on: ['a'] },
          ],
        },
      });
      const run = await short.call(`/api/v1/workflows/${wf.body.id}/runs`, { key: u.apiKey, body: { input: {} } });
      const getRun = async () => (await short.call(`/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`, { key: u.apiKey })).body;
      // Normally a reaches the gate within the 3 s; on a very loaded machine its job may be taken
      // only after the deadline, and then a itself fails the run (never executed): both are the rule.
      const first = await until('a to wait at the gate, or the run to fail', async () =>
        gate.waiting('wall') === 1 ? 'held' : (await getRun()).status === 'failed' ? 'failed' : undefined,
      );
      if (first === 'held') {
        await sleep(3200); // past the run's wall time
        gate.release('wall');
      }
      const done = await until('the run to fail', async () => {
        const body = await getRun();
        return body.status === 'failed' ? body : undefined;
      });
      expect(done.error).toMatchObject({ step: first === 'held' ? 'b' : 'a', code: 'timeout' });
      const failed = done.steps.find((x: any) => x.id === done.error.step);
      expect(failed).toMatchObject({ status: 'failed', execution_ids: [] });
      expect(done.steps[1].execution_ids).toEqual([]);
      if (first === 'held') expect(done.steps[0]).toMatchObject({ status: 'succeeded', execution_ids: [expect.any(String)] });
    } finally {
      await short.close();
    }
  }, 180_000);

  it('webhooks receive workflow.completed and workflow.failed in the documented shapes', async () => {
    const receiver = await startReceiver();
    try {
      const u = await s.register();
      await s.setPlan(u.tenantId, 'pro');
      const sub = await s.call('/api/v1/webhooks', {
        key: u.apiKey,
        body: { url: receiver.url, events: ['workflow.completed', 'workflow.failed'] },
      });
      expect(sub.status, sub.text).toBe(201);
      const ok = await create(u.apiKey, {
        name: 'ok',
        steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'Event Me' } }],
      });
      const bad = await create(u.apiKey, {
        name: 'bad',
        steps: [
          { id: 'a', module: 'text', action: 'slugify', input: { text: 'first' } },
          { id: 'b', module: 'http', action: 'fetch', input: { url: 'http://127.0.0.1:1/' }, depends_on: ['a'] },
        ],
      });
      const okRun = await start(u.apiKey, ok.body.id);
      const badRun = await start(u.apiKey, bad.body.id);
      const got = await receiver.waitFor(2, { timeoutMs: 120_000 });
      const byEvent = new Map(got.map((r) => [r.body.event, r.body.data]));
      const completed = EVENT_DATA_SCHEMAS['workflow.completed'].parse(byEvent.get('workflow.completed'));
      expect(completed).toMatchObject({
        workflow_id: ok.body.id,
        run_id: okRun.body.run_id,
        outputs: { a: { slug: 'event-me' } },
        run_url: `/api/v1/workflows/${ok.body.id}/runs/${okRun.body.run_id}`,
      });
      const failed = EVENT_DATA_SCHEMAS['workflow.failed'].parse(byEvent.get('workflow.failed'));
      expect(failed).toMatchObject({
        workflow_id: bad.body.id,
        run_id: badRun.body.run_id,
        failed_step: 'b',
        error: { code: 'module_error' },
        completed_steps: ['a'],
      });
    } finally {
      await receiver.close();
    }
  }, 180_000);

  it('MCP: workflows__start and workflows__get_run, listed once the tenant has a workflow', async () => {
    const u = await s.register();
    const rpc = (body: unknown) =>
      s.call('/api/mcp', {
        key: u.apiKey,
        method: 'POST',
        body,
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      });
    const names = async () =>
      ((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools as { name: string }[]).map((x) => x.name);
    expect(await names()).not.toContain('workflows__start');
    const wf = await create(u.apiKey, {
      name: 'mcp',
      steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: '{{input.text}}' } }],
    });
    expect(await names()).toEqual(expect.arrayContaining(['workflows__start', 'workflows__get_run']));
    const call = (name: string, args: unknown) => rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });
    const started = await call('workflows__start', { workflow_id: wf.body.id, input: { text: 'From MCP' } });
    expect(started.body.result.isError, started.text).toBeFalsy();
    const runId = started.body.result.structuredContent.run_id;
    expect(runId).toMatch(/^run_/);
    await finished(u.apiKey, wf.body.id, runId);
    const got = await call('workflows__get_run', { workflow_id: wf.body.id, run_id: runId });
    expect(got.body.result.structuredContent).toMatchObject({ run_id: runId, status: 'completed', output: { a: { slug: 'from-mcp' } } });
    const missing = await call('workflows__get_run', { workflow_id: wf.body.id, run_id: 'run_nope' });
    expect(missing.body.result.isError).toBe(true);
    expect(JSON.parse(missing.body.result.content[0].text)).toMatchObject({ error: 'not_found' });
  });

  it('at most 200 workflows per tenant, also when creates race (409 past it)', async () => {
    const owner = await s.register();
    await s.setPlan(owner.tenantId, 'business');
    const step = { id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } };
    await s.svc.db.insert(workflows).values(
      Array.from({ length: 197 }, (_, i) => ({
        id: `wf_limit${owner.tenantId.slice(0, 8)}${i}`,
        tenantId: owner.tenantId,
        name: `w${i}`,
        steps: [step],
      })),
    );
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(owner.apiKey, { name: `race ${i}`, steps: [step] })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectError(refused, 409, 'conflict');
    const [{ n } = { n: 0 }] = await s.svc.db.select({ n: count() }).from(workflows).where(eq(workflows.tenantId, owner.tenantId));
    expect(n).toBe(200);
  });

  it('runs started while the workflow is deleted are 202 (and go with it) or 404, never a 500', async () => {
    const wf = await create(t.apiKey, { name: 'doomed', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } }] });
    expect(wf.status, wf.text).toBe(201);
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => start(t.apiKey, wf.body.id)),
      s.call(`/api/v1/workflows/${wf.body.id}`, { key: t.apiKey, method: 'DELETE' }),
      ...Array.from({ length: 8 }, () => start(t.apiKey, wf.body.id)),
    ]);
    for (const a of answers) expect([200, 202, 404], a.text).toContain(a.status);
    expect((await s.svc.db.select().from(workflowRuns).where(eq(workflowRuns.workflowId, wf.body.id))).length).toBe(0);
  });

  it('a template reads only the data of the input and outputs: {{input.constructor}} names nothing', async () => {
    const wf = await create(t.apiKey, {
      name: 'proto',
      steps: [
        {
          id: 'a',
          module: 'json',
          action: 'merge',
          input: { objects: [{ c: '{{input.constructor}}', p: '{{input.__proto__}}', s: 'x{{input.toString}}y', k: '{{input.k}}' }] },
        },
      ],
    });
    expect(wf.status, wf.text).toBe(201);
    const run = await start(t.apiKey, wf.body.id, { input: { k: 1 } });
    const done = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.steps[0].input).toEqual({ objects: [{ s: 'xy', k: 1 }] });
  });

  it("another tenant's workflow and runs are 404; scopes are enforced", async () => {
    const wf = await create(t.apiKey, { name: 'mine', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } }] });
    const run = await start(t.apiKey, wf.body.id);
    const other = await s.register();
    const base = `/api/v1/workflows/${wf.body.id}`;
    expectError(await s.call(base, { key: other.apiKey }), 404, 'not_found');
    expectError(
      await s.call(base, {
        key: other.apiKey,
        method: 'PUT',
        body: { name: 'x', steps: [{ id: 'a', module: 'text', action: 'slugify' }] },
      }),
      404,
      'not_found',
    );
    expectError(await s.call(base, { key: other.apiKey, method: 'DELETE' }), 404, 'not_found');
    expectError(await start(other.apiKey, wf.body.id), 404, 'not_found');
    expectError(await s.call(`${base}/runs`, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`${base}/runs/${run.body.run_id}`, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`${base}/runs/${run.body.run_id}/cancel`, { key: other.apiKey, method: 'POST' }), 404, 'not_found');
    expect((await s.call('/api/v1/workflows', { key: other.apiKey })).body.data).toEqual([]);

    const readOnly = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    expect(readOnly.status, readOnly.text).toBe(201);
    const read = await s.call(base, { key: readOnly.body.api_key });
    expect(read.status, read.text).toBe(200);
    expectError(
      await create(readOnly.body.api_key, { name: 'x', steps: [{ id: 'a', module: 'text', action: 'slugify' }] }),
      403,
      'insufficient_scope',
    );
    expectError(await start(readOnly.body.api_key, wf.body.id), 403, 'insufficient_scope');

    const updated = await s.call(base, {
      key: t.apiKey,
      method: 'PUT',
      body: { name: 'mine v2', steps: [{ id: 'b', module: 'text', action: 'slugify', input: { text: 'y' } }] },
    });
    expect(updated.body).toMatchObject({ version: 2, name: 'mine v2' });
    const old = await finished(t.apiKey, wf.body.id, run.body.run_id);
    expect(old).toMatchObject({ workflow_version: 1, steps: [{ id: 'a' }] });
    const deleted = await s.call(base, { key: t.apiKey, method: 'DELETE' });
    expect(deleted.body).toEqual({ id: wf.body.id, deleted: true });
    expectError(await s.call(`${base}/runs/${run.body.run_id}`, { key: t.apiKey }), 404, 'not_found');
  });
});
