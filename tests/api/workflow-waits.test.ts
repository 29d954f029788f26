/**
 * Waiting steps (docs/workflows.md, Steps that wait): sleep, wait_for_event and approval, on both
 * backends. Wake-ups are driven through `wakeDueSteps` with a clock the test sets (the delayed
 * job does the same at the real time); events come from real executions; approvals through REST
 * with an API key and with a signed-in member.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '@supabase/supabase-js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditLog, events, workflowRuns } from '../../src/db/schema';
import { EVENT_DATA_SCHEMAS } from '../../src/contract/events';
import { wakeDueSteps } from '../../src/workflows/waits';
import { until } from '../child-service';
import { eventsHandled } from '../workflow-inbox';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

const MINUTE = 60_000;

backends.describe('workflow steps that wait (%s)', (backend) => {
  let s: TestServer;
  let t: { apiKey: string; tenantId: string };
  let other: { apiKey: string; tenantId: string };

  const create = async (steps: unknown[], key = t.apiKey) => {
    const res = await s.call('/api/v1/workflows', { key, body: { name: `wf-${randomBytes(3).toString('hex')}`, steps } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const start = async (id: string, input: Record<string, unknown> = {}) => {
    const res = await s.call(`/api/v1/workflows/${id}/runs`, { key: t.apiKey, body: { input } });
    expect(res.status, res.text).toBe(202);
    return res.body.run_id as string;
  };
  const getRun = async (id: string, run: string) => (await s.call(`/api/v1/workflows/${id}/runs/${run}`, { key: t.apiKey })).body;
  const stepOf = (run: any, step: string) => run.steps.find((x: any) => x.id === step);
  const whenStep = (id: string, run: string, step: string, status: string) =>
    until(`${step} ${status}`, async () => {
      const r = await getRun(id, run);
      return stepOf(r, step).status === status ? r : undefined;
    });
  const whenRun = (id: string, run: string, status: string) =>
    until(`run ${status}`, async () => {
      const r = await getRun(id, run);
      return r.status === status ? r : undefined;
    });

  beforeAll(async () => {
    s = await startTestServer({ backend });
    t = await s.register();
    other = await s.register();
    await s.setPlan(t.tenantId, 'business');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('refuses malformed waiting steps with the step and field named', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ id: 'a', kind: 'sleep', for: '1m', until: '2030-01-01T00:00:00Z' }, 'steps.0', /exactly one of `for` and `until`/],
      [{ id: 'a', kind: 'sleep', for: '15 minutes' }, 'steps.0.for', /duration/],
      [{ id: 'a', kind: 'sleep', for: '400d' }, 'steps.0.for', /365 days/],
      [{ id: 'a', kind: 'sleep', until: 'tomorrow' }, 'steps.0.until', /ISO 8601/],
      [{ id: 'a', kind: 'wait_for_event', event: 'order.paid', timeout: '1h' }, 'steps.0.event', /unknown event kind 'order.paid'/],
      [
        { id: 'a', kind: 'wait_for_event', event: 'execution.failed', timeout: '1h', match: 'steps.zz.output' },
        'steps.0.match',
        /unknown step 'zz'/,
      ],
      [{ id: 'a', kind: 'approval', prompt: 'ok?', timeout: '1h', approvers: ['boss'] }, 'steps.0.approvers.0', /.+/],
      [{ id: 'a', kind: 'approval', prompt: 'Refund {{steps.b.output.x}}?', timeout: '1h' }, 'steps.0.prompt', /unknown step 'b'/],
      [{ id: 'a', kind: 'teleport' }, 'steps.0.kind', /.+/],
    ];
    for (const [step, path, message] of cases) {
      const res = await s.call('/api/v1/workflows', { key: t.apiKey, body: { name: 'bad', steps: [step] } });
      expectError(res, 400, 'invalid_request');
      expect(res.body.issues?.[0]?.path, `${JSON.stringify(step)} -> ${res.text}`).toBe(path);
      expect(res.text, JSON.stringify(step)).toMatch(message);
    }
  });

  it('a sleep waits without a worker and wakes when its time comes (clock set by the test)', async () => {
    const id = await create([
      { id: 'nap', kind: 'sleep', for: '15m' },
      { id: 'slug', module: 'text', action: 'slugify', input: { text: 'Woke Up' }, depends_on: ['nap'] },
    ]);
    const startedAt = Date.now();
    const run = await start(id);
    const waiting = await whenStep(id, run, 'nap', 'waiting');
    expect(waiting.status).toBe('running');
    expect(stepOf(waiting, 'nap')).toMatchObject({ kind: 'sleep', module: null, action: null, wait: { kind: 'sleep' } });
    const wakeAt = Date.parse(stepOf(waiting, 'nap').wait.until);
    expect(wakeAt).toBeGreaterThanOrEqual(startedAt + 15 * MINUTE);
    const [before] = await s.svc.db.select().from(workflowRuns).where(eq(workflowRuns.id, run));

    expect(await wakeDueSteps(s.svc, new Date(wakeAt - MINUTE))).toBe(0);
    expect(stepOf(await getRun(id, run), 'nap').status).toBe('waiting');
    expect(await wakeDueSteps(s.svc, new Date(wakeAt + 1))).toBe(1);
    const done = await whenRun(id, run, 'completed');
    expect(stepOf(done, 'nap')).toMatchObject({ status: 'succeeded', output: { slept_until: new Date(wakeAt).toISOString() } });
    expect(done.output).toEqual({ slug: { slug: 'woke-up' } });
    // Waiting does not use the run's wall time: the deadline moved by the time slept.
    const [after] = await s.svc.db.select().from(workflowRuns).where(eq(workflowRuns.id, run));
    expect(after!.deadlineAt.getTime() - before!.deadlineAt.getTime()).toBeGreaterThanOrEqual(15 * MINUTE - 1000);
    // Waking again finds nothing.
    expect(await wakeDueSteps(s.svc, new Date(wakeAt + MINUTE))).toBe(0);
  });

  it('a short sleep wakes by its own delayed job; `until` from the input, a time past wakes at once', async () => {
    const id = await create([{ id: 'nap', kind: 'sleep', for: '1s' }]);
    const run = await start(id);
    expect((await whenRun(id, run, 'completed')).steps[0].status).toBe('succeeded');

    const byInput = await create([{ id: 'nap', kind: 'sleep', until: '{{input.at}}' }]);
    const past = await start(byInput, { at: '2020-01-01T00:00:00Z' });
    expect(stepOf(await whenRun(byInput, past, 'completed'), 'nap').output).toEqual({ slept_until: '2020-01-01T00:00:00.000Z' });
    const bad = await start(byInput, { at: 'soon' });
    const failed = await whenRun(byInput, bad, 'failed');
    expect(failed.error).toMatchObject({ step: 'nap', code: 'invalid_input' });
    expect(failed.error.message).toMatch(/not an ISO 8601 time/);
  });

  it('wait_for_event resumes on the matching event only, with the event as its output', async () => {
    const id = await create([
      {
        id: 'seen',
        kind: 'wait_for_event',
        event: 'execution.completed',
        match: 'event.data.action = "slugify" and event.data.module = input.module',
        timeout: '1h',
      },
      {
        id: 'after',
        module: 'text',
        action: 'change_case',
        input: { text: '{{steps.seen.output.data.action}}', to: 'upper' },
        depends_on: ['seen'],
      },
    ]);
    // An event before the wait began does not count.
    await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Too Early' } } });
    const run = await start(id, { module: 'text' });
    await whenStep(id, run, 'seen', 'waiting');
    // Not the kind, not matching, another tenant's: nothing.
    await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'change_case', input: { text: 'x', to: 'upper' } } });
    await s.call('/api/v1/modules/text/execute', { key: other.apiKey, body: { action: 'slugify', input: { text: 'Other Tenant' } } });
    await eventsHandled(s.svc, t.tenantId);
    expect(stepOf(await getRun(id, run), 'seen').status).toBe('waiting');

    const matching = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Now' } } });
    expect(matching.status, matching.text).toBe(200);
    const done = await whenRun(id, run, 'completed');
    const seen = stepOf(done, 'seen');
    expect(seen.output).toMatchObject({
      type: 'execution.completed',
      data: { execution_id: matching.body.execution_id, action: 'slugify' },
    });
    expect(seen.output.id).toMatch(/^evt_/);
    expect(stepOf(done, 'after').output).toEqual({ result: 'SLUGIFY' });
  });

  it('wait_for_event times out as configured: fail (default) or continue with null', async () => {
    const failing = await create([{ id: 'w', kind: 'wait_for_event', event: 'module.installed', timeout: '10m' }]);
    const going = await create([
      { id: 'w', kind: 'wait_for_event', event: 'module.installed', timeout: '10m', on_timeout: 'continue' },
      { id: 'then', module: 'text', action: 'slugify', input: { text: 'went on' }, depends_on: ['w'] },
    ]);
    const a = await start(failing);
    const b = await start(going);
    await whenStep(failing, a, 'w', 'waiting');
    await whenStep(going, b, 'w', 'waiting');
    await wakeDueSteps(s.svc, new Date(Date.now() + 11 * MINUTE));
    const failed = await whenRun(failing, a, 'failed');
    expect(failed.error).toMatchObject({ step: 'w', code: 'timeout' });
    expect(failed.error.message).toMatch(/No matching module.installed event/);
    const went = await whenRun(going, b, 'completed');
    expect(stepOf(went, 'w')).toMatchObject({ status: 'succeeded', output: null });
  });

  it('an approval waits for a decision: workflow.waiting, approve by API, reject, timeout', async () => {
    const id = await create([
      { id: 'propose', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
      { id: 'ok', kind: 'approval', prompt: 'Publish {{steps.propose.output.slug}}?', timeout: '1d', depends_on: ['propose'] },
      {
        id: 'publish',
        module: 'text',
        action: 'change_case',
        input: { text: '{{steps.propose.output.slug}}', to: 'upper' },
        depends_on: ['ok'],
      },
    ]);
    const run = await start(id, { title: 'Hello World' });
    const waiting = await whenStep(id, run, 'ok', 'waiting');
    expect(stepOf(waiting, 'ok').wait).toMatchObject({ kind: 'approval', prompt: 'Publish hello-world?', approvers: [] });
    const [waitingEvent] = await s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, 'workflow.waiting')));
    expect(waitingEvent!.data).toMatchObject({ run_id: run, step: 'ok', kind: 'approval', prompt: 'Publish hello-world?' });
    EVENT_DATA_SCHEMAS['workflow.waiting'].parse(waitingEvent!.data);

    const path = `/api/v1/workflows/${id}/runs/${run}/steps`;
    expectError(await s.call(`${path}/propose/approve`, { key: t.apiKey, body: {} }), 400, 'invalid_request');
    expectError(await s.call(`${path}/nope/approve`, { key: t.apiKey, body: {} }), 404, 'not_found');
    expectError(await s.call(`${path}/ok/approve`, { key: other.apiKey, body: {} }), 404, 'not_found');
    const approved = await s.call(`${path}/ok/approve`, { key: t.apiKey, body: { comment: 'looks right' } });
    expect(approved.status, approved.text).toBe(200);
    expect(stepOf(approved.body, 'ok')).toMatchObject({
      status: 'succeeded',
      output: { approved: true, comment: 'looks right', by: { type: 'api_key' } },
      decision: { decision: 'approved', comment: 'looks right' },
    });
    expectError(await s.call(`${path}/ok/reject`, { key: t.apiKey, body: {} }), 409, 'conflict');
    const done = await whenRun(id, run, 'completed');
    expect(done.output).toEqual({ publish: { result: 'HELLO-WORLD' } });
    const audit = await s.svc.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, t.tenantId), eq(auditLog.action, 'workflow.step_approved')));
    expect(audit).toHaveLength(1);

    const rejected = await start(id, { title: 'Bad Idea' });
    await whenStep(id, rejected, 'ok', 'waiting');
    const no = await s.call(`/api/v1/workflows/${id}/runs/${rejected}/steps/ok/reject`, { key: t.apiKey, body: { comment: 'not now' } });
    expect(no.status, no.text).toBe(200);
    expect(no.body.status).toBe('failed');
    expect(no.body.error).toMatchObject({ step: 'ok', code: 'rejected' });
    expect(no.body.error.message).toMatch(/not now/);
    expect(stepOf(no.body, 'publish').status).toBe('cancelled');

    const ignored = await start(id, { title: 'Nobody Looks' });
    await whenStep(id, ignored, 'ok', 'waiting');
    await wakeDueSteps(s.svc, new Date(Date.now() + 25 * 60 * MINUTE));
    expect((await whenRun(id, ignored, 'failed')).error).toMatchObject({ step: 'ok', code: 'timeout' });
  });

  it('approvers: only a signed-in member with a named role or email decides; keys are refused', async () => {
    const sb = createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const email = `approver-${randomBytes(4).toString('hex')}@example.com`;
    const { data } = await sb.auth.signUp({ email, password: 'correct horse battery' });
    const bearer = data.session!.access_token;
    const registered = await s.call('/api/v1/auth/register', { bearer, body: {} });
    expect(registered.status, registered.text).toBe(201);
    const ownerKey = registered.body.api_key as string;
    const wf = await s.call('/api/v1/workflows', {
      key: ownerKey,
      body: {
        name: 'gated',
        steps: [{ id: 'ok', kind: 'approval', prompt: 'Go?', timeout: '1h', approvers: ['admin', email.toUpperCase()] }],
      },
    });
    expect(wf.status, wf.text).toBe(201);
    const started = await s.call(`/api/v1/workflows/${wf.body.id}/runs`, { key: ownerKey, body: {} });
    const path = `/api/v1/workflows/${wf.body.id}/runs/${started.body.run_id}`;
    await until('waiting', async () => (await s.call(path, { key: ownerKey })).body.steps[0].status === 'waiting');
    const refused = await s.call(`${path}/steps/ok/approve`, { key: ownerKey, body: {} });
    expectError(refused, 403, 'forbidden');
    expect(refused.body.reason).toBe('not_an_approver');
    const ok = await s.call(`${path}/steps/ok/approve`, { bearer, body: {} });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.status).toBe('completed');
    expect(ok.body.steps[0].decision.by).toMatchObject({ type: 'user', email });
  });

  it('MCP: a pending approval shows in workflows__get_run with the workflows__decide call that answers it', async () => {
    const id = await create([
      { id: 'ok', kind: 'approval', prompt: 'Refund {{input.amount}} USD?', timeout: '1h' },
      { id: 'done', module: 'text', action: 'slugify', input: { text: 'refunded' }, depends_on: ['ok'] },
    ]);
    const client = new Client({ name: 'workflow-waits-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': t.apiKey } } }),
    );
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toContain('workflows__decide');
      const started = await client.callTool({ name: 'workflows__start', arguments: { workflow_id: id, input: { amount: 42 } } });
      const runId = (started.structuredContent as { run_id: string }).run_id;
      await whenStep(id, runId, 'ok', 'waiting');
      const got = await client.callTool({ name: 'workflows__get_run', arguments: { workflow_id: id, run_id: runId } });
      const pending = (got.structuredContent as { pending_approvals: any[] }).pending_approvals;
      expect(pending).toEqual([
        expect.objectContaining({
          step: 'ok',
          prompt: 'Refund 42 USD?',
          answer_with: {
            tool: 'workflows__decide',
            arguments: { workflow_id: id, run_id: runId, step: 'ok', decision: 'approve | reject' },
          },
        }),
      ]);
      const bad = await client.callTool({
        name: 'workflows__decide',
        arguments: { workflow_id: id, run_id: runId, step: 'ok', decision: 'maybe' },
      });
      expect(bad.isError).toBe(true);
      const decided = await client.callTool({
        name: 'workflows__decide',
        arguments: { workflow_id: id, run_id: runId, step: 'ok', decision: 'approve', comment: 'from the agent owner' },
      });
      expect(decided.isError, JSON.stringify(decided.content)).toBeFalsy();
      expect((decided.structuredContent as { pending_approvals: unknown[] }).pending_approvals).toEqual([]);
      expect((await whenRun(id, runId, 'completed')).steps[0].output).toMatchObject({ approved: true, comment: 'from the agent owner' });
      const again = await client.callTool({
        name: 'workflows__decide',
        arguments: { workflow_id: id, run_id: runId, step: 'ok', decision: 'reject' },
      });
      expect(again.isError).toBe(true);
      expect(JSON.parse((again.content as { text: string }[])[0]!.text)).toMatchObject({ error: 'conflict' });
    } finally {
      await client.close();
    }
  });
});
