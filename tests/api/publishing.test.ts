import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modules } from '../../src/db/schema';
import { decryptSecret } from '../../src/lib/secrets';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { objectSchema, uniqueName } from '../module-fixtures';

const JS_SOURCE = `
function handle(action, input) {
  switch (action) {
    case 'add': return { sum: input.a + input.b };
    case 'spin': while (true) {}
    case 'boom': throw new RangeError('guest exploded: ' + input.why);
    case 'reject': throw new InputError('b must not be ' + input.b);
    case 'shout': return { text: input.text.toUpperCase() };
    default: throw new Error('unknown action ' + action);
  }
}`;

const addAction = {
  name: 'add',
  description: 'Adds two numbers.',
  input_schema: objectSchema({ a: { type: 'number' }, b: { type: 'number' } }),
  output_schema: objectSchema({ sum: { type: 'number' } }),
  examples: [{ input: { a: 1, b: 2 }, output: { sum: 3 } }],
};

const whyAction = (name: string, timeout_ms?: number) => ({
  name,
  description: `The ${name} action.`,
  input_schema: objectSchema({ why: { type: 'string' } }, []),
  output_schema: { type: 'object' },
  examples: [{ input: {}, output: {} }],
  ...(timeout_ms ? { timeout_ms } : {}),
});

const jsModule = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  version: '1.0.0',
  title: `Calculator ${name}`,
  description: 'A small published calculator.',
  category: 'math',
  tags: ['math', 'sum'],
  runtime: { type: 'javascript', source: JS_SOURCE },
  actions: [addAction, whyAction('spin', 300), whyAction('boom'), { ...addAction, name: 'reject', description: 'Rejects its input.' }],
  ...overrides,
});

backends.describe('publishing modules (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => s?.close());

  const publish = (key: string, body: unknown) => s.call('/api/v1/modules', { key, body });
  const execute = (key: string, module: string, action: string, input: unknown) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body: { action, input } });

  it('publishes a private javascript module that only its tenant sees and runs', async () => {
    const owner = await s.register({ agent_name: 'calc-publisher' });
    const other = await s.register();
    const name = uniqueName('calc');
    const res = await publish(owner.apiKey, jsModule(name));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      version: '1.0.0',
      category: 'math',
      tags: ['math', 'sum'],
      publisher: 'calc-publisher',
      visibility: 'private',
      runtime: 'javascript',
      installed: false,
      trust_score: expect.any(Number),
      certification_tier: 'none',
    });
    expect(res.body.actions.map((a: any) => a.name)).toEqual(['add', 'spin', 'boom', 'reject']);
    expect(res.body.actions[0]).toEqual({ ...addAction });
    expect(res.body).not.toHaveProperty('signing_secret');
    expect(res.text).not.toContain('function handle');

    const run = await execute(owner.apiKey, name, 'add', { a: 2, b: 40 });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ module: name, action: 'add', status: 'success', output: { sum: 42 } });
    const record = await s.call(`/api/v1/executions/${run.body.execution_id}`, { key: owner.apiKey });
    expect(record.body).toMatchObject({ status: 'success', output: { sum: 42 } });
    // The engine validates input against the published schema before the sandbox runs.
    const bad = expectError(await execute(owner.apiKey, name, 'add', { a: 'x', b: 1 }), 422, 'invalid_input');
    expect(bad.issues[0].path).toBe('a');

    const mine = await s.call('/api/v1/modules?limit=100', { key: owner.apiKey });
    expect(mine.body.data.map((m: any) => m.name)).toContain(name);
    expect((await s.call(`/api/v1/modules/${name}`, { key: owner.apiKey })).body).toMatchObject({ name, installed: true });
    expect((await s.call(`/api/v1/catalog/search?q=${name}`, { key: owner.apiKey })).body.data.some((d: any) => d.module === name)).toBe(
      true,
    );

    // Another tenant: it does not exist anywhere.
    expectError(await s.call(`/api/v1/modules/${name}`, { key: other.apiKey }), 404, 'not_found');
    expectError(await execute(other.apiKey, name, 'add', { a: 1, b: 1 }), 404, 'not_found');
    expectError(await s.call(`/api/v1/modules/${name}/install`, { key: other.apiKey, method: 'POST' }), 404, 'not_found');
    const theirs = await s.call('/api/v1/modules?limit=100', { key: other.apiKey });
    expect(theirs.body.data.map((m: any) => m.name)).not.toContain(name);
    expect((await s.call(`/api/v1/catalog/search?q=${name}`, { key: other.apiKey })).body.data.some((d: any) => d.module === name)).toBe(
      false,
    );
    const ids: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: any = await s.call(`/api/v1/directory?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key: other.apiKey });
      ids.push(...page.body.data.map((d: any) => d.id));
      cursor = page.body.next_cursor;
    }
    expect(ids).toContain('text.slugify');
    expect(ids.some((id) => id.startsWith(`${name}.`))).toBe(false);
  });

  it('rejects invalid modules with 400 issues', async () => {
    const t = await s.register();
    const cases: [string, Record<string, unknown>, string][] = [
      ['module name', { name: 'Bad_Name' }, 'name'],
      ['short module name', { name: 'a' }, 'name'],
      ['version', { version: '1.0' }, 'version'],
      ['category', { category: 'weather' }, 'category'],
      ['unknown field', { colour: 'blue' }, ''],
      ['no actions', { actions: [] }, 'actions'],
      ['action name', { actions: [{ ...addAction, name: 'AddNumbers' }] }, 'actions.0.name'],
      ['long action name', { actions: [{ ...addAction, name: `a${'_b'.repeat(15)}` }] }, 'actions.0.name'],
      ['duplicate actions', { actions: [addAction, addAction] }, 'actions.1.name'],
      ['invalid schema', { actions: [{ ...addAction, output_schema: { type: 'strin' } }] }, 'actions.0.output_schema'],
      [
        'non-object input',
        { actions: [{ ...addAction, input_schema: { type: 'string' }, examples: [{ input: {}, output: { sum: 1 } }] }] },
        'actions.0.input_schema.type',
      ],
      [
        '$id',
        { actions: [{ ...addAction, input_schema: { ...addAction.input_schema, $id: 'https://example.com/s' } }] },
        'actions.0.input_schema',
      ],
      [
        'remote $ref',
        { actions: [{ ...addAction, output_schema: { $ref: 'https://example.com/schema.json' } }] },
        'actions.0.output_schema',
      ],
      [
        'input_schema refers to itself',
        { actions: [{ ...addAction, input_schema: { type: 'object', allOf: [{ $ref: '#' }] } }] },
        'actions.0.input_schema',
      ],
      ['output_schema refers to itself', { actions: [{ ...addAction, output_schema: { $ref: '#' } }] }, 'actions.0.output_schema'],
      ['no examples', { actions: [{ ...addAction, examples: [] }] }, 'actions.0.examples'],
      [
        'example input',
        { actions: [{ ...addAction, examples: [{ input: { a: 1 }, output: { sum: 1 } }] }] },
        'actions.0.examples.0.input.b',
      ],
      [
        'example output',
        { actions: [{ ...addAction, examples: [{ input: { a: 1, b: 2 }, output: { sum: 'three' } }] }] },
        'actions.0.examples.0.output.sum',
      ],
      ['example without output', { actions: [{ ...addAction, examples: [{ input: { a: 1, b: 2 } }] }] }, 'actions.0.examples.0.output'],
      ['timeout', { actions: [{ ...addAction, timeout_ms: 50 }] }, 'actions.0.timeout_ms'],
      ['runtime type', { runtime: { type: 'python', source: 'x' } }, 'runtime.type'],
      ['syntax error', { runtime: { type: 'javascript', source: 'function handle(action, input) { return {' } }, 'runtime.source'],
      ['no handle', { runtime: { type: 'javascript', source: 'function run(action, input) { return input }' } }, 'runtime.source'],
      ['ES module', { runtime: { type: 'javascript', source: 'export default function handle() {}' } }, 'runtime.source'],
      ['runaway top level', { runtime: { type: 'javascript', source: 'while (true) {} function handle() {}' } }, 'runtime.source'],
      [
        'source over 100 KB',
        { runtime: { type: 'javascript', source: `function handle() { return 1 }\n//${'x'.repeat(102_400)}` } },
        'runtime.source',
      ],
      ['endpoint', { runtime: { type: 'http', endpoint: 'not a url' } }, 'runtime.endpoint'],
      ['endpoint protocol', { runtime: { type: 'http', endpoint: 'ftp://127.0.0.1/x' } }, 'runtime.endpoint'],
      ['endpoint credentials', { runtime: { type: 'http', endpoint: 'http://user:pw@127.0.0.1:1/x' } }, 'runtime.endpoint'],
      ['short secret', { runtime: { type: 'http', endpoint: 'http://127.0.0.1:1/x', secret: 'short' } }, 'runtime.secret'],
    ];
    for (const [label, overrides, path] of cases) {
      const res = await publish(t.apiKey, jsModule(uniqueName('bad'), overrides));
      const body = expectError(res, 400, 'invalid_request');
      expect(
        body.issues.map((i: any) => i.path),
        `${label}: ${res.text}`,
      ).toContain(path);
    }
    const syntax = expectError(
      await publish(t.apiKey, jsModule(uniqueName('bad'), { runtime: { type: 'javascript', source: 'function handle() {\n  return {' } })),
      400,
      'invalid_request',
    );
    expect(syntax.message).toMatch(/SyntaxError.*line 2/);
    const list = await s.call('/api/v1/modules?limit=100', { key: t.apiKey });
    expect(list.body.data.filter((m: any) => m.name.startsWith('bad-'))).toHaveLength(0);
  });

  it('refuses taken names with 409: built-ins, other tenants (private too), its own', async () => {
    const a = await s.register();
    const b = await s.register();
    const builtin = expectError(await publish(a.apiKey, jsModule('text')), 409, 'conflict');
    expect(builtin.message).toBe('The name is taken.');
    // `workflows` would list `workflows__start` beside the platform's own MCP tool of that name.
    expect(expectError(await publish(a.apiKey, jsModule('workflows')), 409, 'conflict').message).toBe('The name is taken.');
    const name = uniqueName('taken');
    expect((await publish(a.apiKey, jsModule(name))).status).toBe(201);
    const other = expectError(await publish(b.apiKey, jsModule(name)), 409, 'conflict');
    expect(other.message).toBe('The name is taken.');
    expect(other.message).not.toMatch(/private/i);
    expect(expectError(await publish(a.apiKey, jsModule(name)), 409, 'conflict').message).toContain('PUT');
  });

  it('a runaway guest times out (504) while the server keeps answering; a throw is a 502 with the record', async () => {
    const t = await s.register();
    const name = uniqueName('rogue');
    expect((await publish(t.apiKey, jsModule(name))).status).toBe(201);
    expect((await execute(t.apiKey, name, 'add', { a: 1, b: 1 })).status).toBe(200);
    const spinning = execute(t.apiKey, name, 'spin', {});
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    expect(
      (await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Still Here' } } })).body
        .output,
    ).toEqual({ slug: 'still-here' });
    expect((await s.call(`/api/v1/modules/${name}`, { key: t.apiKey })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    // Another guest runs beside the runaway one.
    expect((await execute(t.apiKey, name, 'add', { a: 2, b: 2 })).body.output).toEqual({ sum: 4 });
    const timedOut = expectError(await spinning, 504, 'timeout');
    expect(timedOut.execution).toMatchObject({ status: 'failed', module: name, action: 'spin', error: { code: 'timeout' } });

    const boom = expectError(await execute(t.apiKey, name, 'boom', { why: 'because' }), 502, 'module_error');
    expect(boom.message).toBe('RangeError: guest exploded: because');
    expect(boom.message).not.toMatch(/node_modules|\.ts|\.js:/);
    expect(boom.execution).toMatchObject({
      status: 'failed',
      error: { code: 'module_error', message: 'RangeError: guest exploded: because' },
    });
    const rejected = expectError(await execute(t.apiKey, name, 'reject', { a: 1, b: 2 }), 422, 'invalid_input');
    expect(rejected.message).toBe('b must not be 2');
    expect(rejected.execution).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    const failed = await s.call(`/api/v1/executions?module=${name}&status=failed`, { key: t.apiKey });
    expect(failed.body.data).toHaveLength(3);
    expect((await s.call(`/api/v1/executions?module=${name}&status=success`, { key: t.apiKey })).body.data).toHaveLength(2);
  }, 30_000);

  it('updates its own module with PUT: new actions, metadata, visibility; others get 404', async () => {
    const owner = await s.register();
    const other = await s.register();
    const name = uniqueName('evolving');
    expect((await publish(owner.apiKey, jsModule(name, { actions: [addAction] }))).status).toBe(201);
    const shout = {
      name: 'shout',
      description: 'Upper-cases text.',
      input_schema: objectSchema({ text: { type: 'string' } }),
      output_schema: objectSchema({ text: { type: 'string' } }),
      examples: [{ input: { text: 'hi' }, output: { text: 'HI' } }],
    };
    const put = (key: string, module: string, body: unknown) => s.call(`/api/v1/modules/${module}`, { key, method: 'PUT', body });

    const updated = await put(owner.apiKey, name, { version: '1.1.0', title: 'Calculator and shouter', actions: [addAction, shout] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name, version: '1.1.0', title: 'Calculator and shouter', visibility: 'private' });
    expect(updated.body.actions.map((a: any) => a.name)).toEqual(['add', 'shout']);
    expect((await execute(owner.apiKey, name, 'shout', { text: 'hello' })).body.output).toEqual({ text: 'HELLO' });
    // The new input schema applies at once (the engine's schema cache is keyed by updated_at).
    const narrowed = { ...shout, input_schema: objectSchema({ text: { type: 'string', maxLength: 3 } }) };
    expect((await put(owner.apiKey, name, { actions: [addAction, narrowed] })).status).toBe(200);
    expectError(await execute(owner.apiKey, name, 'shout', { text: 'hello' }), 422, 'invalid_input');
    // Actions are replaced as a whole.
    expect((await put(owner.apiKey, name, { actions: [shout] })).body.actions.map((a: any) => a.name)).toEqual(['shout']);
    expectError(await execute(owner.apiKey, name, 'add', { a: 1, b: 2 }), 404, 'not_found');

    expectError(await put(other.apiKey, name, { title: 'Hijacked' }), 404, 'not_found');
    expectError(await put(owner.apiKey, 'text', { title: 'Hijacked' }), 404, 'not_found');
    expectError(await put(owner.apiKey, uniqueName('nope'), { title: 'x' }), 404, 'not_found');
    expectError(await put(owner.apiKey, name, {}), 400, 'invalid_request');
    expectError(await put(owner.apiKey, name, { name: 'renamed' }), 400, 'invalid_request');
    expectError(
      await put(owner.apiKey, name, { actions: [{ ...shout, input_schema: { type: 'object', properties: 5 } }] }),
      400,
      'invalid_request',
    );
    expectError(await put(owner.apiKey, name, { runtime: { type: 'javascript', source: 'nope(' } }), 400, 'invalid_request');

    const published = await put(owner.apiKey, name, { visibility: 'public' });
    expect(published.body.visibility).toBe('public');
    const theirs = await execute(other.apiKey, name, 'shout', { text: 'abc' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.output).toEqual({ text: 'ABC' });
    expect((await s.call(`/api/v1/modules/${name}`, { key: other.apiKey })).body).toMatchObject({
      name,
      visibility: 'public',
      installed: true,
    });
    expect((await s.call(`/api/v1/catalog/search?q=${name}`, { key: other.apiKey })).body.data).toContainEqual(
      expect.objectContaining({ module: name, action: 'shout' }),
    );
    // Still not theirs to change.
    expectError(await put(other.apiKey, name, { visibility: 'private' }), 404, 'not_found');
    // Back to private: gone for the other tenant again.
    expect((await put(owner.apiKey, name, { visibility: 'private' })).status).toBe(200);
    expectError(await execute(other.apiKey, name, 'shout', { text: 'abc' }), 404, 'not_found');
  }, 30_000);

  it('needs modules:write to publish and update', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const name = uniqueName('scoped');
    expect((await publish(t.apiKey, jsModule(name))).status).toBe(201);
    const reader = await s.call('/api/v1/keys', {
      key: t.apiKey,
      body: { name: 'runner', scopes: ['modules:read', 'modules:execute', 'modules:install'] },
    });
    expect(reader.status).toBe(201);
    const denied = expectError(await publish(reader.body.api_key, jsModule(uniqueName('scoped'))), 403, 'insufficient_scope');
    expect(denied.required_scope).toBe('modules:write');
    const deniedPut = expectError(
      await s.call(`/api/v1/modules/${name}`, { key: reader.body.api_key, method: 'PUT', body: { title: 'x' } }),
      403,
      'insufficient_scope',
    );
    expect(deniedPut.required_scope).toBe('modules:write');
    // Scope comes before validation (docs/auth.md, Scopes and the order of checks).
    expectError(await publish(reader.body.api_key, { nonsense: true }), 403, 'insufficient_scope');
    const writer = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'writer', scopes: ['modules:write'] } });
    expect((await publish(writer.body.api_key, jsModule(uniqueName('scoped')))).status).toBe(201);
  });

  describe('http runtime', () => {
    interface Received {
      headers: http.IncomingHttpHeaders;
      body: string;
      signatureValid: boolean;
    }
    let receiver: http.Server;
    let endpoint: string;
    let secret = '';
    const received: Received[] = [];

    beforeAll(async () => {
      receiver = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          const signed = Buffer.concat([Buffer.from(`${req.headers['x-module-timestamp']}.`), raw]);
          const expected = Buffer.from(createHmac('sha256', secret).update(signed).digest('hex'));
          const given = Buffer.from(String(req.headers['x-module-signature'] ?? ''));
          const signatureValid = given.length === expected.length && timingSafeEqual(given, expected);
          received.push({ headers: req.headers, body: raw.toString('utf8'), signatureValid });
          const reply = (status: number, body: unknown, type = 'application/json') => {
            res.writeHead(status, { 'content-type': type });
            res.end(typeof body === 'string' ? body : JSON.stringify(body));
          };
          if (!signatureValid) return reply(401, { error: 'bad signature' });
          const { action, input } = JSON.parse(raw.toString('utf8')) as { action: string; input: { mode?: string } };
          switch (input.mode) {
            case 'fail':
              return reply(500, { message: 'database on fire' });
            case 'reject':
              return reply(422, { message: 'mode reject is not acceptable here' });
            case 'slow':
              return void setTimeout(() => reply(200, { late: true }), 5000);
            case 'text':
              return reply(200, 'plain words', 'text/plain');
            case 'huge':
              return reply(200, { blob: 'x'.repeat(1024 * 1024 + 10) });
            default:
              return reply(200, { action, echoed: input, ok: true });
          }
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/module`;
    });
    afterAll(async () => {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    });

    const httpModule = (name: string, runtime: Record<string, unknown>) =>
      jsModule(name, {
        runtime,
        actions: [
          {
            name: 'call',
            description: 'Calls the receiver.',
            input_schema: objectSchema({ mode: { type: 'string' }, n: { type: 'number' } }, []),
            output_schema: { type: 'object' },
            examples: [{ input: {}, output: { ok: true } }],
            timeout_ms: 300,
          },
        ],
      });

    it('signs each call; answers map to output, 422, 502 and 504; only the encrypted secret is stored', async () => {
      const t = await s.register();
      const name = uniqueName('remote');
      const res = await publish(t.apiKey, httpModule(name, { type: 'http', endpoint }));
      expect(res.status).toBe(201);
      expect(res.body.runtime).toBe('http');
      secret = res.body.signing_secret;
      expect(secret).toMatch(/^msec_[A-Za-z0-9_-]{43}$/);
      const detail = await s.call(`/api/v1/modules/${name}`, { key: t.apiKey });
      expect(detail.text).not.toContain(secret);
      expect(detail.body).not.toHaveProperty('signing_secret');

      const [row] = await s.svc.db.select({ runtime: modules.runtime }).from(modules).where(eq(modules.name, name));
      const stored = JSON.stringify(row!.runtime);
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(5));
      expect(row!.runtime).toMatchObject({ type: 'http', endpoint, secret_encrypted: expect.stringMatching(/^v1:/) });
      expect(decryptSecret(s.svc.config.encryptionKey, (row!.runtime as { secret_encrypted: string }).secret_encrypted)).toBe(secret);

      received.length = 0;
      const ok = await execute(t.apiKey, name, 'call', { mode: 'ok', n: 1 });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.output).toEqual({ action: 'call', echoed: { mode: 'ok', n: 1 }, ok: true });
      expect(received).toHaveLength(1);
      const [first] = received;
      expect(first!.signatureValid).toBe(true);
      expect(JSON.parse(first!.body)).toEqual({ action: 'call', input: { mode: 'ok', n: 1 } });
      expect(first!.headers['content-type']).toBe('application/json');
      expect(first!.headers['x-module-action']).toBe('call');
      expect(Math.abs(Number(first!.headers['x-module-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(first!.headers['x-module-signature']).toMatch(/^[0-9a-f]{64}$/);

      const rejected = expectError(await execute(t.apiKey, name, 'call', { mode: 'reject' }), 422, 'invalid_input');
      expect(rejected.message).toBe('mode reject is not acceptable here');
      expect(rejected.execution).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
      const failed = expectError(await execute(t.apiKey, name, 'call', { mode: 'fail' }), 502, 'module_error');
      expect(failed.message).toContain('500');
      expect(failed.execution).toMatchObject({ status: 'failed', error: { code: 'module_error' } });
      expectError(await execute(t.apiKey, name, 'call', { mode: 'text' }), 502, 'module_error');
      expect(expectError(await execute(t.apiKey, name, 'call', { mode: 'huge' }), 502, 'module_error').message).toContain('1 MiB');
      const started = Date.now();
      const slow = expectError(await execute(t.apiKey, name, 'call', { mode: 'slow' }), 504, 'timeout');
      expect(Date.now() - started).toBeLessThan(4000);
      expect(slow.execution).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
      expect(received.every((r) => r.signatureValid)).toBe(true);

      // No secret in any answer or record.
      const records = await s.call(`/api/v1/executions?module=${name}&limit=100`, { key: t.apiKey });
      expect(records.text).not.toContain(secret);
    }, 30_000);

    it('a publisher-chosen secret signs; a new one via PUT is shown once; a wrong one fails closed', async () => {
      const t = await s.register();
      const name = uniqueName('remote');
      const chosen = 'my-own-secret-0123456789';
      const res = await publish(t.apiKey, httpModule(name, { type: 'http', endpoint, secret: chosen }));
      expect(res.status).toBe(201);
      expect(res.body.signing_secret).toBe(chosen);
      secret = chosen;
      expect((await execute(t.apiKey, name, 'call', {})).status).toBe(200);

      // The endpoint alone changes: the secret is kept and not shown.
      const moved = await s.call(`/api/v1/modules/${name}`, {
        key: t.apiKey,
        method: 'PUT',
        body: { runtime: { type: 'http', endpoint: `${endpoint}?v=2` } },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).not.toHaveProperty('signing_secret');
      expect((await execute(t.apiKey, name, 'call', {})).status).toBe(200);

      const rotated = await s.call(`/api/v1/modules/${name}`, {
        key: t.apiKey,
        method: 'PUT',
        body: { runtime: { type: 'http', endpoint, secret: 'a-brand-new-secret-987654' } },
      });
      expect(rotated.body.signing_secret).toBe('a-brand-new-secret-987654');
      // The receiver still checks the old secret: it answers 401, a module error (not the caller's fault).
      expectError(await execute(t.apiKey, name, 'call', {}), 502, 'module_error');
      secret = 'a-brand-new-secret-987654';
      expect((await execute(t.apiKey, name, 'call', {})).status).toBe(200);
    });
  });
});

backends.describe('publishing http modules without WEBHOOK_ALLOW_PRIVATE (%s)', (backend) => {
  let s: TestServer;
  let hits = 0;
  let trap: http.Server;
  let trapPort = 0;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: undefined } });
    trap = http.createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapPort = (trap.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => trap.close(r));
    await s?.close();
  });

  it('refuses http://, loopback and private endpoints at publish time, before any request', async () => {
    expect(s.svc.config.webhooks.allowPrivate).toBe(false);
    const t = await s.register();
    for (const url of [
      `http://127.0.0.1:${trapPort}/x`,
      `https://127.0.0.1:${trapPort}/x`,
      'https://10.0.0.1/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
      'https://0x7f.1/x',
    ]) {
      const res = await s.call('/api/v1/modules', {
        key: t.apiKey,
        body: jsModule(uniqueName('ssrf'), { runtime: { type: 'http', endpoint: url } }),
      });
      const body = expectError(res, 400, 'invalid_request');
      expect(body.issues[0].path, url).toBe('runtime.endpoint');
      expect(body.message).toMatch(/not allowed/);
    }
    expect(hits).toBe(0);
    // javascript modules are unaffected.
    expect((await s.call('/api/v1/modules', { key: t.apiKey, body: jsModule(uniqueName('plain')) })).status).toBe(201);
  });
});
