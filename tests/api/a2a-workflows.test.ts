/**
 * Workflow runs over A2A (docs/a2a.md, Workflow runs): an agent proposes, a person approves, the
 * run continues. Driven by the official SDK's 1.x client (JSON-RPC, A2A 1.0), with raw JSON-RPC
 * calls where the wire itself is the point (0.3 names, error codes). Runs progress through the
 * real step queue; the test polls tasks/get until a state is reached.
 */
import { randomBytes } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type SendMessageResult, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { freePort } from '../ports';

const keyedFetch =
  (key: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', key);
    return fetch(input, { ...init, headers });
  };

const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  mediaType: 'application/json',
  filename: '',
  metadata: {},
});
const userMessage = (parts: Part[], taskId = ''): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId,
  role: Role.ROLE_USER,
  parts,
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});
const send = (client: Client, parts: Part[], taskId = '') =>
  client.sendMessage({ tenant: '', message: userMessage(parts, taskId), configuration: undefined, metadata: {} });

function asTask(r: SendMessageResult): Task {
  if (!('status' in r && 'id' in r)) throw new Error(`expected a Task, got ${JSON.stringify(r)}`);
  return r;
}
const partsOf = (t: Task) => t.status?.message?.parts.map((p) => p.content) ?? [];
const textOf = (t: Task) =>
  partsOf(t)
    .flatMap((c) => (c?.$case === 'text' ? [c.value] : []))
    .join('\n');
const dataOf = (t: Task) => partsOf(t).find((c) => c?.$case === 'data')?.value as Record<string, any> | undefined;
const artifact = (t: Task, name: string) => {
  const content = t.artifacts.find((a) => a.name === name)?.parts[0]?.content;
  return content?.$case === 'data' ? content.value : undefined;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The propose → approve → publish workflow of the scenario. */
const PROPOSE_APPROVE_PUBLISH = [
  { id: 'propose', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
  { id: 'ok', kind: 'approval', prompt: 'Publish {{steps.propose.output.slug}}?', timeout: '1h', depends_on: ['propose'] },
  {
    id: 'publish',
    module: 'text',
    action: 'change_case',
    input: { text: '{{steps.propose.output.slug}}', to: 'upper' },
    depends_on: ['ok'],
  },
];

backends.describe('workflow runs over A2A /api/a2a (%s)', (backend) => {
  let s: TestServer;
  let t: { apiKey: string; tenantId: string };
  let client: Client;
  let workflowId: string;

  beforeAll(async () => {
    const port = await freePort();
    s = await startTestServer({ backend, env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    t = await s.register();
    client = await clientFor(t.apiKey);
    workflowId = await create(PROPOSE_APPROVE_PUBLISH);
  }, 120_000);
  afterAll(async () => s?.close());

  async function clientFor(key: string) {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch(key) })],
      }),
    );
    return factory.createFromUrl(s.url);
  }

  /** Creates a workflow over REST with the API key. */
  async function create(steps: unknown[], key = t.apiKey): Promise<string> {
    const res = await s.call('/api/v1/workflows', { key, body: { name: `a2a-${randomBytes(3).toString('hex')}`, steps } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  /** Polls tasks/get until the task reaches `state` (or fails the test when it reaches another final state). */
  async function until(c: Client, id: string, state: TaskState): Promise<Task> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const task = await c.getTask({ tenant: '', id, historyLength: undefined });
      if (task.status?.state === state) return task;
      const final = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED];
      if (final.includes(task.status!.state)) throw new Error(`task ${id} ended ${TaskState[task.status!.state]}: ${textOf(task)}`);
      if (Date.now() > deadline) throw new Error(`task ${id} never reached ${TaskState[state]}`);
      await sleep(100);
    }
  }

  const rpc = (key: string, body: unknown, headers: Record<string, string> = { 'A2A-Version': '1.0' }) =>
    s.call('/api/a2a', { key, method: 'POST', body, headers });
  const decisionCall = (taskId: string, data: unknown, id: string | number = 1) => ({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId, parts: [{ data }] } },
  });

  it('start a run, wait for the approval (input-required with the prompt), approve by message, read the outputs', async () => {
    const started = asTask(await send(client, [dataPart({ workflow_id: workflowId, input: { title: 'Hello A2A World' } })]));
    expect(started.id).toMatch(/^run_/);
    expect(started.contextId).toBe(started.id);
    expect(started.metadata).toMatchObject({ run_id: started.id, workflow_id: workflowId, workflow_version: 1 });
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);

    const waiting = await until(client, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(waiting)).toBe('Publish hello-a2a-world?');
    const data = dataOf(waiting)!;
    expect(data.pending_approvals).toEqual([
      { step: 'ok', prompt: 'Publish hello-a2a-world?', approvers: [], timeout_at: expect.any(String) },
    ]);
    expect(data.answer_with).toMatchObject({ task_id: started.id, data: { decision: 'approve | reject', step: 'ok' } });
    expect(waiting.metadata?.steps).toEqual([
      { id: 'propose', kind: 'action', status: 'succeeded' },
      { id: 'ok', kind: 'approval', status: 'waiting' },
      { id: 'publish', kind: 'action', status: 'pending' },
    ]);

    // The 0.3 wire names the state as 0.3 does, with the same parts.
    const legacy = await rpc(t.apiKey, { jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { id: started.id } }, {});
    expect(legacy.body.result).toMatchObject({ kind: 'task', id: started.id, status: { state: 'input-required' } });
    expect(legacy.body.result.status.message.parts).toEqual([
      expect.objectContaining({ kind: 'text', text: 'Publish hello-a2a-world?' }),
      expect.objectContaining({ kind: 'data', data: expect.objectContaining({ pending_approvals: expect.any(Array) }) }),
    ]);

    // Approve, as answer_with says: the step is left out (the only pending approval).
    const answered = asTask(await send(client, [dataPart({ decision: 'approve', comment: 'ship it' })], started.id));
    expect(answered.id).toBe(started.id);
    expect(answered.status?.state).not.toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const done = await until(client, started.id, TaskState.TASK_STATE_COMPLETED);
    expect(artifact(done, 'outputs')).toEqual({ publish: { result: 'HELLO-A2A-WORLD' } });
    // The decision is the run's, as REST shows it.
    const run = await s.call(`/api/v1/workflows/${workflowId}/runs/${started.id}`, { key: t.apiKey });
    expect(run.body.steps.find((x: { id: string }) => x.id === 'ok')).toMatchObject({
      status: 'succeeded',
      decision: { decision: 'approved', comment: 'ship it', by: { type: 'api_key' } },
    });

    // A decision on the finished run is refused as for any finished task, the state by name.
    const late = await rpc(t.apiKey, decisionCall(started.id, { decision: 'approve' }));
    expect(late.body.error).toMatchObject({
      code: -32004,
      message: expect.stringContaining(`Task ${started.id} is in a terminal state (completed)`),
    });
    await expect(send(client, [dataPart({ decision: 'reject' })], started.id)).rejects.toThrow(/terminal state \(completed\)/);
  });

  it('a rejected run is failed with the rejection as its error', async () => {
    const started = asTask(await send(client, [dataPart({ workflow_id: workflowId, input: { title: 'Not This One' } })]));
    await until(client, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    asTask(await send(client, [dataPart({ decision: 'reject', step: 'ok', comment: 'wrong title' })], started.id));
    const failed = await until(client, started.id, TaskState.TASK_STATE_FAILED);
    expect(textOf(failed)).toMatch(/^rejected: .*wrong title/);
    expect(dataOf(failed)).toMatchObject({ error: 'rejected', step: 'ok' });
    expect(failed.artifacts).toEqual([]);
  });

  it('tasks/cancel of a waiting run cancels it; canceling again is not cancelable; a read-only key may not cancel', async () => {
    const started = asTask(await send(client, [dataPart({ workflow_id: workflowId, input: { title: 'Cancel Me' } })]));
    await until(client, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);

    await s.setPlan(t.tenantId, 'pro');
    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'read-only', scopes: ['modules:read'] } });
    expect(created.status).toBe(201);
    const readOnly = created.body.api_key as string;
    expectError(
      await rpc(readOnly, { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: started.id } }),
      403,
      'insufficient_scope',
    );
    expectError(
      await rpc(readOnly, { jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { id: started.id } }, {}),
      403,
      'insufficient_scope',
    );

    const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: {} });
    expect(canceled).toMatchObject({ id: started.id, status: { state: TaskState.TASK_STATE_CANCELED } });
    expect((await client.getTask({ tenant: '', id: started.id, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    const run = await s.call(`/api/v1/workflows/${workflowId}/runs/${started.id}`, { key: t.apiKey });
    expect(run.body.status).toBe('cancelled');

    const again = await rpc(t.apiKey, { jsonrpc: '2.0', id: 2, method: 'CancelTask', params: { id: started.id } });
    expect(again.body.error).toMatchObject({ code: -32002, message: expect.stringContaining('already finished (cancelled)') });
    const decide = await rpc(t.apiKey, decisionCall(started.id, { decision: 'approve' }));
    expect(decide.body.error).toMatchObject({ code: -32004, message: expect.stringContaining('(canceled)') });
  });

  it("another tenant's run is task not found, for reading, deciding and canceling", async () => {
    const started = asTask(await send(client, [dataPart({ workflow_id: workflowId, input: { title: 'Mine' } })]));
    await until(client, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const b = await s.register();
    const other = await clientFor(b.apiKey);
    await expect(other.getTask({ tenant: '', id: started.id, historyLength: undefined })).rejects.toThrow(/not found/i);
    expect((await rpc(b.apiKey, { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: started.id } })).body.error.code).toBe(-32001);
    expect((await rpc(b.apiKey, decisionCall(started.id, { decision: 'approve' }))).body.error.code).toBe(-32001);
    expect((await rpc(b.apiKey, { jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: started.id } })).body.error.code).toBe(-32001);
    // Nor can it start a run of another tenant's workflow.
    const start = await rpc(b.apiKey, {
      jsonrpc: '2.0',
      id: 5,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { workflow_id: workflowId } }] } },
    });
    expect(start.body.error).toMatchObject({ code: -32602, message: 'No such workflow.' });
    // Still waiting for its own tenant.
    expect((await client.getTask({ tenant: '', id: started.id, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    await client.cancelTask({ tenant: '', id: started.id, metadata: {} });
  });

  it('refusals are JSON-RPC errors: a step not waiting, an unknown step, several pending, not an approver, malformed requests', async () => {
    // Two approvals in parallel, a third after them.
    const parallel = await create([
      { id: 'legal', kind: 'approval', prompt: 'Legal ok?', timeout: '1h' },
      { id: 'brand', kind: 'approval', prompt: 'Brand ok?', timeout: '1h' },
      { id: 'final', kind: 'approval', prompt: 'Final?', timeout: '1h', depends_on: ['legal', 'brand'] },
    ]);
    const started = asTask(await send(client, [dataPart({ workflow_id: parallel, idempotency_key: 'once' })]));
    // The same idempotency key answers the same run.
    const same = asTask(await send(client, [dataPart({ workflow_id: parallel, idempotency_key: 'once' })]));
    expect(same.id).toBe(started.id);
    let waiting = await until(client, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const deadline = Date.now() + 60_000;
    while ((dataOf(waiting)?.pending_approvals ?? []).length < 2 && Date.now() < deadline) {
      await sleep(100);
      waiting = await client.getTask({ tenant: '', id: started.id, historyLength: undefined });
    }
    expect(textOf(waiting).split('\n').sort()).toEqual(['brand: Brand ok?', 'legal: Legal ok?']);
    expect(dataOf(waiting)!.answer_with.data.step).toMatch(/^(legal \| brand|brand \| legal)$/);

    const several = await rpc(t.apiKey, decisionCall(started.id, { decision: 'approve' }));
    expect(several.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('waits for 2 approvals') });
    const pending = await rpc(t.apiKey, decisionCall(started.id, { decision: 'approve', step: 'final' }));
    expect(pending.body.error).toMatchObject({
      code: -32000,
      message: expect.stringContaining('not waiting for a decision (pending)'),
      data: [{ reason: 'CONFLICT', metadata: { error: 'conflict' } }],
    });
    const unknown = await rpc(t.apiKey, decisionCall(started.id, { decision: 'approve', step: 'nope' }));
    expect(unknown.body.error).toMatchObject({ code: -32602, message: 'No such step.' });
    const badDecision = await rpc(t.apiKey, decisionCall(started.id, { decision: 'maybe', step: 'legal' }));
    expect(badDecision.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('decision') });
    const notDecision = await rpc(t.apiKey, decisionCall(started.id, { module: 'text', action: 'slugify', input: { text: 'x' } }));
    expect(notDecision.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('is a workflow run') });
    // A decision without taskId names no run.
    const noTask = await rpc(t.apiKey, decisionCall('', { decision: 'approve' }));
    expect(noTask.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("as the message's taskId") });
    // Still both pending: nothing was decided.
    expect(dataOf(await client.getTask({ tenant: '', id: started.id, historyLength: undefined }))!.pending_approvals).toHaveLength(2);

    // Both decided (0.3 wire for one of them), the third is the only one pending.
    asTask(await send(client, [dataPart({ decision: 'approve', step: 'legal' })], started.id));
    const legacy = await rpc(
      t.apiKey,
      {
        jsonrpc: '2.0',
        id: 'd',
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'm',
            role: 'user',
            taskId: started.id,
            parts: [{ kind: 'data', data: { decision: 'approve', step: 'brand' } }],
          },
        },
      },
      {},
    );
    expect(legacy.body.result).toMatchObject({ kind: 'task', id: started.id });
    const last = await until(client, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(last)).toBe('Final?');

    // Approvers named: an API key is no member, so not an approver (-32000 forbidden).
    const guarded = await create([{ id: 'boss', kind: 'approval', prompt: 'Boss?', timeout: '1h', approvers: ['owner'] }]);
    const run = asTask(await send(client, [dataPart({ workflow_id: guarded })]));
    await until(client, run.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const forbidden = await rpc(t.apiKey, decisionCall(run.id, { decision: 'approve' }));
    expect(forbidden.body.error).toMatchObject({
      code: -32000,
      data: [{ reason: 'FORBIDDEN', metadata: { error: 'forbidden', reason: 'not_an_approver' } }],
    });

    // Malformed starts.
    for (const [data, code, message] of [
      [{ workflow_id: 'wf_nope' }, -32602, 'No such workflow.'],
      [{ workflow_id: workflowId, input: 'x' }, -32602, 'input'],
      [{ workflow_id: workflowId, extra: 1 }, -32602, 'extra'],
      [{ workflow_id: workflowId, input: { title: 'a\u0000b' } }, -32602, 'at input.title; such text cannot be stored'],
    ] as const) {
      const res = await rpc(t.apiKey, {
        jsonrpc: '2.0',
        id: 6,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data }] } },
      });
      expect(res.body.error, JSON.stringify(data)).toMatchObject({ code, message: expect.stringContaining(message) });
    }
    const both = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'm',
          role: 'ROLE_USER',
          parts: [{ data: { workflow_id: workflowId } }, { data: { module: 'text', action: 'slugify', input: { text: 'x' } } }],
        },
      },
    });
    expect(both.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('one thing') });
  });

  it('the card and the help text mention workflow runs', async () => {
    const card = (await s.call('/.well-known/agent-card.json')).body;
    expect(card.description).toContain('workflow_id');
    const answer = await send(client, [{ content: { $case: 'text', value: 'help' }, mediaType: 'text/plain', filename: '', metadata: {} }]);
    const help = (answer as Message).parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    expect(help).toContain('"workflow_id"');
    expect(help).toContain('"decision"');
  });
});
