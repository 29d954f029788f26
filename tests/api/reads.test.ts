/**
 * Reads from memory (docs/performance.md, The catalog in memory): the catalog snapshot and the
 * tenants' views follow every change (publish, update, install, uninstall) on one instance at once and on another instance sharing
 * PostgreSQL through LISTEN/NOTIFY; a cached API key costs one Redis round trip per request.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisLike } from '../../src/metering/redis';
import { backends, missing, startTestServer, type TestServer } from '../harness';
import { moduleList, searchOutput } from '../../src/catalog/schema';
import { uniqueName } from '../module-fixtures';

const objectSchema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false };
const jsModule = (name: string, description: string) => ({
  name,
  version: '1.0.0',
  title: `Snapshot ${name}`,
  description,
  category: 'math',
  tags: ['snapshot'],
  runtime: { type: 'javascript', source: 'function handle(action, input) { return { a: input.a }; }' },
  actions: [
    {
      name: 'echo',
      description: `Echoes ${description}`,
      input_schema: objectSchema,
      output_schema: { type: 'object' },
      examples: [{ input: { a: 1 }, output: { a: 1 } }],
    },
  ],
});

/** Every id of the directory, page by page. */
async function directoryIds(s: TestServer, key: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page: any = await s.call(`/api/v1/directory?limit=7${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status).toBe(200);
    ids.push(...page.body.data.map((d: any) => d.id));
    cursor = page.body.next_cursor;
  }
  return ids;
}

/** Every module name of the list, page by page. */
async function moduleNames(s: TestServer, key: string, query = ''): Promise<{ names: string[]; total: number }> {
  const names: string[] = [];
  let cursor: string | null = '';
  let total = 0;
  while (cursor !== null) {
    const page: any = await s.call(`/api/v1/modules?limit=3${query}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status).toBe(200);
    names.push(...page.body.data.map((m: any) => m.name));
    total = page.body.total;
    cursor = page.body.next_cursor;
  }
  return { names, total };
}

backends.describe('catalog reads from memory (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('lists, pages and counts public modules plus the tenant’s own private ones, installed or not', async () => {
    const owner = await s.register();
    const other = await s.register();
    const before = await moduleNames(s, other.apiKey);
    expect(before.names).toEqual([...before.names].sort());
    expect(before.total).toBe(before.names.length);

    const name = uniqueName('snap');
    expect((await s.call('/api/v1/modules', { key: owner.apiKey, body: jsModule(name, 'a private snapshot module') })).status).toBe(201);
    const mine = await moduleNames(s, owner.apiKey);
    expect(mine.names).toEqual([...before.names, name].sort());
    expect(mine.total).toBe(before.total + 1);
    expect((await moduleNames(s, other.apiKey)).names).toEqual(before.names);
    expect(await directoryIds(s, owner.apiKey)).toContain(`${name}.echo`);
    expect(await directoryIds(s, other.apiKey)).not.toContain(`${name}.echo`);

    // Installations show at once, in the filter and on the module.
    expect((await moduleNames(s, owner.apiKey, '&installed=true')).names).toEqual([]);
    expect((await s.call('/api/v1/modules/text/install', { key: owner.apiKey, method: 'POST' })).status).toBe(201);
    expect((await moduleNames(s, owner.apiKey, '&installed=true')).names).toEqual(['text']);
    expect((await s.call('/api/v1/modules/text', { key: owner.apiKey })).body.installed).toBe(true);
    expect((await s.call('/api/v1/modules/text', { key: other.apiKey })).body.installed).toBe(false);
    // A first-use install (execute) too.
    expect((await s.call(`/api/v1/modules/${name}/execute`, { key: owner.apiKey, body: { action: 'echo', input: { a: 1 } } })).status).toBe(
      200,
    );
    expect((await moduleNames(s, owner.apiKey, '&installed=true')).names).toEqual([name, 'text'].sort());
    expect((await s.call('/api/v1/modules/text/install', { key: owner.apiKey, method: 'DELETE' })).status).toBe(200);
    expect((await moduleNames(s, owner.apiKey, '&installed=false')).names).toContain('text');
    expect((await s.call('/api/v1/modules/text', { key: owner.apiKey })).body.installed).toBe(false);
  });

  it('a module made public shows at once in every tenant’s list, directory, search and llms.txt', async () => {
    const owner = await s.register();
    const other = await s.register();
    const name = uniqueName('pub');
    const word = `zebracorn${name.replace(/\D/g, '')}`;
    expect((await s.call('/api/v1/modules', { key: owner.apiKey, body: jsModule(name, `a ${word} module`) })).status).toBe(201);
    // Searched (and its public results memoised) before the change.
    expect((await s.call(`/api/v1/catalog/search?q=${word}`, { key: other.apiKey })).body.total).toBe(0);
    expect((await s.call('/api/llms.txt')).text).not.toContain(name);

    expect((await s.call(`/api/v1/modules/${name}`, { key: owner.apiKey, method: 'PUT', body: { visibility: 'public' } })).status).toBe(
      200,
    );
    expect((await moduleNames(s, other.apiKey)).names).toContain(name);
    expect(await directoryIds(s, other.apiKey)).toContain(`${name}.echo`);
    const found = await s.call(`/api/v1/catalog/search?q=${word}`, { key: other.apiKey });
    expect(found.body.data.map((d: any) => `${d.module}.${d.action}`)).toEqual([`${name}.echo`]);
    expect((await s.call('/api/llms.txt')).text).toContain(name);
    expect((await s.call('/.well-known/agent.json')).text).toContain('Snapshot');

    expect((await s.call(`/api/v1/modules/${name}`, { key: owner.apiKey, method: 'PUT', body: { visibility: 'private' } })).status).toBe(
      200,
    );
    expect((await moduleNames(s, other.apiKey)).names).not.toContain(name);
    expect((await s.call(`/api/v1/catalog/search?q=${word}`, { key: other.apiKey })).body.total).toBe(0);
    expect((await s.call(`/api/v1/modules/${name}`, { key: other.apiKey })).status).toBe(404);
  });

  it('the stored search documents equal the ranked expression for every action, after publish and update', async () => {
    const owner = await s.register();
    const name = uniqueName('doc');
    expect((await s.call('/api/v1/modules', { key: owner.apiKey, body: jsModule(name, 'a documented module') })).status).toBe(201);
    const changed = { title: 'Renamed quokka', tags: ['marsupial'], description: 'Now about quokkas.' };
    expect((await s.call(`/api/v1/modules/${name}`, { key: owner.apiKey, method: 'PUT', body: changed })).status).toBe(200);
    const result = await s.svc.db.execute(sql`
      select count(*)::int as n, count(*) filter (where a.search_document is distinct from (
        setweight(to_tsvector('english', m.name || ' ' || replace(a.name, '_', ' ')), 'A') ||
        setweight(to_tsvector('english', m.title || ' ' || array_to_string(m.tags, ' ')), 'B') ||
        setweight(to_tsvector('english', a.description || ' ' || m.description), 'C')))::int as differing
      from module_actions a join modules m on m.name = a.module_name`);
    const rows = (result as { rows?: unknown[] }).rows ?? (result as unknown as unknown[]);
    const row = rows[0] as { n: number; differing: number };
    expect(row.n).toBeGreaterThan(80);
    expect(row.differing).toBe(0);
    expect((await s.call('/api/v1/catalog/search?q=quokka', { key: owner.apiKey })).body.data.map((d: any) => d.module)).toEqual([name]);
  });

  it('answers checked once per snapshot are the bytes the output schemas would give (list, installed, search, private page)', async () => {
    const owner = await s.register();
    expect((await s.call('/api/v1/modules/text/install', { key: owner.apiKey, method: 'POST' })).status).toBe(201);
    const exact = (schema: { parse: (v: unknown) => unknown }, raw: string) =>
      expect(JSON.stringify(schema.parse(JSON.parse(raw)))).toBe(raw);
    for (let round = 0; round < 2; round++) {
      exact(moduleList, (await s.call('/api/v1/modules?limit=100', { key: owner.apiKey })).text);
      exact(moduleList, (await s.call('/api/v1/modules?installed=true', { key: owner.apiKey })).text);
      exact(searchOutput, (await s.call('/api/v1/catalog/search?q=slug', { key: owner.apiKey })).text);
    }
    const listed = (await s.call('/api/v1/modules?installed=true', { key: owner.apiKey })).body;
    expect(listed.data.map((m: any) => [m.name, m.installed])).toEqual([['text', true]]);
    // A page with the tenant's private module is checked per response.
    const name = uniqueName('chk');
    expect((await s.call('/api/v1/modules', { key: owner.apiKey, body: jsModule(name, 'a checked module') })).status).toBe(201);
    exact(moduleList, (await s.call('/api/v1/modules?limit=100', { key: owner.apiKey })).text);
  });

  it('/openapi.json is the same bytes on every request', async () => {
    // Uncompressed, so that Content-Length counts the text's bytes (compression: tests/api/openapi.test.ts).
    const identity = { 'accept-encoding': 'identity' };
    const a = await s.call('/api/openapi.json', { headers: identity });
    const b = await s.call('/openapi.json', { headers: identity });
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(Number(a.headers.get('content-length'))).toBe(Buffer.byteLength(a.text));
  });
});

/** Until `check` passes: another instance learns of a change through a notification, not at once. */
async function eventually(check: () => Promise<void>, attempts = 100): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await check();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe.skipIf(missing.postgres !== undefined || missing.redis !== undefined)('catalog reads on two instances (postgres)', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ backend: 'postgres', redis: true });
    b = await startTestServer({ backend: 'postgres', redis: true, databaseUrl: a.config.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a publish, visibility change and install on A reach B’s memory', async () => {
    const owner = await a.register();
    const other = await a.register();
    const name = uniqueName('two');
    // B has loaded its snapshot and both tenants' views.
    expect((await moduleNames(b, owner.apiKey)).names).not.toContain(name);
    expect((await moduleNames(b, other.apiKey)).names).not.toContain(name);

    expect((await a.call('/api/v1/modules', { key: owner.apiKey, body: jsModule(name, 'a shared module') })).status).toBe(201);
    await eventually(async () => expect((await moduleNames(b, owner.apiKey)).names).toContain(name));
    expect((await b.call(`/api/v1/modules/${name}`, { key: other.apiKey })).status).toBe(404);

    expect((await a.call(`/api/v1/modules/${name}`, { key: owner.apiKey, method: 'PUT', body: { visibility: 'public' } })).status).toBe(
      200,
    );
    await eventually(async () => expect(await directoryIds(b, other.apiKey)).toContain(`${name}.echo`));
    await eventually(async () => expect((await b.call('/api/llms.txt')).text).toContain(name));

    expect((await b.call(`/api/v1/modules/${name}`, { key: other.apiKey })).body.installed).toBe(false);
    expect((await a.call(`/api/v1/modules/${name}/install`, { key: other.apiKey, method: 'POST' })).status).toBe(201);
    await eventually(async () => expect((await b.call(`/api/v1/modules/${name}`, { key: other.apiKey })).body.installed).toBe(true));
  });

  it('a request with a cached API key makes one Redis round trip (limit and revocation check together)', async () => {
    const t = await b.register();
    await b.setPlan(t.tenantId, 'pro');
    const redis = b.svc.redis as RedisLike;
    const original = redis.eval.bind(redis);
    let calls = 0;
    (redis as { eval: RedisLike['eval'] }).eval = (...args) => {
      calls++;
      return original(...args);
    };
    try {
      const extra = await b.call('/api/v1/keys', { key: t.apiKey, body: { name: 'other', scopes: ['modules:read'] } });
      expect(extra.status).toBe(201);
      expect((await b.call('/api/v1/modules?limit=1', { key: t.apiKey })).status).toBe(200); // cached now
      calls = 0;
      const res = await b.call('/api/v1/modules?limit=1', { key: t.apiKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
      expect(calls).toBe(1);

      // A revocation on A: B's cached entries are stale; the revoked key is 401 on B's next request.
      expect((await b.call('/api/v1/modules?limit=1', { key: extra.body.api_key })).status).toBe(200);
      expect((await a.call(`/api/v1/keys/${extra.body.key_id}`, { key: t.apiKey, method: 'DELETE' })).status).toBe(200);
      const refused = await b.call('/api/v1/modules?limit=1', { key: extra.body.api_key });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('x-execution-remaining')).toBeNull();
      // The tenant's own key reloads once, then is back to one round trip.
      expect((await b.call('/api/v1/modules?limit=1', { key: t.apiKey })).status).toBe(200);
      calls = 0;
      expect((await b.call('/api/v1/modules?limit=1', { key: t.apiKey })).status).toBe(200);
      expect(calls).toBe(1);
    } finally {
      (redis as { eval: RedisLike['eval'] }).eval = original;
    }
  });
});
