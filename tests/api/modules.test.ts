import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { events, usageCounters } from '../../src/db/schema';
import { cycleStart } from '../../src/metering/cycle';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('modules, execution, search and directory (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const eventsOf = (tenantId: string, type: string) =>
    s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));

  it('lists the real catalog: at least 15 modules and 80 actions, paginated, exempt from the limit', async () => {
    const t = await s.register();
    const first = await s.call('/api/v1/modules?limit=5', { key: t.apiKey });
    expect(first.status).toBe(200);
    expect(first.body.total).toBeGreaterThanOrEqual(15);
    expect(first.body.data).toHaveLength(5);
    expect(first.body.has_more).toBe(true);
    const remaining = first.headers.get('x-ratelimit-remaining');
    const all: any[] = [...first.body.data];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await s.call(`/api/v1/modules?limit=5&cursor=${cursor}`, { key: t.apiKey });
      expect(page.headers.get('x-ratelimit-remaining')).toBe(remaining);
      all.push(...page.body.data);
      cursor = page.body.next_cursor;
    }
    expect(all).toHaveLength(first.body.total);
    const actions = all.flatMap((m) => m.actions);
    expect(actions.length).toBeGreaterThanOrEqual(80);
    for (const a of actions) {
      expect(a.input_schema.type).toBe('object');
      expect(a.examples.length).toBeGreaterThan(0);
    }
    const text = all.find((m) => m.name === 'text');
    expect(text).toMatchObject({ publisher: 'platform', visibility: 'public', installed: false, category: 'text' });
    const byCategory = await s.call('/api/v1/modules?category=text', { key: t.apiKey });
    expect(byCategory.body.data.every((m: any) => m.category === 'text')).toBe(true);
  });

  it('executes an action, installs the module on first use, records the execution and its event', async () => {
    const t = await s.register();
    const res = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { action: 'slugify', input: { text: 'Hello World' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      execution_id: expect.stringMatching(/^exe_/),
      module: 'text',
      action: 'slugify',
      status: 'success',
      output: { slug: 'hello-world' },
      latency_ms: expect.any(Number),
      request_id: res.headers.get('x-request-id'),
    });
    expect(res.headers.get('x-execution-remaining')).toBe('999');

    const record = await s.call(`/api/v1/executions/${res.body.execution_id}`, { key: t.apiKey });
    expect(record.body).toMatchObject({
      status: 'success',
      module: 'text',
      action: 'slugify',
      tenant_id: t.tenantId,
      output: { slug: 'hello-world' },
      error: null,
    });

    const detail = await s.call('/api/v1/modules/text', { key: t.apiKey });
    expect(detail.body.installed).toBe(true);
    expect(await eventsOf(t.tenantId, 'module.installed')).toHaveLength(1);
    const [completed] = await eventsOf(t.tenantId, 'execution.completed');
    expect(completed!.data).toMatchObject({
      execution_id: res.body.execution_id,
      module: 'text',
      action: 'slugify',
      status: 'success',
      latency_ms: expect.any(Number),
      request_id: res.body.request_id,
      tenant_id: t.tenantId,
      output: { slug: 'hello-world' },
    });
  });

  it('a bad input is a failed execution: 422 invalid_input with the record, counted, execution.failed', async () => {
    const t = await s.register();
    const res = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 42 } } });
    const body = expectError(res, 422, 'invalid_input');
    expect(body.execution).toMatchObject({ status: 'failed', module: 'text', action: 'slugify', error: { code: 'invalid_input' } });
    expect(body.issues[0].path).toBe('text');
    expect(res.headers.get('x-execution-remaining')).toBe('999');
    expect(await eventsOf(t.tenantId, 'execution.failed')).toHaveLength(1);
    const failed = await s.call('/api/v1/executions?status=failed', { key: t.apiKey });
    expect(failed.body.data).toHaveLength(1);
  });

  it('an unknown module or action is 404 and not an execution', async () => {
    const t = await s.register();
    expectError(await s.call('/api/v1/modules/nope/execute', { key: t.apiKey, body: { action: 'x', input: {} } }), 404, 'not_found');
    expectError(await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'nope', input: {} } }), 404, 'not_found');
    expectError(await s.call('/api/v1/modules/nope', { key: t.apiKey }), 404, 'not_found');
    const list = await s.call('/api/v1/executions', { key: t.apiKey });
    expect(list.body.data).toHaveLength(0);
    expectError(await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { input: {} } }), 400, 'invalid_request');
  });

  it('a runaway action times out (504) without stalling other requests', async () => {
    const t = await s.register();
    let runawaySettled = false;
    const evil = s
      .call('/api/v1/modules/text/execute', {
        key: t.apiKey,
        body: { action: 'replace', input: { text: `${'a'.repeat(40)}!`, find: '^(a+)+$', replacement: 'x', regex: true } },
      })
      .finally(() => (runawaySettled = true));
    const other = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { action: 'slugify', input: { text: 'still fast' } },
    });
    expect(other.status).toBe(200);
    // Answered while the runaway still runs: it did not wait for the runaway's deadline.
    expect(runawaySettled).toBe(false);
    const res = await evil;
    const body = expectError(res, 504, 'timeout');
    expect(body.execution).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
  }, 40_000);

  it("enforces the plan's module limit (free: 10) and uninstalls", async () => {
    const t = await s.register();
    const names = (await s.call('/api/v1/modules?limit=100', { key: t.apiKey })).body.data.map((m: any) => m.name);
    for (const name of names.slice(0, 10)) {
      const res = await s.call(`/api/v1/modules/${name}/install`, { key: t.apiKey, method: 'POST' });
      expect(res.status).toBe(201);
    }
    expect((await s.call(`/api/v1/modules/${names[0]}/install`, { key: t.apiKey, method: 'POST' })).status).toBe(200);
    const over = expectError(await s.call(`/api/v1/modules/${names[10]}/install`, { key: t.apiKey, method: 'POST' }), 403, 'plan_required');
    expect(over.required_plan).toBe('pro');
    const installed = await s.call('/api/v1/modules?installed=true&limit=100', { key: t.apiKey });
    expect(installed.body.total).toBe(10);

    const removed = await s.call(`/api/v1/modules/${names[0]}/install`, { key: t.apiKey, method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ module: names[0], installed: false });
    expect(await eventsOf(t.tenantId, 'module.uninstalled')).toHaveLength(1);
    expectError(await s.call(`/api/v1/modules/${names[0]}/install`, { key: t.apiKey, method: 'DELETE' }), 404, 'not_found');
    expect((await s.call(`/api/v1/modules/${names[10]}/install`, { key: t.apiKey, method: 'POST' })).status).toBe(201);
  });

  it('a free tenant past its quota gets 429 quota_exceeded, and nothing is recorded', async () => {
    const t = await s.register();
    await s.svc.db.insert(usageCounters).values({ tenantId: t.tenantId, cycleStart: cycleStart(), executions: 1000 });
    const res = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'x' } } });
    const body = expectError(res, 429, 'quota_exceeded');
    expect(body.limit).toBe(1000);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await s.call('/api/v1/executions', { key: t.apiKey })).body.data).toHaveLength(0);
  });

  it('searches the catalog by keyword, ranked, and survives any query syntax', async () => {
    const t = await s.register();
    const res = await s.call('/api/v1/catalog/search?q=slug', { key: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.query).toBe('slug');
    expect(res.body.data[0]).toMatchObject({ module: 'text', action: 'slugify' });
    expect(res.body.total).toBeGreaterThanOrEqual(1);
    const scores = res.body.data.map((d: any) => d.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const q of ['"unclosed', 'a OR -b', '!!!', "'; drop table modules; --", 'csv parse']) {
      const r = await s.call(`/api/v1/catalog/search?q=${encodeURIComponent(q)}`, { key: t.apiKey });
      expect(r.status, q).toBe(200);
    }
    expectError(await s.call('/api/v1/catalog/search', { key: t.apiKey }), 400, 'invalid_request');
  });

  it('ranks a module first for a word of its title', async () => {
    const t = await s.register();
    for (const [q, module] of [
      ['compression', 'compress'],
      ['luxon date time', 'datetime'],
      ['QR', 'qrcode'],
    ]) {
      const res = await s.call(`/api/v1/catalog/search?q=${encodeURIComponent(q!)}&limit=5`, { key: t.apiKey });
      expect(res.body.data[0]?.module, q).toBe(module);
    }
    const inCategory = await s.call('/api/v1/catalog/search?q=parse&category=data', { key: t.apiKey });
    expect(inCategory.body.data.length).toBeGreaterThan(0);
  });

  it('lists every real action in the directory, paginated with total', async () => {
    const t = await s.register();
    const first = await s.call('/api/v1/directory?limit=50', { key: t.apiKey });
    expect(first.body.total).toBeGreaterThanOrEqual(80);
    const ids: string[] = first.body.data.map((d: any) => d.id);
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await s.call(`/api/v1/directory?limit=50&cursor=${cursor}`, { key: t.apiKey });
      ids.push(...page.body.data.map((d: any) => d.id));
      cursor = page.body.next_cursor;
    }
    expect(ids).toHaveLength(first.body.total);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('text.slugify');
    expect(first.body.data[0]).toMatchObject({
      module: expect.any(String),
      action: expect.any(String),
      input_schema: expect.any(Object),
      trust_score: expect.any(Number),
    });
  });

  it("another tenant's execution is a 404", async () => {
    const a = await s.register();
    const b = await s.register();
    const res = await s.call('/api/v1/modules/text/execute', { key: a.apiKey, body: { action: 'slugify', input: { text: 'mine' } } });
    expectError(await s.call(`/api/v1/executions/${res.body.execution_id}`, { key: b.apiKey }), 404, 'not_found');
  });

  it('needs modules:execute to execute and modules:install to install', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const reader = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    const denied = expectError(
      await s.call('/api/v1/modules/text/execute', { key: reader.body.api_key, body: { action: 'slugify', input: { text: 'x' } } }),
      403,
      'insufficient_scope',
    );
    expect(denied.required_scope).toBe('modules:execute');
    expectError(await s.call('/api/v1/modules/text/install', { key: reader.body.api_key, method: 'POST' }), 403, 'insufficient_scope');
    expect((await s.call('/api/v1/modules', { key: reader.body.api_key })).status).toBe(200);
  });
});
