/**
 * Hostile input gets a clear 4xx, never a 500 and never internals (docs/decisions.md, Hostile input): crafted
 * cursors and dates, deep nesting, names that cannot exist, and the tRPC error mapping.
 */
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/lib/json-depth';
import { AppError, toAppError } from '../../src/server/errors';
import { appRouter } from '../../src/server/router';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type ApiResponse, type TestServer } from '../harness';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const INTERNALS =
  /select |insert |update "|delete from| from "|secret_hash|secret_encrypted|"tenant_id" =|at Object\.|node_modules|\.ts:\d|stack size|RangeError/i;

/** Cursors the service never issued: each must be 400 invalid_request on every list. */
const CRAFTED_CURSORS = [
  b64(['2024-01-01T00:00:00.000Z', '\u0000']),
  b64(['2024-01-01T00:00:00.000Z', 'x\ud800']),
  b64(['-271821-04-20T00:00:00.000Z', 'key_x']),
  b64(['+275760-09-13T00:00:00.000Z', 'key_x']),
  b64(['0000-01-01T00:00:00.000Z', 'key_x']),
  b64(['2024-01-01', 'key_x']),
  b64(['2024-01-01T00:00:00.000Z', 'key_x', 3]),
  b64({ at: '2024-01-01T00:00:00.000Z' }),
  b64('\u0000.\u0000'),
  b64('text.\ud800'),
  b64('not json'),
  '%%%',
  `${b64(['2024-01-01T00:00:00.000Z', 'key_x'])}=`,
];

const nested = (depth: number, leaf: unknown = 1) => '['.repeat(depth) + JSON.stringify(leaf) + ']'.repeat(depth);
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

function expectClean(res: ApiResponse) {
  expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
  expect(res.text).not.toMatch(INTERNALS);
}

/** A tRPC error answer: the status and the REST error body under `data.app`. */
function expectTrpcError(res: ApiResponse, status: number, code: string) {
  expectClean(res);
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(res.body.error.data).toMatchObject({
    httpStatus: status,
    app: { error: code, message: res.body.error.message, request_id: res.headers.get('x-request-id') },
  });
  expect(res.body.error.data.stack).toBeUndefined();
}

describe('the tRPC error formatter maps errors as REST does', () => {
  const formatter = appRouter._def._config.errorFormatter;
  const format = (error: TRPCError) =>
    formatter({
      error,
      type: 'query',
      path: 'keys.list',
      input: undefined,
      ctx: { requestId: 'req_1', svc: { config: { publicBaseUrl: 'https://amp.example.test' } } } as never,
      shape: { message: error.message, code: -32603, data: { code: error.code, httpStatus: 500, path: 'keys.list', stack: error.stack } },
    }) as {
      message: string;
      data: Record<string, unknown>;
    };

  it('an internal error is generic: no SQL, no driver text, no stack', () => {
    const leak = new Error('Failed query: select "secret_hash" from "api_keys" where "tenant_id" = $1 params: 2b7c...');
    const shape = format(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: leak }));
    expect(shape).toMatchObject({
      message: 'An internal error occurred.',
      data: {
        code: 'INTERNAL_SERVER_ERROR',
        httpStatus: 500,
        app: { error: 'internal_error', request_id: 'req_1', doc_url: 'https://amp.example.test/docs/errors#internal_error' },
      },
    });
    expect(JSON.stringify(shape)).not.toMatch(INTERNALS);
    expect(toAppError(leak)).toMatchObject({ code: 'internal_error', message: 'An internal error occurred.' });
  });

  it('domain errors, validation and tRPC refusals keep their code, on both transports alike', () => {
    const domain = new AppError('plan_required', 'Needs pro.', { required_plan: 'pro' });
    expect(format(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: domain }))).toMatchObject({
      message: 'Needs pro.',
      data: { code: 'FORBIDDEN', httpStatus: 403, app: { error: 'plan_required', required_plan: 'pro' } },
    });
    expect(toAppError(new TRPCError({ code: 'NOT_FOUND', message: 'No procedure found on path "x"' }))).toMatchObject({
      code: 'not_found',
      message: 'No procedure found on path "x"',
    });
    expect(toAppError(new TRPCError({ code: 'PARSE_ERROR', cause: new SyntaxError('Unexpected token') }))).toMatchObject({
      code: 'invalid_request',
    });
    expect(toAppError(new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: 'Unsupported GET-request' }))).toMatchObject({
      code: 'method_not_allowed',
    });
    // A non-validation failure inside the input parser does not leak its message either.
    expect(toAppError(new TRPCError({ code: 'BAD_REQUEST', cause: new RangeError('Maximum call stack size exceeded') }))).toMatchObject({
      code: 'invalid_request',
      message: 'The request is not valid.',
    });
  });
});

backends.describe('hostile input (%s)', (backend) => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer({ backend });
    const t = await s.register();
    key = t.apiKey;
    await s.setPlan(t.tenantId, 'pro');
    // Something on every list, so a cursor's condition is really evaluated.
    await s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text: 'Hello World' } } });
    await s.call('/api/v1/memory', { key, body: { agent_id: 'a', key: 'k', value: 1 } });
    await s.call('/api/v1/webhooks', { key, body: { url: 'https://example.com/hook', events: ['*'] } });
  });
  afterAll(async () => s?.close());

  const lists: [string, Record<string, string>][] = [
    ['/api/v1/keys', {}],
    ['/api/v1/executions', {}],
    ['/api/v1/memory?agent_id=a', {}],
    ['/api/v1/webhooks', {}],
    ['/api/v1/directory', {}],
    ['/api/v1/modules', {}],
    ['/api/v1/admin/tenants', { 'x-admin-token': ADMIN_TOKEN }],
  ];

  it('a cursor the service did not issue is 400 invalid_request on every list (REST)', async () => {
    for (const [path, headers] of lists) {
      for (const cursor of CRAFTED_CURSORS) {
        const res = await s.call(`${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`, { key, headers });
        expectClean(res);
        expectError(res, 400, 'invalid_request');
      }
    }
  });

  it('issued cursors keep working (keys, executions, memory, directory, admin tenants)', async () => {
    for (const [path, headers] of [...lists.filter(([p]) => !p.includes('webhooks'))]) {
      const first = await s.call(`${path}${path.includes('?') ? '&' : '?'}limit=1`, { key, headers });
      expect(first.status, first.text).toBe(200);
      if (!first.body.next_cursor) continue;
      const next = await s.call(`${path}${path.includes('?') ? '&' : '?'}limit=1&cursor=${first.body.next_cursor}`, { key, headers });
      expect(next.status, `${path}: ${next.text}`).toBe(200);
    }
    await s.call('/api/v1/memory', { key, body: { agent_id: 'long', key: 'ключ-'.repeat(50), value: 1 } });
    await s.call('/api/v1/memory', { key, body: { agent_id: 'long', key: '鍵'.repeat(256), value: 2 } });
    const page = await s.call('/api/v1/memory?agent_id=long&limit=1', { key });
    const next = await s.call(`/api/v1/memory?agent_id=long&limit=1&cursor=${page.body.next_cursor}`, { key });
    expect(next.status, next.text).toBe(200);
    expect(next.body.data).toHaveLength(1);
  });

  it('the same cursors over tRPC: 400 with the REST body, no SQL (keys.list)', async () => {
    for (const proc of ['keys.list', 'executions.list', 'webhooks.list', 'catalog.directory']) {
      for (const cursor of CRAFTED_CURSORS.slice(0, 6)) {
        const res = await s.call(`/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify({ cursor }))}`, { key });
        expectTrpcError(res, 400, 'invalid_request');
      }
    }
    const admin = await s.call(`/api/trpc/admin.listTenants?input=${encodeURIComponent(JSON.stringify({ cursor: CRAFTED_CURSORS[0] }))}`, {
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    expectTrpcError(admin, 400, 'invalid_request');
  });

  it('dates outside 1970..9999 are 400 (since, until)', async () => {
    for (const since of [
      '0000-01-01T00:00:00Z',
      '-271821-04-20T00:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
      '1969-12-31T23:59:59Z',
      '9999-12-31T23:59:59-01:00',
    ]) {
      const res = await s.call(`/api/v1/executions?since=${encodeURIComponent(since)}`, { key });
      expectClean(res);
      expectError(res, 400, 'invalid_request');
    }
    expect((await s.call('/api/v1/executions?since=1970-01-01T00:00:00Z', { key })).status).toBe(200);
    const [hook] = (await s.call('/api/v1/webhooks', { key })).body.data;
    for (const window of [{ since: '0000-01-01T00:00:00Z' }, { since: new Date().toISOString(), until: '+275760-09-13T00:00:00.000Z' }]) {
      const res = await s.call(`/api/v1/webhooks/${hook.id}/replay`, { key, body: window });
      expectClean(res);
      expectError(res, 400, 'invalid_request');
    }
    const trpc = await s.call(`/api/trpc/executions.list?input=${encodeURIComponent(JSON.stringify({ since: '0000-01-01T00:00:00Z' }))}`, {
      key,
    });
    expectTrpcError(trpc, 400, 'invalid_request');
  });

  it(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is 400 on every transport, the unauthenticated register included`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 20_000, 50_000]) {
      const register = await s.call('/api/v1/auth/register', {
        rawBody: `{"agent_name":"x","owner_email":"deep@example.com","extra":${nested(depth)}}`,
      });
      expectClean(register);
      expect(expectError(register, 400, 'invalid_request').message).toMatch(/deeper than 64 levels/);
      const memory = await s.call('/api/v1/memory', { key, rawBody: `{"agent_id":"a","key":"deep","value":${nestedObject(depth)}}` });
      expectClean(memory);
      expect(expectError(memory, 400, 'invalid_request').message).toMatch(/deeper than 64 levels/);
      const execute = await s.call('/api/v1/modules/json/execute', {
        key,
        rawBody: `{"action":"query_jsonata","input":{"data":${nested(depth)},"expression":"$"}}`,
      });
      expectClean(execute);
      expectError(execute, 400, 'invalid_request');
      const trpc = await s.call('/api/trpc/memory.upsert', {
        key,
        rawBody: `{"agent_id":"a","key":"deep","value":${nested(depth)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectTrpcError(trpc, 400, 'invalid_request');
      expect(trpc.body.error.message).toMatch(/deeper than 64 levels/);
      const query = await s.call(`/api/trpc/executions.list?input=${encodeURIComponent(`{"module":${nested(Math.min(depth, 2000))}}`)}`, {
        key,
      });
      expectTrpcError(query, 400, 'invalid_request');
      const mcp = await s.call('/api/mcp', {
        key,
        rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text__slugify","arguments":${nested(depth)}}}`,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      expectClean(mcp);
      expect(mcp.status).toBe(400);
      expect(mcp.body.error).toMatchObject({ code: -32700, message: expect.stringMatching(/deeper than 64 levels/) });
    }
    // 64 levels are fine.
    const ok = await s.call('/api/v1/memory', { key, rawBody: `{"agent_id":"a","key":"deep","value":${nested(MAX_JSON_DEPTH - 2)}}` });
    expect(ok.status, ok.text).toBe(201);
  });

  it('an action whose data nests past the stack fails as a module error with a plain message', async () => {
    const deep = '['.repeat(30_000) + ']'.repeat(30_000);
    const res = await s.call('/api/v1/modules/json/execute', { key, body: { action: 'parse', input: { text: deep } } });
    expect(res.text).not.toMatch(INTERNALS);
    expect(expectError(res, 502, 'module_error').message).toBe('The data is nested too deeply to process.');
  });

  it('tRPC reads any POST body as JSON (content type JSON, other or none), and every error carries the request id', async () => {
    for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const res = await s.call('/api/trpc/memory.upsert', {
        key,
        rawBody: '{"agent_id":"a","key":"ct","value":1}',
        headers: contentType ? { 'content-type': contentType } : {},
      });
      expect(res.status, res.text).toBe(200);
      const bad = await s.call('/api/trpc/memory.upsert', {
        key,
        rawBody: '{"agent_id":',
        headers: contentType ? { 'content-type': contentType } : {},
      });
      expectTrpcError(bad, 400, 'invalid_request');
    }
    expectTrpcError(await s.call('/api/trpc/no.such', { key }), 404, 'not_found');
    expectTrpcError(await s.call('/api/trpc/keys.create', { key }), 405, 'method_not_allowed');
    for (const method of ['PUT', 'PATCH', 'DELETE'])
      expectTrpcError(await s.call('/api/trpc/keys.list', { key, method, rawBody: '{}' }), 405, 'method_not_allowed');
    expectError(await s.call('/api/trpc/keys.%ZZ', { key }), 404, 'not_found');
  });

  it('a module name in a path that cannot exist is 404 not_found, whatever its length or characters', async () => {
    const names = [
      'Not_A_Name',
      'x',
      'a'.repeat(31),
      'a'.repeat(5000),
      'é-mod',
      'a%00b',
      'a%E0%A4',
      '%F0%9F%98%80',
      'a b',
      'no-such-module',
    ];
    for (const name of names) {
      for (const [method, path, body] of [
        ['GET', `/api/v1/modules/${name}`, undefined],
        ['POST', `/api/v1/modules/${name}/execute`, { action: 'x', input: {} }],
        ['POST', `/api/v1/modules/${name}/install`, undefined],
        ['DELETE', `/api/v1/modules/${name}/install`, undefined],
        ['PUT', `/api/v1/modules/${name}`, { title: 'x' }],
      ] as const) {
        const res = await s.call(path, { key, method, body });
        expectClean(res);
        expectError(res, 404, 'not_found');
      }
    }
    const trpc = await s.call('/api/trpc/modules.execute', { key, body: { module: 'Bad Name\u0000', action: 'x', input: {} } });
    expectTrpcError(trpc, 404, 'not_found');
    // Names in bodies stay 400: publishing, batch.
    expectError(
      await s.call('/api/v1/batch', { key, body: { calls: [{ module: 'Bad Name', action: 'x', input: {} }] } }),
      400,
      'invalid_request',
    );
    expectError(
      await s.call('/api/v1/modules', {
        key,
        body: {
          name: 'Bad Name',
          title: 't',
          description: 'd',
          category: 'text',
          version: '1.0.0',
          runtime: { type: 'javascript', source: 'function handle(){}' },
          actions: [],
        },
      }),
      400,
      'invalid_request',
    );
  });
});
