/**
 * Property-based fuzzing (fast-check) over every operation of the generated OpenAPI document,
 * on REST and on tRPC, plus the JSON-RPC of MCP and A2A: hostile path parameters, query values, bodies,
 * cursors, dates, deep nesting, NULs and lone surrogates. Whatever comes in, the answer is never
 * a 5xx (502/504 only as the contract's failed executions), errors have the contract's format,
 * and no SQL, driver text or stack reaches the client.
 *
 * Bounded: FUZZ_RUNS (default 400) runs per transport. FUZZ_SEED replays a failure's seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildAdminOpenApiDocument, buildOpenApiDocument } from '../../src/server/openapi';
import { ADMIN_TOKEN, backends, startTestServer, type ApiResponse, type TestServer } from '../harness';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Longer URLs are Node's parser's business (431), not the API's. */
const MAX_URL = 8_000;

/** What must never reach a client. Generated strings never contain these, so echoes cannot trip it. */
const INTERNALS =
  /select |insert into|delete from|update "| from "|failed query|secret_hash|secret_encrypted|at Object\.|at async |node_modules|\.[cm]?[jt]s:\d+|call stack|RangeError|TypeError|ReferenceError|ECONNREFUSED|duplicate key|violates|relation "/i;

// ---- hostile values -------------------------------------------------------------------------

const b64 = (text: string) => Buffer.from(text).toString('base64url');

const hostileChar = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\uFFFF', '\uFEFF', '\u202E') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('%', '/', '.', '"', "'", '\\', '?', '#', '&', '=', '+', ' ', '\r', '\n', '\t', '*', '$', '{', '}'),
  },
);

const DATES = [
  '0000-01-01T00:00:00Z',
  '0000-01-01T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1969-12-31T23:59:59Z',
  '2024-02-30T00:00:00Z',
  '2024-01-01T25:00:00Z',
  '2024-01-01T00:00:00+99:00',
  '2024-01-01',
  new Date().toISOString(),
];

const shortString = fc.string({ unit: hostileChar, maxLength: 24 }).filter((s) => !INTERNALS.test(s));
const hostileDate = fc.constantFrom(...DATES);
const cursorLike = fc.oneof(
  fc
    .tuple(fc.oneof(hostileDate, shortString), fc.oneof(shortString, fc.constantFrom('key_x', 'exe_x', '\u0000', 'a\ud800')))
    .map((t) => b64(JSON.stringify(t))),
  fc.tuple(shortString, shortString).map(([a, b]) => b64(`${a}.${b}`)),
  shortString.map(b64),
  shortString,
);

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: shortString },
  { weight: 2, arbitrary: hostileDate },
  { weight: 2, arbitrary: cursorLike },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'null',
      'undefined',
      'NaN',
      '-1',
      '0',
      '1e309',
      '9'.repeat(40),
      'true',
      '[]',
      '{}',
      '__proto__',
      'constructor',
      "' OR '1'='1",
      '..',
      '%00',
      '%ZZ',
      'text',
      'json',
      'slugify',
      'pro',
      '*',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 257, max: 20_000 }).map((n) => 'a'.repeat(n)) },
);

const hostileScalar = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: hostileScalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(shortString, tie('value'), { maxKeys: 3 }) },
  ),
})).value;

/** JSON text nested `depth` levels (arrays or objects), around a value. */
const deepText = fc
  .tuple(fc.constantFrom(65, 200, 5_000, 30_000), fc.boolean())
  .map(([depth, objects]) => (objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + '1' + ']'.repeat(depth)));

const BROKEN_JSON = [
  '{',
  '{"a":',
  '[1,',
  'nul',
  '\u0000',
  '{"a":1}x',
  '\uFEFF{}',
  '""',
  '[]',
  '1',
  'null',
  '{"__proto__":{"x":1}}',
  '{"a":1,"a":2}',
  '{"a":"\\ud800"}',
  "{'a':1}",
  '{"a":1e99999}',
];

// ---- near-valid bodies: a valid body from the operation's schema, with a field or two hostile ----

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  minimum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/** Values that pass validation for fields whose schema alone does not say enough. */
const KNOWN: Record<string, unknown> = {
  module: 'text',
  action: 'slugify',
  input: { text: 'Hello World' },
  agent_id: 'a',
  key: 'k',
  value: { any: 'json' },
  url: 'https://127.0.0.1:9/hook',
  events: ['*'],
  plan: 'pro',
  scopes: ['modules:read'],
  calls: [{ module: 'text', action: 'slugify', input: { text: 'x' } }],
  steps: [{ module: 'text', action: 'slugify', input: { text: 'x' } }],
  owner_email: 'fuzz@example.com',
  agent_name: 'fuzz',
};

type Document = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, unknown>> };
/**
 * The operations are read from the API's document and the operator API's (built once, for `$ref`s
 * to their components): both come from one build, so a component they share is the same in each.
 */
const DOC = ((main: Document, admin: Document): Document => ({
  paths: { ...main.paths, ...admin.paths },
  components: Object.fromEntries(
    [...new Set([...Object.keys(main.components), ...Object.keys(admin.components)])].map((kind) => [
      kind,
      { ...admin.components[kind], ...main.components[kind] },
    ]),
  ),
}))(buildOpenApiDocument('http://localhost') as unknown as Document, buildAdminOpenApiDocument('http://localhost') as unknown as Document);

/** A node with a local `$ref` (`#/components/...`) replaced by what it refers to. */
function resolved<T>(node: T): T {
  const ref = (node as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string') return node;
  return resolved(
    ref
      .slice(2)
      .split('/')
      .reduce((at: any, part: string) => at?.[part], DOC),
  );
}

function sample(given: Schema | undefined, name: string): unknown {
  if (name in KNOWN) return KNOWN[name];
  const schema = resolved(given);
  if (!schema) return 'x';
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const alternative = schema.anyOf ?? schema.oneOf;
  if (alternative) return sample(alternative[0], name);
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'string':
      return schema.format === 'date-time' ? new Date().toISOString() : 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return schema.minItems ? [sample(schema.items, name)] : [];
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((k) => [k, sample(schema.properties?.[k], k)]));
    default:
      return 'x';
  }
}

/** A valid body with one or two fields replaced by hostile values (or dropped). */
function nearValid(schema: Schema | undefined, properties: string[]): fc.Arbitrary<Body> {
  const base = sample(schema ?? { type: 'object' }, '') as Record<string, unknown>;
  if (properties.length === 0) return fc.constant<Body>({ kind: 'json', value: base });
  return fc
    .tuple(
      fc.subarray(properties, { minLength: 1, maxLength: Math.min(2, properties.length) }),
      fc.array(fc.option(hostileJson, { freq: 6 }), { minLength: 2, maxLength: 2 }),
    )
    .map(([fields, values]): Body => {
      const value: Record<string, unknown> = { ...base };
      fields.forEach((f, i) => {
        if (values[i] === null) delete value[f];
        else value[f] = values[i];
      });
      return { kind: 'json', value };
    });
}

type Body = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string };

function bodyFor(properties: string[], schema?: Schema): fc.Arbitrary<Body> {
  const field = properties.length > 0 ? fc.oneof(fc.constantFrom(...properties), shortString) : shortString;
  return fc.oneof(
    { weight: 5, arbitrary: nearValid(schema, properties) },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    {
      weight: 5,
      arbitrary: fc
        .dictionary(field, hostileJson, { maxKeys: Math.max(2, properties.length) })
        .map((value): Body => ({ kind: 'json', value })),
    },
    { weight: 1, arbitrary: hostileJson.map((value): Body => ({ kind: 'json', value })) },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_JSON).map((text): Body => ({ kind: 'raw', text })) },
    { weight: 1, arbitrary: fc.tuple(field, deepText).map(([f, deep]): Body => ({ kind: 'raw', text: `{${JSON.stringify(f)}:${deep}}` })) },
  );
}

/** Percent-encodes any string, lone surrogates included (as the invalid UTF-8 bytes ED xx xx). */
function encode(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff)
      out += `%ED%${(0xa0 | ((c >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 | (c & 0x3f)).toString(16).toUpperCase()}`;
    else out += encodeURIComponent(ch);
  }
  return out;
}

// ---- the operations ---------------------------------------------------------------------------

interface Operation {
  method: string;
  path: string;
  /** The tRPC procedure (operationId `a-b` is procedure `a.b`). */
  procedure: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[];
  bodySchema: Schema | undefined;
  /** The procedure's whole input (path, query and body fields), as tRPC takes it. */
  inputSchema: Schema;
  admin: boolean;
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(DOC.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || !op?.responses || typeof op.operationId !== 'string') continue;
      // A stream (text/event-stream) answers a valid request with a body that never ends; its
      // refusals of bad input are tested where the stream is (tests/api/webhook-poll.test.ts).
      if (resolved(op.responses['200'])?.content?.['text/event-stream']) continue;
      const params = ((op.parameters ?? []) as unknown[]).map(resolved) as {
        in: string;
        name: string;
        required?: boolean;
        schema?: Schema;
      }[];
      const schema = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        procedure: op.operationId.replace('-', '.'),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: Object.keys(schema?.properties ?? {}),
        bodySchema: schema,
        inputSchema: {
          type: 'object',
          properties: { ...Object.fromEntries(params.map((p) => [p.name, p.schema ?? { type: 'string' }])), ...schema?.properties },
          required: [...params.filter((p) => p.required).map((p) => p.name), ...(schema?.required ?? [])],
        },
        admin: path.startsWith('/api/v1/admin/'),
      });
    }
  }
  return ops;
}

interface Fixtures {
  key: string;
  /** Real values for path parameters (never the fuzzing key's own id, which a rotate would kill). */
  real: Record<string, string[]>;
}

type Credential = 'key' | 'none' | 'bad';

function requestFor(op: Operation, fx: Fixtures) {
  const param = (name: string) =>
    fc.oneof({ weight: 4, arbitrary: hostileString }, { weight: 1, arbitrary: fc.constantFrom(...(fx.real[name] ?? ['x'])) });
  return fc.record({
    params: fc.tuple(...op.pathParams.map(param)),
    query: fc.dictionary(
      op.queryParams.length > 0 ? fc.oneof(fc.constantFrom(...op.queryParams), shortString) : shortString,
      hostileString,
      { maxKeys: 3 },
    ),
    body: bodyFor(op.bodyProps, op.bodySchema),
    credential: fc.constantFrom<Credential>('key', 'key', 'key', 'key', 'none', 'bad'),
  });
}

let client = 0;
function headersFor(op: Operation, credential: Credential, fx: Fixtures): Record<string, string> {
  client++;
  const from = { 'x-forwarded-for': `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}` };
  return { ...from, ...credentialHeaders(op, credential, fx) };
}

function credentialHeaders(op: Operation, credential: Credential, fx: Fixtures): Record<string, string> {
  if (credential === 'none') return {};
  if (op.admin) return { 'x-admin-token': credential === 'key' ? ADMIN_TOKEN : 'wrong-token-0123456789' };
  return { 'x-api-key': credential === 'key' ? fx.key : 'amp_notavalidkeyatall0123456789abcdef' };
}

function rawBody(body: Body): string | undefined {
  if (body.kind === 'none') return undefined;
  return body.kind === 'raw' ? body.text : JSON.stringify(body.value);
}

// ---- the assertions ----------------------------------------------------------------------------

/** 502 and 504 are failed executions (the contract's module_error / timeout); every other 5xx is a bug. */
const isFailedExecution = (status: number, code: unknown) =>
  (status === 502 && code === 'module_error') || (status === 504 && code === 'timeout');

function checkRest(res: ApiResponse, label: string) {
  const where = `${label}\n-> ${res.status} ${res.text.slice(0, 500)}`;
  if (res.status < 400) return;
  expect(res.headers.get('content-type') ?? '', where).toMatch(/application\/json/);
  expect(res.body, where).toMatchObject({
    error: expect.any(String),
    message: expect.any(String),
    request_id: res.headers.get('x-request-id'),
  });
  expect(res.status >= 500 && !isFailedExecution(res.status, res.body.error), where).toBe(false);
  expect(res.text, where).not.toMatch(INTERNALS);
}

function checkTrpc(res: ApiResponse, label: string) {
  const where = `${label}\n-> ${res.status} ${res.text.slice(0, 500)}`;
  if (res.status < 400) return;
  // Refused before tRPC (a path that does not decode): the REST error format.
  if (typeof res.body?.error === 'string') return checkRest(res, label);
  const error = res.body?.error;
  expect(error, where).toMatchObject({ message: expect.any(String), code: expect.any(Number), data: { httpStatus: res.status } });
  expect(error.data.app, where).toMatchObject({
    error: expect.any(String),
    message: error.message,
    request_id: res.headers.get('x-request-id'),
  });
  expect(error.data.stack, where).toBeUndefined();
  expect(res.status >= 500 && !isFailedExecution(res.status, error.data.app.error), where).toBe(false);
  expect(res.text, where).not.toMatch(INTERNALS);
}

/** MCP and A2A: JSON-RPC errors (or the REST format for HTTP-level refusals); tool lists legitimately mention SQL words. */
function checkMcp(res: ApiResponse, label: string) {
  const where = `${label}\n-> ${res.status} ${res.text.slice(0, 500)}`;
  expect(res.status < 500, where).toBe(true);
  if (res.status === 202) return;
  const messages = Array.isArray(res.body) ? res.body : [res.body];
  for (const m of messages) {
    if (m?.error && m.jsonrpc === '2.0') {
      expect(m.error, where).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
      expect(JSON.stringify(m.error), where).not.toMatch(INTERNALS);
    } else if (m?.result?.isError) {
      expect(JSON.stringify(m.result.content), where).not.toMatch(INTERNALS);
    } else if (m?.jsonrpc !== '2.0') {
      expect(m, where).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
        request_id: res.headers.get('x-request-id'),
      });
      expect(res.text, where).not.toMatch(INTERNALS);
    }
  }
}

/** FUZZ_STATS=1 prints how the answers were distributed (status and error code per transport). */
const stats = new Map<string, number>();
function count(transport: string, res: ApiResponse, code: unknown) {
  if (!process.env.FUZZ_STATS) return;
  const k = `${transport} ${res.status} ${typeof code === 'string' ? code : ''}`;
  stats.set(k, (stats.get(k) ?? 0) + 1);
}

const label = (method: string, url: string, body: string | undefined) =>
  `${method} ${url.slice(0, 300)}${body !== undefined ? ` body=${JSON.stringify(body.slice(0, 300))}` : ''}`;

// ---- the runs -----------------------------------------------------------------------------------

backends.describe('fuzzing the API with hostile input (%s)', (backend) => {
  let s: TestServer;
  let fx: Fixtures;
  const ops = operations();

  beforeAll(async () => {
    // TRUST_PROXY: each run comes from its own address, so unauthenticated runs do not drain one IP pool.
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', TRUST_PROXY: '1' } });
    const main = await s.register();
    await s.setPlan(main.tenantId, 'pro', 1_000_000);
    const victim = await s.register();
    const second = await s.call('/api/v1/keys', { key: main.apiKey, body: { name: 'fuzz target', scopes: ['modules:read'] } });
    const execution = await s.call('/api/v1/modules/text/execute', {
      key: main.apiKey,
      body: { action: 'slugify', input: { text: 'Hello' } },
    });
    await s.call('/api/v1/memory', { key: main.apiKey, body: { agent_id: 'a', key: 'k', value: 1 } });
    const hook = await s.call('/api/v1/webhooks', {
      key: main.apiKey,
      body: { url: 'https://127.0.0.1:9/hook', events: ['billing.invoice_created'] },
    });
    for (const res of [second, execution, hook]) if (res.status >= 300) throw new Error(`fixture failed: ${res.status} ${res.text}`);
    fx = {
      key: main.apiKey,
      real: {
        module: ['text', 'json', 'crypto', 'math'],
        key_id: [second.body.key_id ?? second.body.id],
        execution_id: [execution.body.execution_id],
        agent_id: ['a'],
        key: ['k'],
        id: [hook.body.id],
        tenant_id: [victim.tenantId],
      },
    };
  });
  afterAll(async () => {
    if (process.env.FUZZ_STATS)
      console.log(
        [...stats]
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join('\n'),
      );
    stats.clear();
    await s?.close();
  });

  it('walks the OpenAPI document: every operation is fuzzed', () => {
    expect(ops.length).toBeGreaterThan(30);
  });

  it(`REST: no 5xx, the error format, no internals (${RUNS} runs)`, async () => {
    const arb = fc.constantFrom(...ops).chain((op) => requestFor(op, fx).map((req) => ({ op, req })));
    await fc.assert(
      fc.asyncProperty(arb, async ({ op, req }) => {
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => encode(req.params[i++]!));
        const query = Object.entries(req.query)
          .map(([k, v]) => `${encode(k)}=${encode(v)}`)
          .join('&');
        const url = query ? `${path}?${query}` : path;
        const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : rawBody(req.body);
        // Node's own parser refuses request lines past its header limit (431) before the API runs.
        fc.pre(url.length < MAX_URL);
        const res = await s.call(url, {
          method: op.method,
          rawBody: body,
          headers: { ...headersFor(op, req.credential, fx), ...(body !== undefined && { 'content-type': 'application/json' }) },
        });
        count('rest', res, res.body?.error);
        checkRest(res, label(op.method, url, body));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it(`tRPC: no 5xx, errors mapped as on REST, no internals (${RUNS} runs)`, async () => {
    const arb = fc.constantFrom(...ops).chain((op) =>
      fc.record({
        op: fc.constant(op),
        input: bodyFor(Object.keys(op.inputSchema.properties ?? {}), op.inputSchema),
        credential: fc.constantFrom<Credential>('key', 'key', 'key', 'none'),
        // Mostly the procedure's own path and method; sometimes a hostile path, a batch, another method.
        path: fc.oneof(
          { weight: 8, arbitrary: fc.constant(op.procedure) },
          { weight: 1, arbitrary: hostileString.map(encode) },
          { weight: 1, arbitrary: fc.constant(`${op.procedure},${op.procedure}`) },
        ),
        method: fc.oneof(
          { weight: 8, arbitrary: fc.constant(op.method === 'GET' ? 'GET' : 'POST') },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ op, input, credential, path, method }) => {
        const text = rawBody(input);
        const isQuery = method === 'GET';
        const batch = path.includes(',') ? '&batch=1' : '';
        const url = `/api/trpc/${path}?${isQuery && text !== undefined ? `input=${encode(text)}` : ''}${batch}`;
        fc.pre(url.length < MAX_URL);
        const res = await s.call(url, {
          method,
          rawBody: isQuery ? undefined : text,
          headers: { ...headersFor(op, credential, fx), ...(!isQuery && { 'content-type': 'application/json' }) },
        });
        const first = Array.isArray(res.body) ? { ...res, body: res.body[0] } : res;
        count('trpc', res, first.body?.error?.data?.app?.error ?? first.body?.error);
        checkTrpc(first, label(method, url, isQuery ? undefined : text));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it(`A2A: JSON-RPC answers only, never internals (${Math.ceil(RUNS / 3)} runs)`, async () => {
    const method = fc.constantFrom(
      'SendMessage',
      'GetTask',
      'CancelTask',
      'message/send',
      'tasks/get',
      'tasks/cancel',
      'SendStreamingMessage',
      'nope',
    );
    const part = fc.oneof(
      fc.record({
        kind: fc.constant('data'),
        data: fc.oneof(
          hostileJson,
          fc.record({
            module: fc.oneof(hostileString, fc.constant('text')),
            action: fc.oneof(hostileString, fc.constant('slugify')),
            input: hostileJson,
          }),
        ),
      }),
      fc.record({ kind: fc.constant('text'), text: hostileString }),
      hostileJson,
    );
    const message = fc.oneof(
      fc
        .record({
          id: fc.oneof(fc.integer(), shortString),
          method,
          messageId: shortString,
          parts: fc.array(part, { maxLength: 2 }),
          taskId: hostileString,
        })
        .map(({ id, method: m, messageId, parts, taskId }): Body => ({
          kind: 'json',
          value: {
            jsonrpc: '2.0',
            id,
            method: m,
            params: /get|cancel/i.test(m) ? { id: taskId } : { message: { role: 'user', messageId, kind: 'message', parts } },
          },
        })),
      fc
        .record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method, params: hostileJson })
        .map((value): Body => ({ kind: 'json', value })),
      bodyFor(['jsonrpc', 'id', 'method', 'params']),
    );
    await fc.assert(
      fc.asyncProperty(message, async (body) => {
        const text = rawBody(body);
        const res = await s.call('/api/a2a', {
          method: 'POST',
          rawBody: text,
          headers: { 'x-api-key': fx.key, 'content-type': 'application/json' },
        });
        count('a2a', res, res.body?.error?.code ?? res.body?.error);
        checkMcp(res, label('POST', '/api/a2a', text));
      }),
      { numRuns: Math.ceil(RUNS / 3), seed: SEED, endOnFailure: true },
    );
  });

  it(`MCP: JSON-RPC answers only, never internals (${Math.ceil(RUNS / 3)} runs)`, async () => {
    const method = fc.constantFrom(
      'initialize',
      'ping',
      'tools/list',
      'tools/call',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'nope',
    );
    const message = fc.oneof(
      fc
        .record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), shortString), method, params: hostileJson })
        .map((m): Body => ({ kind: 'json', value: m })),
      fc
        .record({
          name: fc.oneof(hostileString, fc.constantFrom('text__slugify', 'json__query_jsonata', 'nope__x')),
          arguments: hostileJson,
        })
        .map((params): Body => ({ kind: 'json', value: { jsonrpc: '2.0', id: 1, method: 'tools/call', params } })),
      fc
        .record({ uri: hostileString })
        .map((params): Body => ({ kind: 'json', value: { jsonrpc: '2.0', id: 1, method: 'resources/read', params } })),
      bodyFor(['jsonrpc', 'id', 'method', 'params']),
    );
    await fc.assert(
      fc.asyncProperty(message, async (body) => {
        const text = rawBody(body);
        const res = await s.call('/api/mcp', {
          method: 'POST',
          rawBody: text,
          headers: { 'x-api-key': fx.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        });
        count('mcp', res, res.body?.error?.code ?? (res.body?.result?.isError ? 'isError' : undefined));
        checkMcp(res, label('POST', '/api/mcp', text));
      }),
      { numRuns: Math.ceil(RUNS / 3), seed: SEED, endOnFailure: true },
    );
  });
});
