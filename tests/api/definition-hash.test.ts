import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { objectSchema, uniqueName } from '../module-fixtures';

const HASH = /^sha256:[0-9a-f]{64}$/;

const doubleAction = {
  name: 'double',
  description: 'Doubles a number.',
  input_schema: objectSchema({ n: { type: 'number' } }),
  output_schema: objectSchema({ n: { type: 'number' } }),
  examples: [{ input: { n: 2 }, output: { n: 4 } }],
};

const doubler = (name: string) => ({
  name,
  version: '1.0.0',
  title: `Doubler ${name}`,
  description: 'Doubles numbers.',
  category: 'math',
  runtime: { type: 'javascript', source: 'function handle(action, input) { return { n: input.n * 2 }; }' },
  actions: [doubleAction],
});

backends.describe('module definition hashes (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const detailHash = async (key: string, module: string) => {
    const res = await s.call(`/api/v1/modules/${module}`, { key });
    expect(res.status).toBe(200);
    return res.body.definition_hash as string;
  };

  const listedHash = async (key: string, module: string, category: string) => {
    const res = await s.call(`/api/v1/modules?category=${category}&limit=100`, { key });
    expect(res.status).toBe(200);
    return res.body.data.find((m: { name: string }) => m.name === module)?.definition_hash as string | undefined;
  };

  /** `_meta.definition_hash` of every tool of `module`, through the MCP SDK's client. */
  const mcpHashes = async (key: string, module: string) => {
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp?modules=${module}`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      return [...new Set(tools.map((t) => t._meta?.definition_hash))];
    } finally {
      await client.close();
    }
  };

  const execute = (key: string, module: string, body: Record<string, unknown>) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body });

  const executionIds = async (key: string) => {
    const res = await s.call('/api/v1/executions?limit=100', { key });
    expect(res.status).toBe(200);
    return res.body.data.map((e: { execution_id: string }) => e.execution_id);
  };

  it('shows one hash for a built-in module on its detail, in the list and on its MCP tools, the same on every request', async () => {
    const t = await s.register();
    const hash = await detailHash(t.apiKey, 'text');
    expect(hash).toMatch(HASH);
    expect(await listedHash(t.apiKey, 'text', 'text')).toBe(hash);
    expect(await mcpHashes(t.apiKey, 'text')).toEqual([hash]);
    expect(await detailHash(t.apiKey, 'text')).toBe(hash);
    expect(await listedHash(t.apiKey, 'text', 'text')).toBe(hash);
    // Another module has another definition, and another tenant sees the same one.
    expect(await detailHash(t.apiKey, 'json')).not.toBe(hash);
    expect(await detailHash((await s.register()).apiKey, 'text')).toBe(hash);
    // The agent card names every public module's hash in an optional extension.
    const card = (await s.call('/.well-known/agent-card.json')).body;
    const extension = card.capabilities.extensions.find((e: { uri: string }) => e.uri === 'urn:agent-module-platform:definition-hashes:v1');
    expect(extension).toMatchObject({ params: { definition_hashes: { text: hash } } });
    expect(extension.required ?? false).toBe(false);
  });

  it("changes when a tenant's module gets a new version, everywhere at once", async () => {
    const t = await s.register();
    const name = uniqueName('dbl');
    const published = await s.call('/api/v1/modules', { key: t.apiKey, body: doubler(name) });
    expect(published.status).toBe(201);
    const first = published.body.definition_hash as string;
    expect(first).toMatch(HASH);
    expect(await detailHash(t.apiKey, name)).toBe(first);
    expect(await listedHash(t.apiKey, name, 'math')).toBe(first);
    expect(await mcpHashes(t.apiKey, name)).toEqual([first]);

    const updated = await s.call(`/api/v1/modules/${name}`, { key: t.apiKey, method: 'PUT', body: { version: '1.1.0' } });
    expect(updated.status).toBe(200);
    const second = updated.body.definition_hash as string;
    expect(second).toMatch(HASH);
    expect(second).not.toBe(first);
    expect(await detailHash(t.apiKey, name)).toBe(second);
    expect(await listedHash(t.apiKey, name, 'math')).toBe(second);
    expect(await mcpHashes(t.apiKey, name)).toEqual([second]);
  });

  it('runs an execute that names the current hash; refuses a stale one with 403 policy_denied, recording nothing', async () => {
    const t = await s.register();
    const name = uniqueName('dbl');
    const stale = (await s.call('/api/v1/modules', { key: t.apiKey, body: doubler(name) })).body.definition_hash as string;
    await s.call(`/api/v1/modules/${name}`, { key: t.apiKey, method: 'PUT', body: { version: '2.0.0' } });
    const current = await detailHash(t.apiKey, name);

    const ran = await execute(t.apiKey, name, { action: 'double', input: { n: 21 }, definition_hash: current });
    expect(ran.status).toBe(200);
    expect(ran.body.output).toEqual({ n: 42 });
    const before = await executionIds(t.apiKey);
    expect(before).toEqual([ran.body.execution_id]);

    const refused = expectError(
      await execute(t.apiKey, name, { action: 'double', input: { n: 1 }, definition_hash: stale }),
      403,
      'policy_denied',
    );
    expect(refused).toMatchObject({ rule: 'definition_hash', reason: 'definition_changed' });
    expect(refused.message).toContain(stale);
    expect(refused.message).toContain(current);
    expect(await executionIds(t.apiKey)).toEqual(before);

    // A built-in module too, and without a hash nothing changes.
    const text = await detailHash(t.apiKey, 'text');
    expect((await execute(t.apiKey, 'text', { action: 'slugify', input: { text: 'A b' }, definition_hash: text })).status).toBe(200);
    expect((await execute(t.apiKey, 'text', { action: 'slugify', input: { text: 'A b' } })).status).toBe(200);
    expectError(
      await execute(t.apiKey, 'text', { action: 'slugify', input: { text: 'A b' }, definition_hash: stale }),
      403,
      'policy_denied',
    );
    expect(await executionIds(t.apiKey)).toHaveLength(3);
  });

  it('refuses a hash that is not one (400) and checks each call of a batch on its own', async () => {
    const t = await s.register();
    const malformed = await execute(t.apiKey, 'text', { action: 'slugify', input: { text: 'x' }, definition_hash: 'sha256:abc' });
    expectError(malformed, 400, 'invalid_request');

    const current = await detailHash(t.apiKey, 'text');
    const other = await detailHash(t.apiKey, 'json');
    const batch = await s.call('/api/v1/batch', {
      key: t.apiKey,
      body: {
        calls: [
          { module: 'text', action: 'slugify', input: { text: 'A b' }, definition_hash: current },
          { module: 'text', action: 'slugify', input: { text: 'A b' }, definition_hash: other },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data.map((r: { status: string }) => r.status)).toEqual(['success', 'failed']);
    expect(batch.body.data[1]).toMatchObject({ execution_id: null, error: { code: 'policy_denied' } });
    expect(await executionIds(t.apiKey)).toHaveLength(1);
  });
});
