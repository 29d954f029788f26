/**
 * U+0000 cannot be stored in PostgreSQL text or jsonb. A client cannot send it (400 with the
 * path, after authentication, like invalid JSON); a module output that contains it is answered
 * as is and stored (execution record, event, webhook) with U+FFFD instead.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executions, usageCounters } from '../../src/db/schema';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver } from '../receiver';

backends.describe('NUL characters (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => s?.close());

  it('refuses U+0000 in a body, a nested key, or a query parameter with 400 and its path', async () => {
    const t = await s.register();
    const body = expectError(
      await s.call('/api/v1/modules/text/execute', {
        key: t.apiKey,
        body: { action: 'change_case', input: { text: 'a\u0000b', to: 'upper' } },
      }),
      400,
      'invalid_request',
    );
    expect(body.issues).toEqual([{ path: 'input', message: expect.stringMatching(/NUL.*at input\.text/) }]);
    expectError(
      await s.call('/api/v1/modules/text/execute', {
        key: t.apiKey,
        body: { action: 'change_case', input: { text: 'lone \ud800', to: 'upper' } },
      }),
      400,
      'invalid_request',
    );
    expectError(
      await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'k', value: { 'x\u0000': 1 } } }),
      400,
      'invalid_request',
    );
    expectError(await s.call('/api/v1/catalog/search?q=a%00b', { key: t.apiKey }), 400, 'invalid_request');
    // Authentication still comes first.
    expectError(
      await s.call('/api/v1/modules/text/execute', { body: { action: 'change_case', input: { text: '\u0000', to: 'upper' } } }),
      401,
      'unauthorized',
    );
  });

  it('the tRPC transport refuses it too (400, before input validation)', async () => {
    const t = await s.register();
    const res = await s.call('/api/trpc/memory.upsert', { key: t.apiKey, body: { agent_id: 'a', key: 'k\u0000', value: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error.data).toMatchObject({ httpStatus: 400, app: { error: 'invalid_request', issues: [{ path: 'key' }] } });
  });

  it('a module output with U+0000 is answered as is and stored, evented and delivered with U+FFFD', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const receiver = await startReceiver();
    try {
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
      const res = await s.call('/api/v1/modules/crypto/execute', {
        key: t.apiKey,
        body: { action: 'base64_decode', input: { base64: 'YQBi' } },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.output.text).toBe('a\u0000b');
      const record = await s.call(`/api/v1/executions/${res.body.execution_id}`, { key: t.apiKey });
      expect(record.body.output.text).toBe('a\uFFFDb');
      const [got] = await receiver.waitFor(1);
      expect(got!.body.data.output.text).toBe('a\uFFFDb');
    } finally {
      await receiver.close();
    }
  });

  /** Every execution of the tenant is finished (none left `running`), and usage equals them. */
  async function expectAllFinished(tenantId: string) {
    const rows = await s.svc.db.select().from(executions).where(eq(executions.tenantId, tenantId));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.status === 'running')).toEqual([]);
    const [usage] = await s.svc.db.select().from(usageCounters).where(eq(usageCounters.tenantId, tenantId));
    expect(usage?.executions).toBe(rows.length);
    return rows;
  }

  it('a NUL that appears only in an error message is stored as U+FFFD and the execution is finished as failed', async () => {
    const t = await s.register();
    const res = await s.call('/api/v1/modules/json/execute', {
      key: t.apiKey,
      body: { action: 'query_jsonata', input: { data: {}, expression: '$error("bad\\u0000x")' } },
    });
    expectError(res, 422, 'invalid_input');
    expect(res.body.execution).toMatchObject({ status: 'failed' });
    const record = await s.call(`/api/v1/executions/${res.body.execution.execution_id}`, { key: t.apiKey });
    expect(record.body.status).toBe('failed');
    expect(record.body.error.message).toContain('bad\uFFFDx');
    expect(record.body.error.message).not.toContain('\u0000');
    await expectAllFinished(t.tenantId);
  });

  it('a chain whose map produces a NUL in a key or a value finishes every execution it started', async () => {
    const t = await s.register();
    const chain = (steps: unknown[]) => s.call('/api/v1/chain', { key: t.apiKey, body: { input: {}, steps } });
    // A "\u0000x" key produced by `map` reaches the next step's input and its output.
    const keyed = await chain([
      { module: 'json', action: 'query_jsonata', input: { data: {}, expression: '{"a": 1}' } },
      { module: 'json', action: 'query_jsonata', map: '{"data": {"\\u0000x": 1}, "expression": "$"}' },
    ]);
    expect(keyed.status, keyed.text).toBe(200);
    // A trailing NUL in a value given to an action that echoes it in its error message.
    const valued = await chain([
      { module: 'json', action: 'query_jsonata', input: { data: {}, expression: '"x"' } },
      { module: 'datetime', action: 'parse', map: '{"text": "2024-13-45\\u0000"}' },
    ]);
    expect(valued.status, valued.text).toBe(200);
    expect(valued.body.steps).toHaveLength(2);
    const rows = await expectAllFinished(t.tenantId);
    for (const row of rows) {
      expect(row.errorMessage ?? '').not.toContain('\u0000');
      expect(JSON.stringify(row.output ?? null)).not.toContain('\\u0000');
    }
  });

  it('over MCP the same failure is a tool error, not -32603, and the execution is finished', async () => {
    const t = await s.register();
    const res = await s.call('/api/mcp', {
      key: t.apiKey,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'json__query_jsonata', arguments: { data: {}, expression: '$error("x\\u0000")' } },
      },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.error).toBeUndefined();
    expect(res.body.result.isError).toBe(true);
    const rows = await expectAllFinished(t.tenantId);
    expect(rows.map((r) => r.status)).toEqual(['failed']);
  });

  it('actions given a trailing NUL (through a chain map) echo it only in what is answered, never in what is stored', async () => {
    const t = await s.register();
    const cases: [string, string, string][] = [
      ['datetime', 'parse', '{"text": "2024-01-01\\u0000"}'],
      ['json', 'query_jmespath', '{"data": {}, "expression": "a\\u0000"}'],
      ['math', 'evaluate', '{"expression": "1 +\\u0000"}'],
    ];
    for (const [module, action, map] of cases) {
      const res = await s.call('/api/v1/chain', {
        key: t.apiKey,
        body: {
          input: {},
          steps: [
            { module: 'text', action: 'slugify', input: { text: 'a' } },
            { module, action, map },
          ],
        },
      });
      expect(res.status, `${module}.${action}: ${res.text}`).toBe(200);
      expect(res.body.steps[1].execution_id, `${module}.${action}: ${res.text}`).toBeTruthy();
    }
    const rows = await expectAllFinished(t.tenantId);
    expect(rows).toHaveLength(2 * cases.length);
    for (const row of rows) {
      expect(row.errorMessage ?? '').not.toContain('\u0000');
      expect(JSON.stringify(row.output ?? null)).not.toContain('\\u0000');
    }
  });
});
