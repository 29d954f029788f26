import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { modules } from '../../src/db/schema';
import { BUILTIN_MODULES } from '../../src/modules/registry';
import { backends, startTestServer, type TestServer } from '../harness';

const actionsOf = (module: string) =>
  BUILTIN_MODULES.find((m) => m.name === module)!
    .actions.map((a) => `${module}__${a.name}`)
    .sort();

backends.describe('MCP and arm under a key policy (%s)', (backend) => {
  let s: TestServer;
  let owner: { apiKey: string; tenantId: string };
  beforeAll(async () => {
    s = await startTestServer({ backend });
    owner = await s.register();
    await s.setPlan(owner.tenantId, 'pro');
  });
  afterAll(async () => s?.close());

  /** A new key of the pro tenant, with this policy. */
  async function keyWithPolicy(policy: Record<string, unknown>) {
    const created = await s.call('/api/v1/keys', { key: owner.apiKey, body: { name: 'agent', policy } });
    expect(created.status).toBe(201);
    return { key: created.body.api_key as string, id: created.body.key_id as string };
  }

  async function connect(key: string, query = '') {
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp${query}`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    return client;
  }

  const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

  /** The JSON body of an `isError` tool result. */
  function refusal(result: unknown) {
    const r = result as CallToolResult;
    expect(r.isError).toBe(true);
    return JSON.parse((r.content[0] as { text: string }).text) as Record<string, unknown>;
  }

  async function codeOf(promise: Promise<unknown>) {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    return (err as McpError).code;
  }

  it('modules: ["text"]: tools/list and resources hold only text; crypto is refused with policy_denied', async () => {
    const { key } = await keyWithPolicy({ modules: ['text'] });
    const client = await connect(key);
    expect(await toolNames(client)).toEqual(actionsOf('text'));
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['amp://modules/text']);
    expect(await codeOf(client.readResource({ uri: 'amp://modules/crypto' }))).toBe(-32002);

    const denied = refusal(await client.callTool({ name: 'crypto__hash', arguments: { text: 'abc', algorithm: 'sha256' } }));
    expect(denied).toMatchObject({ error: 'policy_denied', rule: 'modules', reason: 'module_not_allowed' });
    const ok = await client.callTool({ name: 'text__slugify', arguments: { text: 'Hello World' } });
    expect(ok.structuredContent).toEqual({ slug: 'hello-world' });
    await client.close();
  });

  it('actions: one action and a whole module', async () => {
    const { key } = await keyWithPolicy({ actions: ['text.slugify', 'crypto.*'] });
    const client = await connect(key);
    expect(await toolNames(client)).toEqual([...actionsOf('crypto'), 'text__slugify'].sort());
    const other = actionsOf('text').find((n) => n !== 'text__slugify')!;
    expect(refusal(await client.callTool({ name: other, arguments: {} }))).toMatchObject({
      error: 'policy_denied',
      rule: 'actions',
      reason: 'module_not_allowed',
    });
    await client.close();
  });

  it('trust minimums: a module below min_trust_tier or min_trust_score is hidden and refused', async () => {
    // Built-in modules start uncertified; `json` is made silver for this test.
    await s.svc.db.update(modules).set({ certificationTier: 'silver' }).where(eq(modules.name, 'json'));
    s.svc.moduleCache.invalidate('json');

    const silver = await connect((await keyWithPolicy({ min_trust_tier: 'silver' })).key);
    expect(await toolNames(silver)).toEqual(actionsOf('json'));
    expect(refusal(await silver.callTool({ name: 'text__slugify', arguments: { text: 'a b' } }))).toMatchObject({
      error: 'policy_denied',
      rule: 'min_trust_tier',
      reason: 'trust_below_minimum',
    });
    await silver.close();

    const gold = await connect((await keyWithPolicy({ modules: ['json'], min_trust_tier: 'gold' })).key);
    expect(await toolNames(gold)).toEqual([]);
    expect((await gold.listResources()).resources).toEqual([]);
    await gold.close();

    const strict = await connect((await keyWithPolicy({ modules: ['text'], min_trust_score: 100 })).key);
    expect(await toolNames(strict)).toEqual([]);
    await strict.close();
  });

  it('pins: a pinned module is listed while its definition is the pinned one, hidden once it differs', async () => {
    const current = (await s.call('/api/v1/modules/text', { key: owner.apiKey })).body.definition_hash as string;
    expect(current).toMatch(/^sha256:[0-9a-f]{64}$/);
    const pinned = await connect((await keyWithPolicy({ modules: ['text'], pins: { text: current } })).key);
    expect(await toolNames(pinned)).toEqual(actionsOf('text'));
    await pinned.close();

    const stale = await connect((await keyWithPolicy({ modules: ['text', 'crypto'], pins: { text: `sha256:${'0'.repeat(64)}` } })).key);
    expect(await toolNames(stale)).toEqual(actionsOf('crypto'));
    expect(refusal(await stale.callTool({ name: 'text__slugify', arguments: { text: 'a b' } }))).toMatchObject({
      error: 'policy_denied',
      rule: 'pins',
      reason: 'definition_changed',
    });
    await stale.close();
  });

  it('?tools=search: exactly search_tools and call_tool; search finds text__slugify for "slug" and call_tool runs it', async () => {
    const { key, id } = await keyWithPolicy({ modules: ['text', 'crypto'] });
    const client = await connect(key, '?tools=search');
    expect(client.getInstructions()).toContain('search_tools');
    const listed = (await client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);

    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'slug' } });
    const tools = (found.structuredContent as { tools: { name: string; description: string; inputSchema: unknown }[] }).tools;
    const slugify = tools.find((t) => t.name === 'text__slugify');
    expect(slugify).toMatchObject({ description: expect.stringContaining('text'), inputSchema: { type: 'object' } });
    expect(tools.every((t) => t.name.startsWith('text__') || t.name.startsWith('crypto__'))).toBe(true);
    expect((await client.callTool({ name: 'search_tools', arguments: { query: 'slug', limit: 1 } })).structuredContent).toMatchObject({
      tools: [{ name: tools[0]!.name }],
    });

    const ran = await client.callTool({ name: 'call_tool', arguments: { name: 'text__slugify', arguments: { text: 'Tool Search' } } });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toEqual({ slug: 'tool-search' });
    expect(ran._meta?.['agent-module-platform/execution_id']).toMatch(/^exe_/);

    // The normal tools are not this connection's tools; call_tool's mistakes are results the model reads.
    expect(await codeOf(client.callTool({ name: 'text__slugify', arguments: { text: 'x' } }))).toBe(-32602);
    expect(refusal(await client.callTool({ name: 'call_tool', arguments: { name: 'text__nope', arguments: {} } }))).toMatchObject({
      error: 'not_found',
    });
    expect(refusal(await client.callTool({ name: 'search_tools', arguments: { query: '' } }))).toMatchObject({ error: 'invalid_request' });

    // Once the policy excludes text, search leaves it out and call_tool refuses it.
    const put = await s.call(`/api/v1/keys/${id}/policy`, { key: owner.apiKey, method: 'PUT', body: { modules: ['crypto'] } });
    expect(put.status).toBe(200);
    const after = await connect(key, '?tools=search');
    const again = await after.callTool({ name: 'search_tools', arguments: { query: 'slug' } });
    expect((again.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).not.toContain('text__slugify');
    const hashes = await after.callTool({ name: 'search_tools', arguments: { query: 'hash' } });
    expect((hashes.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('crypto__hash');
    const refused = await after.callTool({ name: 'call_tool', arguments: { name: 'text__slugify', arguments: { text: 'x' } } });
    expect(refusal(refused)).toMatchObject({ error: 'policy_denied', rule: 'modules', reason: 'module_not_allowed' });
    await client.close();
    await after.close();
  });

  it('arm: only the tools the key may call, with and without a query', async () => {
    const { key } = await keyWithPolicy({ modules: ['text'] });
    const all = await s.call('/api/v1/agent/arm', { key, body: { format: 'mcp' } });
    expect(all.status).toBe(200);
    expect(all.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(actionsOf('text'));

    const hash = await s.call('/api/v1/agent/arm', { key, body: { query: 'hash', format: 'anthropic' } });
    expect(hash.body.tools.some((t: { name: string }) => t.name.startsWith('crypto__'))).toBe(false);
    const unrestricted = await s.call('/api/v1/agent/arm', { key: owner.apiKey, body: { query: 'hash', format: 'anthropic' } });
    expect(unrestricted.body.tools.some((t: { name: string }) => t.name.startsWith('crypto__'))).toBe(true);
  });
});
