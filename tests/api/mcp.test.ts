import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { authenticate } from '../../src/auth/authenticate';
import { executions, usageCounters } from '../../src/db/schema';
import { cycleStart } from '../../src/metering/cycle';
import { portabilityIssues } from '../../src/modules/json-schema';
import { BUILTIN_MODULES } from '../../src/modules/registry';
import { listTools } from '../../src/server/mcp/catalog';
import { originAllowed } from '../../src/server/mcp/origin';
import { VERSION } from '../../src/version';
import { backends, clientAddress, expectError, startTestServer, type TestServer } from '../harness';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const BUILTIN_ACTIONS = BUILTIN_MODULES.reduce((n, m) => n + m.actions.length, 0);

describe('MCP Origin check (DNS rebinding)', () => {
  const base = 'https://amp.example.com';
  it('allows no Origin, the public origin and loopback same-origin; refuses the rest', () => {
    expect(originAllowed(undefined, 'anything', base)).toBe(true);
    expect(originAllowed('https://amp.example.com', 'internal:8080', base)).toBe(true);
    expect(originAllowed('http://localhost:3000', 'localhost:3000', base)).toBe(true);
    expect(originAllowed('http://127.0.0.1:3000', '127.0.0.1:3000', base)).toBe(true);
    // A rebound name: Origin and Host agree with each other, but neither is ours.
    expect(originAllowed('http://evil.example.com', 'evil.example.com', base)).toBe(false);
    expect(originAllowed('http://localhost:4000', 'localhost:3000', base)).toBe(false);
    expect(originAllowed('https://evil.example', 'amp.example.com', base)).toBe(false);
    expect(originAllowed('null', 'localhost:3000', base)).toBe(false);
  });
});

backends.describe('MCP endpoint /api/mcp (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    // TRUST_PROXY: a test that counts the public (per client address) pool names its own address
    // (X-Forwarded-For), so other files' anonymous requests on the shared Redis are not counted in it.
    s = await startTestServer({ backend, env: { TRUST_PROXY: '1' } });
  });
  afterAll(async () => s?.close());

  async function connect(key: string, query = '') {
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp${query}`), {
      requestInit: { headers: { 'x-api-key': key } },
    });
    await client.connect(transport);
    return { client, transport };
  }

  /** A raw JSON-RPC POST as a minimal client sends it (only `Accept: application/json`). */
  const rpc = (key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
    s.call('/api/mcp', {
      key,
      method: 'POST',
      ...(typeof body === 'string' ? { rawBody: body } : { body }),
      headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
    });

  const initialize = (protocolVersion: string) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  async function keyWithScopes(scopes: string[]) {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: scopes.join('+'), scopes } });
    expect(created.status).toBe(201);
    return created.body.api_key as string;
  }

  it('initializes with the SDK client: server info, capabilities, instructions, protocol 2025-11-25', async () => {
    const t = await s.register();
    const { client, transport } = await connect(t.apiKey);
    expect(client.getServerVersion()).toMatchObject({ name: 'agent-module-platform', version: VERSION });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(client.getInstructions()).toContain('installed');
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toBeUndefined();
    await client.ping();
    await client.close();
  });

  it('negotiates 2025-06-18 and 2025-11-25; a 2026-07-28 client is offered 2025-11-25', async () => {
    const t = await s.register();
    for (const [asked, answered] of [
      ['2025-06-18', '2025-06-18'],
      ['2025-11-25', '2025-11-25'],
      ['2026-07-28', '2025-11-25'],
    ]) {
      const res = await rpc(t.apiKey, initialize(asked!));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(res.body.result.protocolVersion).toBe(answered);
      expect(res.body.result.serverInfo.name).toBe('agent-module-platform');
    }
  });

  it('puts the rate-limit, execution and request-id headers on every response', async () => {
    const t = await s.register();
    const res = await rpc(t.apiKey, { jsonrpc: '2.0', id: 7, method: 'ping' }, { 'x-request-id': 'mcp-req-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(res.headers.get('x-request-id')).toBe('mcp-req-1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(res.headers.get('ratelimit')).toMatch(/r=59/);
    expect(res.headers.get('ratelimit-policy')).toMatch(/q=60/);
    expect(res.headers.get('x-execution-remaining')).toBe('1000');
  });

  /** Every page of tools/list, following nextCursor as a client must. */
  async function allTools(client: Client) {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    return { tools, pages };
  }

  it('tools/list: every visible action, always the same list (before and after calls and installs)', async () => {
    const t = await s.register();
    const { client } = await connect(t.apiKey);
    const first = await client.listTools();
    // The built-in catalog fits one page: clients that never follow nextCursor see everything.
    expect(first.nextCursor).toBeUndefined();
    const all = first.tools;
    expect(all).toHaveLength(BUILTIN_ACTIONS);
    for (const tool of all) {
      expect(tool.name).toMatch(TOOL_NAME);
      expect(tool.name).toContain('__');
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description).toBeTruthy();
    }
    expect(new Set(all.map((x) => x.name)).size).toBe(all.length);
    expect(all.map((x) => x.name)).toEqual(all.map((x) => x.name).sort());
    const slugify = all.find((x) => x.name === 'text__slugify');
    expect(slugify).toBeDefined();
    expect(slugify!.outputSchema?.type).toBe('object');

    // A call installs text; an explicit install adds json: the list does not change.
    expect((await client.callTool({ name: 'text__slugify', arguments: { text: 'A' } })).isError).toBeFalsy();
    expect((await s.call('/api/v1/modules/json/install', { key: t.apiKey, method: 'POST' })).status).toBe(201);
    const installed = await s.call('/api/v1/modules?installed=true', { key: t.apiKey });
    expect(installed.body.data.map((m: { name: string }) => m.name).sort()).toEqual(['json', 'text']);
    expect(await client.listTools()).toEqual(first);
    await client.close();
  });

  it('tools/list pages with nextCursor: each tool exactly once, in order; a bad cursor is -32602', async () => {
    const t = await s.register();
    const principal = await authenticate(s.svc, { apiKey: t.apiKey });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listTools(s.svc, principal, { cursor, pageSize: 50 });
      expect(page.tools.length).toBeLessThanOrEqual(50);
      names.push(...page.tools.map((x) => x.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(BUILTIN_ACTIONS / 50));
    expect(names).toEqual([...new Set(names)].sort());
    expect(names).toHaveLength(BUILTIN_ACTIONS);

    for (const bad of ['bogus', 'dDp', '', 'x'.repeat(300)]) {
      const res = await rpc(t.apiKey, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: bad } });
      expect(res.body.error, bad).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid cursor') });
    }
    // A cursor issued by the server continues after the named tool.
    const second = await listTools(s.svc, principal, { pageSize: 50 });
    const res = await rpc(t.apiKey, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: second.nextCursor } });
    expect(res.body.result.tools[0].name).toBe(names[50]);
  });

  it('?modules= narrows tools, calls and resources for the connection; unknown names are ignored and reported', async () => {
    const t = await s.register();
    const { client } = await connect(t.apiKey, '?modules=text,json,nope&modules=Text');
    const { tools, pages } = await allTools(client);
    expect(pages).toBe(1);
    expect(new Set(tools.map((x) => x.name.split('__')[0]))).toEqual(new Set(['json', 'text']));
    const expected = BUILTIN_MODULES.filter((m) => m.name === 'text' || m.name === 'json').reduce((n, m) => n + m.actions.length, 0);
    expect(tools).toHaveLength(expected);
    const listed = await client.listTools();
    expect(listed._meta).toEqual({ 'agent-module-platform/unknown_modules': ['nope', 'Text'] });

    expect((await client.callTool({ name: 'text__slugify', arguments: { text: 'In Scope' } })).structuredContent).toEqual({
      slug: 'in-scope',
    });
    const outside = await client.callTool({ name: 'csv__parse', arguments: { csv: 'a\n1' } }).catch((e: unknown) => e);
    expect(outside).toBeInstanceOf(McpError);
    expect((outside as McpError).code).toBe(-32602);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name).sort()).toEqual(['json', 'text']);
    const doc = await client.readResource({ uri: 'amp://modules/csv' }).catch((e: unknown) => e);
    expect((doc as McpError).code).toBe(-32002);
    await client.close();

    // Without ?modules= (or with it empty) the connection sees everything again.
    const { client: wide } = await connect(t.apiKey, '?modules=');
    expect((await wide.listTools()).tools).toHaveLength(BUILTIN_ACTIONS);
    expect((await wide.callTool({ name: 'csv__parse', arguments: { csv: 'a\n1' } })).isError).toBeFalsy();
    await wide.close();
  });

  it('tool schemas are portable: no type arrays, every value typed (the MCP Inspector check)', async () => {
    const t = await s.register();
    const { client } = await connect(t.apiKey);
    const { tools } = await allTools(client);
    expect(tools).toHaveLength(BUILTIN_ACTIONS);
    for (const tool of tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        if (!schema) continue;
        expect(JSON.stringify(schema), tool.name).not.toMatch(/"type":\[/);
        expect(portabilityIssues(schema), tool.name).toEqual([]);
      }
    }
    await client.close();
  });

  it('tools/call runs the action: JSON text plus structured output', async () => {
    const t = await s.register();
    const { client } = await connect(t.apiKey);
    const result = await client.callTool({ name: 'text__slugify', arguments: { text: 'Hello World' } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ slug: 'hello-world' });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ slug: 'hello-world' }) }]);
    expect((result._meta as Record<string, string>)['agent-module-platform/execution_id']).toMatch(/^exe_/);
    await client.close();
  });

  it('a failed execution is an isError result, not a protocol error; an unknown tool is -32602', async () => {
    const t = await s.register();
    const { client } = await connect(t.apiKey);
    const bad = await client.callTool({ name: 'text__slugify', arguments: { text: 42 } });
    expect(bad.isError).toBe(true);
    const content = bad.content as { type: string; text: string }[];
    const error = JSON.parse(content[0]!.text);
    expect(error).toMatchObject({ error: 'invalid_input', message: expect.any(String), execution_id: expect.stringMatching(/^exe_/) });
    expect(error.issues[0].path).toBe('text');

    for (const name of ['text__nope', 'nope__slugify', 'no-separator', 'Text__slugify']) {
      const err = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32602);
    }
    const failed = await s.call('/api/v1/executions?status=failed', { key: t.apiKey });
    expect(failed.body.data).toHaveLength(1);
    await client.close();
  });

  it('an exhausted quota is an isError result (quota_exceeded)', async () => {
    const t = await s.register();
    await s.svc.db.insert(usageCounters).values({ tenantId: t.tenantId, cycleStart: cycleStart(), executions: 1000 });
    const res = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'text__slugify', arguments: { text: 'x' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(JSON.parse(res.body.result.content[0].text)).toMatchObject({ error: 'quota_exceeded', limit: 1000 });
    expect(res.headers.get('x-execution-remaining')).toBe('0');
  });

  it('resources: one Markdown document per visible module', async () => {
    const t = await s.register();
    const { client } = await connect(t.apiKey);
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThanOrEqual(15);
    const text = resources.find((r) => r.uri === 'amp://modules/text');
    expect(text).toMatchObject({ name: 'text', mimeType: 'text/markdown' });
    const read = await client.readResource({ uri: 'amp://modules/text' });
    const doc = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(doc.mimeType).toBe('text/markdown');
    expect(doc.text).toMatch(/^# /);
    expect(doc.text).toContain('### slugify');
    expect(doc.text).toContain('`text__slugify`');
    expect(doc.text).toContain('"type": "object"');
    expect(doc.text).toContain('Example');
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates[0]!.uriTemplate).toBe('amp://modules/{module}');
    for (const uri of ['amp://modules/nope', 'https://example.com/x']) {
      const err = await client.readResource({ uri }).catch((e: unknown) => e);
      expect((err as McpError).code).toBe(-32002);
    }
    await client.close();
  });

  it('raw JSON-RPC edge cases: -32700, -32601, -32602, notifications, no Content-Type', async () => {
    const t = await s.register();
    const parse = await rpc(t.apiKey, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });

    // JSON that parses but is no JSON-RPC 2.0 message: -32600 Invalid Request.
    for (const bad of [
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 5 },
      [],
      null,
      5,
    ]) {
      const res = await rpc(t.apiKey, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body, JSON.stringify(bad)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }

    const unknown = await rpc(t.apiKey, { jsonrpc: '2.0', id: 2, method: 'prompts/list' });
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32601 } });

    const noName = await rpc(t.apiKey, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } });
    expect(noName.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: expect.stringContaining('name') } });
    const badArgs = await rpc(t.apiKey, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'text__slugify', arguments: 'x' } });
    expect(badArgs.body.error.code).toBe(-32602);
    const noUri = await rpc(t.apiKey, { jsonrpc: '2.0', id: 6, method: 'resources/read', params: {} });
    expect(noUri.body.error.code).toBe(-32602);

    const note = await rpc(t.apiKey, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(note.text).toBe('');

    const bare = await s.call('/api/mcp', {
      key: t.apiKey,
      method: 'POST',
      rawBody: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
    });
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('JSON-RPC batches are answered as the SDK does (an array of responses), one request counted per call', async () => {
    const t = await s.register();
    const res = await rpc(t.apiKey, [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'text__slugify', arguments: { text: 'A B' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const byId = Object.fromEntries(res.body.map((r: any) => [r.id, r]));
    expect(byId.a.result).toEqual({});
    expect(byId.b.result.structuredContent).toEqual({ slug: 'a-b' });
    expect(res.headers.get('x-ratelimit-remaining')).toBe('58');
    expect(res.headers.get('x-execution-remaining')).toBe('999');
  });

  it('a missing or invalid key is HTTP 401 in the REST error format, counted on the public pool', async () => {
    const client = { 'x-forwarded-for': clientAddress() };
    const missing = await rpc(undefined, initialize('2025-11-25'), client);
    const body = expectError(missing, 401, 'unauthorized');
    expect(body.request_id).toMatch(/^req_/);
    expect(missing.headers.get('x-ratelimit-limit')).toBe('600');
    const before = Number(missing.headers.get('x-ratelimit-remaining'));
    const invalid = await rpc('amp_notavalidkey0000000000000000000000', initialize('2025-11-25'), client);
    expectError(invalid, 401, 'unauthorized');
    expect(Number(invalid.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
  });

  it('over the rate limit: HTTP 429 with the REST body before dispatch', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'free', 3);
    for (let i = 0; i < 2; i++) expect((await rpc(t.apiKey, { jsonrpc: '2.0', id: i, method: 'ping' })).status).toBe(200);
    // One unit left: a batch of two calls does not fit.
    const batch = await rpc(t.apiKey, [
      { jsonrpc: '2.0', id: 'x', method: 'ping' },
      { jsonrpc: '2.0', id: 'y', method: 'tools/call', params: { name: 'text__slugify', arguments: { text: 'never' } } },
    ]);
    expectError(batch, 429, 'rate_limit_exceeded');
    // All or nothing: the refused batch spent nothing, so the last unit is still there.
    expect((await rpc(t.apiKey, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(200);

    const over = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'text__slugify', arguments: { text: 'x' } },
    });
    const body = expectError(over, 429, 'rate_limit_exceeded');
    expect(body).toMatchObject({ limit: 3, retry_after: expect.any(Number), reset_at: expect.any(String) });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('x-ratelimit-limit')).toBe('3');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.headers.get('x-execution-remaining')).toBe('1000');
    // Nothing was dispatched (REST would be refused too: the pool is spent).
    expect(await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId))).toHaveLength(0);
  });

  it('one tools/call is one execution, recorded with source mcp', async () => {
    const t = await s.register();
    const before = await rpc(t.apiKey, { jsonrpc: '2.0', id: 1, method: 'ping' });
    const remaining = Number(before.headers.get('x-execution-remaining'));
    const res = await rpc(t.apiKey, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'text__slugify', arguments: { text: 'Once' } },
    });
    expect(res.body.result.structuredContent).toEqual({ slug: 'once' });
    expect(Number(res.headers.get('x-execution-remaining'))).toBe(remaining - 1);
    const list = await s.call('/api/v1/executions', { key: t.apiKey });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      module: 'text',
      action: 'slugify',
      status: 'success',
      source: 'mcp',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('scopes: modules:read may list but not call; modules:execute alone may call but not initialize', async () => {
    const readOnly = await keyWithScopes(['modules:read']);
    const { client } = await connect(readOnly);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const err = await client.callTool({ name: 'text__slugify', arguments: { text: 'x' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32003);
    await client.close();
    const raw = await rpc(readOnly, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'text__slugify', arguments: { text: 'x' } },
    });
    expect(raw.body.error).toMatchObject({ code: -32003, data: { error: 'insufficient_scope', required_scope: 'modules:execute' } });

    const executeOnly = await keyWithScopes(['modules:execute']);
    const init = await rpc(executeOnly, initialize('2025-11-25'));
    expect(init.body.error).toMatchObject({ code: -32003, data: { required_scope: 'modules:read' } });
    expect((await rpc(executeOnly, { jsonrpc: '2.0', id: 2, method: 'resources/list' })).body.error.code).toBe(-32003);
    const call = await rpc(executeOnly, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'text__slugify', arguments: { text: 'ok' } },
    });
    expect(call.body.result.structuredContent).toEqual({ slug: 'ok' });
    expect((await rpc(executeOnly, { jsonrpc: '2.0', id: 4, method: 'ping' })).body.result).toEqual({});
  });

  it('a cross-origin browser request is 403; same-origin and no Origin pass', async () => {
    const t = await s.register();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const cross = await rpc(t.apiKey, ping, { origin: 'http://evil.example.com' });
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe(-32000);
    expect(cross.headers.get('x-request-id')).toBeTruthy();
    expect((await rpc(t.apiKey, ping, { origin: 'null' })).status).toBe(403);
    const same = await rpc(t.apiKey, ping, { origin: s.url });
    expect(same.status).toBe(200);
  });

  it('JSON the SDK would call a parse error is -32600 with the reason; a batch repeating a request id runs nothing', async () => {
    const t = await s.register();
    const remaining = async () => Number((await s.call('/api/v1/me', { key: t.apiKey })).headers.get('x-execution-remaining'));
    const cases: [unknown, RegExp][] = [
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, /"id" must be a string or an integer/],
      [{ jsonrpc: '2.0', id: 1, method: 'ping', params: [] }, /"params" must be an object/],
      [{ jsonrpc: '2.0', method: 'notifications/initialized', params: 'x' }, /"params" must be an object/],
      [{ jsonrpc: '2.0', id: 1, method: 'ping', extra: true }, /unknown member "extra"/],
      [{ jsonrpc: '2.0', id: 1, error: 'x' }, /not a valid JSON-RPC 2.0/],
    ];
    for (const [bad, reason] of cases) {
      const res = await rpc(t.apiKey, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body, JSON.stringify(bad)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(reason) },
      });
    }
    // The transport pairs answers with requests by id: two calls under one id would both run (and
    // be billed) but only one would be answered. Refused whole; 1 and "1" are different ids.
    const call = (id: unknown, text: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'text__slugify', arguments: { text } },
    });
    const twice = await rpc(t.apiKey, [call(7, 'a'), call(7, 'b')]);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('appears more than once') } });
    expect(await remaining()).toBe(1000);
    const distinct = await rpc(t.apiKey, [call(1, 'a'), call('1', 'b')]);
    expect(distinct.status).toBe(200);
    expect(distinct.body).toHaveLength(2);
    expect(await remaining()).toBe(998);
  });

  it('error messages carry no "MCP error <code>:" prefix (clients add their own)', async () => {
    const t = await s.register();
    const wire = [
      await rpc(t.apiKey, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope__x', arguments: {} } }),
      await rpc(t.apiKey, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'amp://modules/nope' } }),
      await rpc(t.apiKey, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'zzz' } }),
    ].map((r) => r.body.error);
    expect(wire).toEqual([
      { code: -32602, message: 'Unknown tool: nope__x' },
      { code: -32002, message: 'Resource not found', data: { uri: 'amp://modules/nope' } },
      { code: -32602, message: 'Invalid cursor' },
    ]);
    const { client } = await connect(t.apiKey);
    const err = (await client.callTool({ name: 'nope__x', arguments: {} }).catch((e: unknown) => e)) as McpError;
    expect(err.message).toBe('MCP error -32602: Unknown tool: nope__x');
    await client.close();
  });

  it('text PostgreSQL cannot hold (U+0000, lone surrogates) is refused as on REST: no execution, no -32603', async () => {
    const t = await s.register();
    const call = (name: string, args: unknown) =>
      rpc(t.apiKey, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const toolError = (res: Awaited<ReturnType<typeof call>>) => {
      expect(res.status, res.text).toBe(200);
      expect(res.body.result?.isError, res.text).toBe(true);
      return JSON.parse(res.body.result.content[0].text);
    };
    const rest = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'a\u0000b' } } });
    expectError(rest, 400, 'invalid_request');
    expect(toolError(await call('text__slugify', { text: 'a\u0000b' }))).toMatchObject({
      error: 'invalid_request',
      issues: [{ path: 'text' }],
    });
    expect(toolError(await call('text__slugify', { ['k\ud800']: 'x' }))).toMatchObject({ error: 'invalid_request' });
    expect((await s.call('/api/v1/executions', { key: t.apiKey })).body.data).toHaveLength(0);

    // The workflow tools store their arguments (were -32603 internal errors from the database).
    const wf = await s.call('/api/v1/workflows', {
      key: t.apiKey,
      body: { name: 'nul', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: '{{input.t}}' } }] },
    });
    expect(wf.status).toBe(201);
    expect(toolError(await call('workflows__start', { workflow_id: wf.body.id, input: { t: 'a\u0000b' } }))).toMatchObject({
      error: 'invalid_request',
      issues: [{ path: 'input' }],
    });
    expect(toolError(await call('workflows__start', { workflow_id: wf.body.id, idempotency_key: 'k\u0000' }))).toMatchObject({
      error: 'invalid_request',
    });
    expect(toolError(await call('workflows__start', { workflow_id: `${wf.body.id}\u0000` }))).toMatchObject({ error: 'not_found' });
    // An id no workflow can have (empty, longer than any id) was a -32603 internal error.
    expect(toolError(await call('workflows__start', { workflow_id: '' }))).toMatchObject({ error: 'not_found' });
    expect(toolError(await call('workflows__start', { workflow_id: 'x'.repeat(100) }))).toMatchObject({ error: 'not_found' });
    expect(toolError(await call('workflows__get_run', { workflow_id: wf.body.id, run_id: 'run_\ud800' }))).toMatchObject({
      error: 'not_found',
    });
    expect((await s.call(`/api/v1/workflows/${wf.body.id}/runs`, { key: t.apiKey })).body.data).toHaveLength(0);
  });

  it('GET and DELETE are 405 with Allow: POST (stateless: no SSE stream, no session)', async () => {
    const t = await s.register();
    for (const method of ['GET', 'DELETE']) {
      const res = await s.call('/api/mcp', { key: t.apiKey, method, headers: { accept: 'text/event-stream' } });
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toContain('POST');
    }
  });
});
