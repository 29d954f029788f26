/**
 * GET /api/v1/executions filters the dashboard's executions page uses: module, status and the
 * time range `since` (inclusive) .. `until` (exclusive), with cursor pagination over a filter.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('execution list filters (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('filters by module, status and a time range', async () => {
    const t = await s.register();
    const run = (input: unknown) => s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input } });
    expect((await run({ text: 'First one' })).status).toBe(200);
    expect((await run({ text: 'Second one' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    expect((await run({ text: 'Third one' })).status).toBe(200);

    const list = async (query: string) => {
      const res = await s.call(`/api/v1/executions?${query}`, { key: t.apiKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as {
        data: { execution_id: string; created_at: string; module: string; status: string }[];
        next_cursor: string | null;
        has_more: boolean;
      };
    };
    const all = await list('limit=50');
    expect(all.data).toHaveLength(3);
    const [newest, middle, oldest] = all.data as [(typeof all.data)[0], (typeof all.data)[0], (typeof all.data)[0]];

    expect((await list('module=text')).data).toHaveLength(3);
    expect((await list('module=math')).data).toHaveLength(0);
    expect((await list('status=success')).data).toHaveLength(3);
    expect((await list('status=failed')).data).toHaveLength(0);

    const until = await list(`until=${encodeURIComponent(newest.created_at)}`);
    expect(until.data.map((e) => e.execution_id)).not.toContain(newest.execution_id);
    expect(until.data.map((e) => e.execution_id)).toContain(oldest.execution_id);
    const range = await list(`since=${encodeURIComponent(middle.created_at)}&until=${encodeURIComponent(newest.created_at)}`);
    expect(range.data.map((e) => e.execution_id)).toContain(middle.execution_id);
    expect(range.data.map((e) => e.execution_id)).not.toContain(newest.execution_id);
    expect(range.data.map((e) => e.execution_id)).not.toContain(oldest.execution_id);

    // Cursor pagination under a filter reaches every match once.
    const page1 = await list('module=text&limit=2');
    expect(page1.data).toHaveLength(2);
    expect(page1.has_more).toBe(true);
    const page2 = await list(`module=text&limit=2&cursor=${encodeURIComponent(page1.next_cursor!)}`);
    expect([...page1.data, ...page2.data].map((e) => e.execution_id)).toEqual(all.data.map((e) => e.execution_id));

    expectError(await s.call('/api/v1/executions?until=yesterday', { key: t.apiKey }), 400, 'invalid_request');
    // Another tenant's list is its own.
    const other = await s.register();
    expect((await s.call('/api/v1/executions', { key: other.apiKey })).body.data).toHaveLength(0);
  });
});
