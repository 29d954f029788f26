/**
 * GET /api/v1/executions?q=: an exact execution id; otherwise request id, action name prefix,
 * error code, or a case-insensitive substring of the error message; LIKE wildcards literal;
 * always within the tenant; cursor paging over a search, and the bounded scan of a large account.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executions } from '../../src/db/schema';
import { SEARCH_SCAN_LIMIT } from '../../src/executions/read';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

interface Page {
  data: { execution_id: string; action: string; request_id: string; error: { code: string; message: string } | null }[];
  has_more: boolean;
  next_cursor: string | null;
  searched_back_to?: string | null;
}

backends.describe('execution search (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  let n = 0;
  /** One execution row of `tenantId`, `ageMs` old (newest first = smallest age). */
  const row = async (
    tenantId: string,
    ageMs: number,
    fields: { module?: string; action?: string; requestId?: string; errorCode?: string; errorMessage?: string },
  ) => {
    const id = `exe_search${backend}${++n}${Math.random().toString(36).slice(2, 8)}`;
    await s.svc.db.insert(executions).values({
      id,
      tenantId,
      module: fields.module ?? 'text',
      action: fields.action ?? 'slugify',
      status: fields.errorCode ? 'failed' : 'success',
      errorCode: fields.errorCode ?? null,
      errorMessage: fields.errorMessage ?? null,
      requestId: fields.requestId ?? `req_${id}`,
      inputBytes: 2,
      createdAt: new Date(Date.now() - ageMs),
      finishedAt: new Date(Date.now() - ageMs),
    });
    return id;
  };
  const search = async (key: string, q: string, extra = '') => {
    const res = await s.call<Page>(`/api/v1/executions?limit=100&q=${encodeURIComponent(q)}${extra}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const ids = async (key: string, q: string, extra = '') => (await search(key, q, extra)).data.map((e) => e.execution_id);

  it('matches an exact id, a request id, an action prefix, an error code or a message substring; never another tenant', async () => {
    const a = await s.register();
    const b = await s.register();
    const slug = await row(a.tenantId, 6000, { action: 'slugify', requestId: 'rq-shared-1' });
    const upper = await row(a.tenantId, 5000, {
      action: 'uppercase',
      requestId: 'rq-shared-1',
      errorCode: 'timeout',
      errorMessage: 'The action ran past its 30000 ms deadline',
    });
    const percent = await row(a.tenantId, 4000, {
      module: 'math',
      action: 'evaluate',
      errorCode: 'module_error',
      errorMessage: 'Rate 100% reached for Foo_Bar in C:\\temp\\x',
    });
    const lookalike = await row(a.tenantId, 3000, {
      module: 'math',
      action: 'evaluate',
      errorCode: 'module_error',
      errorMessage: 'Rate 1000 reached for FooXBar in C:tempx',
    });
    // Another tenant's rows carry the same request id, action, code and message.
    const foreign = await row(b.tenantId, 2000, {
      action: 'slugify',
      requestId: 'rq-shared-1',
      errorCode: 'timeout',
      errorMessage: 'Rate 100% reached for Foo_Bar',
    });

    // An exact execution id: that execution alone (a request id or message containing it would not join it).
    expect(await ids(a.apiKey, upper)).toEqual([upper]);
    // Another tenant's execution id answers nothing, in either direction.
    expect(await ids(a.apiKey, foreign)).toEqual([]);
    expect(await ids(b.apiKey, slug)).toEqual([]);
    // A request id: every execution of that request, newest first.
    expect(await ids(a.apiKey, 'rq-shared-1')).toEqual([upper, slug]);
    expect(await ids(a.apiKey, 'rq-shared')).toEqual([]); // exact, not a prefix
    // Action name prefix, also as module.action.
    expect(await ids(a.apiKey, 'slug')).toEqual([slug]);
    expect(await ids(a.apiKey, 'eval')).toEqual([lookalike, percent]);
    expect(await ids(a.apiKey, 'math.ev')).toEqual([lookalike, percent]);
    expect(await ids(a.apiKey, 'text.ev')).toEqual([]);
    expect(await ids(a.apiKey, 'lugify')).toEqual([]); // a prefix, not a substring
    // Error code, exactly.
    expect(await ids(a.apiKey, 'timeout')).toEqual([upper]);
    expect(await ids(a.apiKey, 'module_error')).toEqual([lookalike, percent]);
    // Error message substring, case-insensitive.
    expect(await ids(a.apiKey, 'PAST ITS 30000')).toEqual([upper]);
    expect(await ids(a.apiKey, 'reached for')).toEqual([lookalike, percent]);
    // Combined with the other filters.
    expect(await ids(a.apiKey, 'rq-shared-1', '&status=failed')).toEqual([upper]);
    expect(await ids(a.apiKey, 'reached', '&module=text')).toEqual([]);

    // Tenant B sees only its own row for the shared request id, code and message.
    expect(await ids(b.apiKey, 'rq-shared-1')).toEqual([foreign]);
    expect(await ids(b.apiKey, 'Foo_Bar')).toEqual([foreign]);
  });

  it('takes %, _ and \\ literally', async () => {
    const a = await s.register();
    const percent = await row(a.tenantId, 4000, {
      errorCode: 'module_error',
      errorMessage: 'Rate 100% reached for Foo_Bar in C:\\temp\\x',
    });
    await row(a.tenantId, 3000, { errorCode: 'module_error', errorMessage: 'Rate 1000 reached for FooXBar in C:tempx' });
    expect(await ids(a.apiKey, '100%')).toEqual([percent]);
    expect(await ids(a.apiKey, 'Foo_Bar')).toEqual([percent]);
    expect(await ids(a.apiKey, 'C:\\temp')).toEqual([percent]);
    expect(await ids(a.apiKey, '%')).toEqual([percent]);
    expect(await ids(a.apiKey, '_')).toEqual([percent]);
    expect(await ids(a.apiKey, 'module_err')).toEqual([]); // codes match exactly
  });

  it('pages through a search with the cursor; q is 1 to 200 characters', async () => {
    const a = await s.register();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.unshift(await row(a.tenantId, 10_000 - i * 100, { action: `fetch_${i}` }));
    await row(a.tenantId, 50, { action: 'other' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Page } = await s.call<Page>(
        `/api/v1/executions?limit=2&q=fetch${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: a.apiKey },
      );
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((e) => e.execution_id));
      cursor = res.body.has_more ? res.body.next_cursor : null;
    } while (cursor);
    expect(seen).toEqual(made);

    expect((await s.call(`/api/v1/executions?q=${'x'.repeat(200)}`, { key: a.apiKey })).status).toBe(200);
    expectError(await s.call(`/api/v1/executions?q=${'x'.repeat(201)}`, { key: a.apiKey }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/executions?q=', { key: a.apiKey }), 400, 'invalid_request');
  });

  it(`examines at most ${SEARCH_SCAN_LIMIT} executions per page, and the cursor goes on from the last one examined`, async () => {
    const a = await s.register();
    const oldest = await row(a.tenantId, 3_600_000, { action: 'needle' });
    // Newer than the needle: more than one page's budget of executions that do not match.
    await s.svc.db.execute(sql`
      insert into executions (id, tenant_id, module, action, status, request_id, input_bytes, created_at)
      select 'exe_hay' || g || ${a.tenantId}::text, ${a.tenantId}::uuid, 'text', 'slugify', 'success', 'req_hay' || g, 1, now() - g * interval '1 ms'
      from generate_series(1, ${SEARCH_SCAN_LIMIT + 10}) as g`);
    const first = await search(a.apiKey, 'needle');
    expect(first.data).toEqual([]);
    expect(first.has_more).toBe(true);
    expect(typeof first.searched_back_to).toBe('string');
    const second = await search(a.apiKey, 'needle', `&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(second.data.map((e) => e.execution_id)).toEqual([oldest]);
    expect(second.has_more).toBe(false);
    expect(second.searched_back_to).toBeNull();
    // Without q, the list is the ordinary one.
    const plain = await s.call<Page>('/api/v1/executions?limit=1', { key: a.apiKey });
    expect(plain.body.searched_back_to).toBeUndefined();
    expect(plain.body.has_more).toBe(true);
  });
});
