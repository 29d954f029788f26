/**
 * The A2A endpoint /api/a2a, driven by the official SDK's own clients: the 1.x ClientFactory
 * (JSON-RPC transport, A2A 1.0) and, for A2A 0.3, the SDK's 0.3 JSON-RPC client transport found
 * through the card's 0.3 `url` field — plus the 0.3 SDK's own `A2AClient.fromCardUrl` (devDependency `a2a-sdk-v03`, an alias of
 * npm:@a2a-js/sdk@0.3).
 */
import { Role, TaskState, type Message, type Part, type SendMessageResult, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { A2AClient as A2AClient03 } from 'a2a-sdk-v03/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executions, usageCounters } from '../../src/db/schema';
import { cycleStart } from '../../src/metering/cycle';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { freePort } from '../ports';

/** A fetch that sends the API key on every request, as an A2A client's auth hook would. */
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
const textPart = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: {} });
const userMessage = (parts: Part[]): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});
const send = (client: Client, parts: Part[]) =>
  client.sendMessage({ tenant: '', message: userMessage(parts), configuration: undefined, metadata: {} });

const isTask = (r: SendMessageResult): r is Task => 'status' in r && 'id' in r;
function asTask(r: SendMessageResult): Task {
  if (!isTask(r)) throw new Error(`expected a Task, got ${JSON.stringify(r)}`);
  return r;
}
const outputOf = (t: Task) => {
  const part = t.artifacts[0]?.parts[0]?.content;
  return part?.$case === 'data' ? part.value : undefined;
};

backends.describe('A2A endpoint /api/a2a (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    s = await startTestServer({ backend, env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(async () => s?.close());

  async function clientFor(key: string) {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch(key) })],
      }),
    );
    return factory.createFromUrl(s.url);
  }

  /** A raw JSON-RPC POST. */
  const rpc = (key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
    s.call('/api/a2a', { key, method: 'POST', body, headers });

  it('the card lists only the A2A JSON-RPC binding (1.0 and 0.3), carries the 0.3 fields, names REST and MCP outside the bindings', async () => {
    const card = (await s.call('/.well-known/agent-card.json')).body;
    expect(card.supportedInterfaces).toEqual([
      { url: `${s.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${s.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card).toMatchObject({ url: `${s.url}/api/a2a`, preferredTransport: 'JSONRPC', protocolVersion: '0.3.0' });
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false });
    expect(card.description).toContain(`${s.url}/api/v1`);
    expect(card.description).toContain(`${s.url}/api/openapi.json`);
    expect(card.description).toContain(`${s.url}/api/mcp`);
    const text = card.skills.find((k: { id: string }) => k.id === 'text');
    expect(text.examples.some((e: string) => e.startsWith('text.'))).toBe(true);
  });

  it('1.x ClientFactory: resolves the card, runs text.slugify as a completed Task with the output artifact, reads it back with getTask', async () => {
    const t = await s.register();
    const client = await clientFor(t.apiKey);
    expect(client.protocolVersion).toBe('1.0');
    const task = asTask(await send(client, [dataPart({ module: 'text', action: 'slugify', input: { text: 'Hello A2A World' } })]));
    expect(task.id).toMatch(/^exe_/);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(task)).toEqual({ slug: 'hello-a2a-world' });

    const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.id).toBe(task.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(again)).toEqual({ slug: 'hello-a2a-world' });

    // A tool name works as well.
    const byTool = asTask(await send(client, [dataPart({ tool: 'text__slugify', input: { text: 'By Tool' } })]));
    expect(outputOf(byTool)).toEqual({ slug: 'by-tool' });
  });

  it('the executions are recorded (source a2a) and counted', async () => {
    const t = await s.register();
    const client = await clientFor(t.apiKey);
    const task = asTask(await send(client, [dataPart({ module: 'text', action: 'slugify', input: { text: 'Counted' } })]));
    const list = await s.call('/api/v1/executions', { key: t.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ execution_id: task.id, module: 'text', action: 'slugify', status: 'success', source: 'a2a' });
    const raw = await rpc(t.apiKey, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }, { 'A2A-Version': '1.0' });
    expect(raw.headers.get('x-execution-remaining')).toBe('999'); // free plan: 1,000 a month, one used;
  });

  it('a failed execution is a failed Task with the error in its status message, readable again', async () => {
    const t = await s.register();
    const client = await clientFor(t.apiKey);
    const task = asTask(await send(client, [dataPart({ module: 'text', action: 'slugify', input: { nope: 1 } })]));
    expect(task.id).toMatch(/^exe_/);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const text = task.status?.message?.parts.find((p) => p.content?.$case === 'text')?.content;
    expect(text?.$case === 'text' && text.value).toMatch(/^invalid_input: /);
    const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const list = await s.call('/api/v1/executions', { key: t.apiKey });
    expect(list.body.data[0]).toMatchObject({ execution_id: task.id, status: 'failed', source: 'a2a' });
  });

  it('a text-only message is answered with how to call skills; unknown actions are invalid params, not executions', async () => {
    const t = await s.register();
    const client = await clientFor(t.apiKey);
    const answer = await send(client, [textPart('What can you do?')]);
    expect(isTask(answer)).toBe(false);
    const help = (answer as Message).parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    expect(help).toContain('"module"');
    expect(help).toContain('tasks/get');

    await expect(send(client, [dataPart({ module: 'text', action: 'no_such_action', input: {} })])).rejects.toThrow(
      /no action 'no_such_action'/,
    );
    const raw = await rpc(
      t.apiKey,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { module: 'nope-nope', action: 'x' } }] } },
      },
      { 'A2A-Version': '1.0' },
    );
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect((await s.call('/api/v1/executions', { key: t.apiKey })).body.data).toHaveLength(0);
  });

  it('input holding text PostgreSQL cannot hold is refused as on REST (-32602 invalid_request), not run', async () => {
    const t = await s.register();
    for (const input of [{ text: 'a\u0000b' }, { text: 'x\ud800' }]) {
      const raw = await rpc(
        t.apiKey,
        {
          jsonrpc: '2.0',
          id: 8,
          method: 'SendMessage',
          params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { module: 'text', action: 'slugify', input } }] } },
        },
        { 'A2A-Version': '1.0' },
      );
      expect(raw.status).toBe(200);
      expect(raw.body).toMatchObject({
        jsonrpc: '2.0',
        id: 8,
        error: { code: -32602, message: expect.stringContaining('at input.text; such text cannot be stored') },
      });
    }
    expect((await s.call('/api/v1/executions', { key: t.apiKey })).body.data).toHaveLength(0);
  });

  it('0.3: the 1.x SDK 0.3 JSON-RPC transport, at the card url, sends message/send and reads tasks/get', async () => {
    const t = await s.register();
    const card = (await s.call('/.well-known/agent.json')).body;
    const transport = new LegacyJsonRpcTransport({ endpoint: card.url, fetchImpl: keyedFetch(t.apiKey) });
    const task = asTask(
      await transport.sendMessage({
        tenant: '',
        message: userMessage([dataPart({ module: 'text', action: 'slugify', input: { text: 'Zero Three' } })]),
        configuration: undefined,
        metadata: {},
      }),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(task)).toEqual({ slug: 'zero-three' });
    const again = await transport.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(outputOf(again)).toEqual({ slug: 'zero-three' });

    // The raw 0.3 wire, without A2A-Version: kebab-style methods and `kind` discriminators.
    const raw = await rpc(t.apiKey, { jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { id: task.id } });
    expect(raw.body.result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    // An unknown 0.3 method is -32601, as in 1.0.
    const nope = await rpc(t.apiKey, { jsonrpc: '2.0', id: 'n', method: 'nope' });
    expect(nope.body.error).toMatchObject({ code: -32601 });
    // A task id that is not a string is invalid params, not an internal error.
    for (const params of [{ id: 5 }, { id: ['x'] }, 'x']) {
      const bad = await rpc(t.apiKey, { jsonrpc: '2.0', id: 'b', method: 'tasks/get', params });
      expect(bad.body.error, JSON.stringify(params)).toMatchObject({ code: -32602 });
    }
  });

  it('0.3 SDK: A2AClient.fromCardUrl resolves the card url, sends a message, reads the task', async () => {
    const t = await s.register();
    const client = await A2AClient03.fromCardUrl(`${s.url}/.well-known/agent-card.json`, { fetchImpl: keyedFetch(t.apiKey) });
    // The 0.3 client answers JSON-RPC responses (result | error), a union: read them untyped.
    const sent: any = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { module: 'text', action: 'slugify', input: { text: 'Old Client' } } }],
      },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(sent.result.artifacts[0].parts[0]).toMatchObject({ kind: 'data', data: { slug: 'old-client' } });
    const got: any = await client.getTask({ id: sent.result.id });
    expect(got.result).toMatchObject({ id: sent.result.id, status: { state: 'completed' } });
  });

  it('401 without a key (REST error format); 403 without the scope the method needs', async () => {
    const res = await rpc(undefined, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} });
    expectError(res, 401, 'unauthorized');
    // The SDK client sees the refusal as an error too.
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver: new DefaultAgentCardResolver() }),
    );
    const anonymous = await factory.createFromUrl(s.url);
    await expect(send(anonymous, [dataPart({ module: 'text', action: 'slugify', input: { text: 'x' } })])).rejects.toThrow();

    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'read-only', scopes: ['modules:read'] } });
    expect(created.status).toBe(201);
    const readOnly = created.body.api_key as string;
    expectError(
      await rpc(readOnly, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, { 'A2A-Version': '1.0' }),
      403,
      'insufficient_scope',
    );
    expectError(await rpc(readOnly, { jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }), 403, 'insufficient_scope');
    const read = await rpc(readOnly, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'exe_missing' } }, { 'A2A-Version': '1.0' });
    expect(read.body.error.code).toBe(-32001);
  });

  it('over the rate limit: HTTP 429 with the REST body before dispatch; a batch is one invalid request', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'free', 2);
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { module: 'text', action: 'slugify', input: { text: 'x' } } }] },
      },
    };
    // A2A has no JSON-RPC batches: an array is -32600 and costs one request.
    const batch = await rpc(t.apiKey, [call, call], { 'A2A-Version': '1.0' });
    expect(batch.body).toMatchObject({ id: null, error: { code: -32600 } });
    expect(batch.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await rpc(t.apiKey, call, { 'A2A-Version': '1.0' })).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const over = await rpc(t.apiKey, call, { 'A2A-Version': '1.0' });
    expect(expectError(over, 429, 'rate_limit_exceeded')).toMatchObject({ limit: 2, retry_after: expect.any(Number) });
    expect(over.headers.get('x-execution-remaining')).toBe('999');
    // The refused call ran nothing.
    expect(await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId))).toHaveLength(1);
  });

  it('an exhausted quota is a JSON-RPC error (-32000, quota_exceeded), not a task; nothing is recorded', async () => {
    const t = await s.register();
    await s.svc.db.insert(usageCounters).values({ tenantId: t.tenantId, cycleStart: cycleStart(), executions: 1000 });
    const client = await clientFor(t.apiKey);
    await expect(send(client, [dataPart({ module: 'text', action: 'slugify', input: { text: 'x' } })])).rejects.toThrow(/quota/i);
    const call = {
      jsonrpc: '2.0',
      id: 'q',
      method: 'SendMessage',
      params: {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { module: 'text', action: 'slugify', input: { text: 'x' } } }] },
      },
    };
    const raw = await rpc(t.apiKey, call, { 'A2A-Version': '1.0' });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({
      id: 'q',
      error: { code: -32000, data: [{ reason: 'QUOTA_EXCEEDED', metadata: { error: 'quota_exceeded' } }] },
    });
    expect(raw.headers.get('x-execution-remaining')).toBe('0');
    const legacy = await rpc(t.apiKey, {
      ...call,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm',
          role: 'user',
          parts: [{ kind: 'data', data: { tool: 'text__slugify', input: { text: 'x' } } }],
        },
      },
    });
    expect(legacy.body).toMatchObject({ id: 'q', error: { code: -32000, data: { error: 'quota_exceeded' } } });
    // 0.3's data is a plain object: retry_after is a number of seconds, as in the REST body (and the
    // Retry-After header); 1.0's ErrorInfo metadata holds strings only.
    expect(legacy.body.error.data.retry_after).toBe(Number(legacy.headers.get('retry-after')));
    expect(Number.isInteger(legacy.body.error.data.retry_after) && legacy.body.error.data.retry_after > 0).toBe(true);
    expect(raw.body.error.data[0].metadata.retry_after).toMatch(/^\d+$/);
    // Both link the code's section of the error reference, as the REST body does.
    expect(raw.body.error.data[0].metadata.doc_url).toBe(`${s.svc.config.publicBaseUrl}/docs/errors#quota_exceeded`);
    expect(legacy.body.error.data.doc_url).toBe(`${s.svc.config.publicBaseUrl}/docs/errors#quota_exceeded`);
    expect(await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId))).toHaveLength(0);
  });

  it('JSON-RPC requests only: a notification (no id) or an unusable id is -32600 with id null, and nothing runs', async () => {
    const t = await s.register();
    const v1 = { 'A2A-Version': '1.0' };
    const send1 = {
      jsonrpc: '2.0',
      method: 'SendMessage',
      params: {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { module: 'text', action: 'slugify', input: { text: 'x' } } }] },
      },
    };
    const send03 = {
      jsonrpc: '2.0',
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm',
          role: 'user',
          parts: [{ kind: 'data', data: { module: 'text', action: 'slugify', input: { text: 'x' } } }],
        },
      },
    };
    for (const [body, headers] of [
      [send1, v1],
      [send03, {}],
      [{ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'exe_x' } }, {}],
    ] as const) {
      const res = await rpc(t.apiKey, body, headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('notifications') },
      });
    }
    for (const id of [{ a: 1 }, [1], true]) {
      const res = await rpc(t.apiKey, { ...send03, id });
      expect(res.body, JSON.stringify(id)).toMatchObject({
        id: null,
        error: { code: -32600, message: expect.stringContaining('"id" must be a string, a number or null') },
      });
    }
    expect(await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId))).toHaveLength(0);
    // id null is a request (discouraged, but valid): answered, with id null.
    const nullId = await rpc(t.apiKey, { ...send03, id: null });
    expect(nullId.body).toMatchObject({ id: null, result: { kind: 'task', status: { state: 'completed' } } });
  });

  it('params as the A2A spec defines them: the user sends role user; historyLength is an integer >= 0 (-32602 otherwise, nothing runs)', async () => {
    const t = await s.register();
    const v1 = { 'A2A-Version': '1.0' };
    const parts1 = [{ data: { module: 'text', action: 'slugify', input: { text: 'x' } } }];
    const parts03 = [{ kind: 'data', data: { module: 'text', action: 'slugify', input: { text: 'x' } } }];
    const bad: [unknown, Record<string, string>, RegExp][] = [
      [
        { method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_AGENT', parts: parts1 } } },
        v1,
        /role must be "ROLE_USER"/,
      ],
      [{ method: 'SendMessage', params: { message: { messageId: 'm', parts: parts1 } } }, v1, /role/],
      [
        { method: 'message/send', params: { message: { kind: 'message', messageId: 'm', role: 'agent', parts: parts03 } } },
        {},
        /role must be "user"/,
      ],
      [
        {
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: parts03 }, configuration: { historyLength: 'abc' } },
        },
        {},
        /historyLength/,
      ],
      [
        {
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: parts03 }, configuration: { historyLength: -1 } },
        },
        {},
        /historyLength/,
      ],
      [
        {
          method: 'SendMessage',
          params: { message: { messageId: 'm', role: 'ROLE_USER', parts: parts1 }, configuration: { historyLength: 1.5 } },
        },
        v1,
        /historyLength/,
      ],
      [{ method: 'tasks/get', params: { id: 'exe_x', historyLength: 'abc' } }, {}, /params\.historyLength must be an integer/],
      [{ method: 'tasks/get', params: { id: 'exe_x', historyLength: -1 } }, {}, /historyLength/],
      [{ method: 'GetTask', params: { id: 'exe_x', historyLength: '-1' } }, v1, /historyLength/],
    ];
    for (const [call, headers, message] of bad) {
      const res = await rpc(t.apiKey, { jsonrpc: '2.0', id: 'p', ...(call as object) }, headers);
      expect(res.body, JSON.stringify(call)).toMatchObject({ id: 'p', error: { code: -32602, message: expect.stringMatching(message) } });
    }
    expect(await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId))).toHaveLength(0);
    // Valid values go through: 0 (no messages) and, on the 1.0 wire (ProtoJSON), a decimal string.
    const ok03 = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: parts03 }, configuration: { historyLength: 0 } },
    });
    expect(ok03.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const ok1 = await rpc(
      t.apiKey,
      { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: ok03.body.result.id, historyLength: '2' } },
      v1,
    );
    expect(ok1.body.result).toMatchObject({ id: ok03.body.result.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('a message naming a finished task is refused with the state by name, not its enum number', async () => {
    const t = await s.register();
    const done = asTask(await send(await clientFor(t.apiKey), [dataPart({ module: 'text', action: 'slugify', input: { text: 'Done' } })]));
    const v1 = await rpc(
      t.apiKey,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm2', taskId: done.id, role: 'ROLE_USER', parts: [{ text: 'more' }] } },
      },
      { 'A2A-Version': '1.0' },
    );
    expect(v1.body.error).toMatchObject({
      code: -32004,
      message: expect.stringContaining(`Task ${done.id} is in a terminal state (completed)`),
    });
    const v03 = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm3', taskId: done.id, role: 'user', parts: [{ kind: 'text', text: 'more' }] } },
    });
    expect(v03.body.error.code).toBe(-32004);
    expect(v03.body.error.message).toContain('(completed)');
    expect(v03.body.error.message).not.toMatch(/\(\d+\)/);
    const missing = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 3,
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: 'm4', taskId: 'exe_missing', role: 'user', parts: [{ kind: 'text', text: 'more' }] },
      },
    });
    expect(missing.body.error.code).toBe(-32001);
  });

  it("another tenant's task is not found", async () => {
    const a = await s.register();
    const b = await s.register();
    const task = asTask(await send(await clientFor(a.apiKey), [dataPart({ module: 'text', action: 'slugify', input: { text: 'Mine' } })]));
    const other = await clientFor(b.apiKey);
    await expect(other.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toThrow(/not found/i);
    const raw = await rpc(b.apiKey, { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: task.id } }, { 'A2A-Version': '1.0' });
    expect(raw.body).toMatchObject({ id: 3, error: { code: -32001 } });
  });

  it('unsupported methods answer the A2A errors; malformed bodies the JSON-RPC ones; GET is 405', async () => {
    const t = await s.register();
    const v1 = { 'A2A-Version': '1.0' };
    const stream = await rpc(
      t.apiKey,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      },
      v1,
    );
    expect(stream.body.error.code).toBe(-32004);
    const push = await rpc(
      t.apiKey,
      { jsonrpc: '2.0', id: 2, method: 'CreateTaskPushNotificationConfig', params: { taskId: 'exe_x', url: 'https://example.com/hook' } },
      v1,
    );
    expect([-32003, -32004]).toContain(push.body.error.code);
    const list = await rpc(t.apiKey, { jsonrpc: '2.0', id: 3, method: 'ListTasks', params: {} }, v1);
    expect(list.body.error.code).toBe(-32004);
    const done = asTask(await send(await clientFor(t.apiKey), [dataPart({ module: 'text', action: 'slugify', input: { text: 'Done' } })]));
    const cancel = await rpc(t.apiKey, { jsonrpc: '2.0', id: 5, method: 'CancelTask', params: { id: done.id } }, v1);
    expect(cancel.body.error.code).toBe(-32002);
    const cancelMissing = await rpc(t.apiKey, { jsonrpc: '2.0', id: 6, method: 'CancelTask', params: { id: 'exe_missing' } }, v1);
    expect(cancelMissing.body.error.code).toBe(-32001);
    const unknown = await rpc(t.apiKey, { jsonrpc: '2.0', id: 4, method: 'Nope', params: {} }, v1);
    expect(unknown.body.error.code).toBe(-32601);

    const parse = await s.call('/api/a2a', { key: t.apiKey, method: 'POST', rawBody: '{"jsonrpc":' });
    expect(parse.status).toBe(400);
    expect(parse.body.error.code).toBe(-32700);
    // Valid JSON nested too deeply is no parse error: -32600 with the reason (400, as on REST).
    const deep = await s.call('/api/a2a', {
      key: t.apiKey,
      method: 'POST',
      rawBody: `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":${'['.repeat(70)}${']'.repeat(70)}}`,
    });
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('deeper than 64 levels') } });
    const big = await s.call('/api/a2a', { key: t.apiKey, method: 'POST', rawBody: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) });
    expect(big.status).toBe(413);
    const get = await s.call('/api/a2a', { key: t.apiKey });
    expectError(get, 405, 'method_not_allowed');
    expect(get.headers.get('allow')).toContain('POST');
  });
});
