/**
 * `Idempotency-Key` on state-changing requests (src/idempotency/keys.ts): a retry gets the first
 * answer without running again (one execution recorded, counted, evented), a reuse with another
 * request or while the first runs is refused, a request refused before doing anything keeps no
 * answer, keys are per tenant, and kept answers are encrypted at rest.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executions, idempotencyKeys } from '../../src/db/schema';
import { ABANDONED_AFTER_MS, renewIdempotencyClaims } from '../../src/idempotency/keys';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

const slugify = (text: string) => ({ action: 'slugify', input: { text } });

backends.describe('Idempotency-Key (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const executionCount = async (tenantId: string) =>
    (await s.svc.db.select({ id: executions.id }).from(executions).where(eq(executions.tenantId, tenantId))).length;
  const usage = async (key: string) => (await s.call('/api/v1/billing/usage', { key })).body.executions.used as number;

  it('a retry with the same key answers the first execution again: one execution, counted once', async () => {
    const t = await s.register();
    const headers = { 'Idempotency-Key': 'order-42-attempt' };
    const first = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: slugify('Hello Idem'), headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: slugify('Hello Idem'), headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await executionCount(t.tenantId)).toBe(1);
    expect(await usage(t.apiKey)).toBe(1);
    // Without the header, the same request runs again.
    const fresh = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: slugify('Hello Idem') });
    expect(fresh.body.execution_id).not.toBe(first.body.execution_id);
  });

  it('the same key with another input or operation is refused (400); concurrent duplicates run once', async () => {
    const t = await s.register();
    const headers = { 'Idempotency-Key': 'k-1' };
    expect((await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: slugify('one'), headers })).status).toBe(200);
    const other = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: slugify('two'), headers });
    expect(expectError(other, 400, 'invalid_request').issues).toEqual([
      { path: 'Idempotency-Key', message: expect.stringMatching(/another request/) },
    ]);
    const elsewhere = await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'x', value: 1 }, headers });
    expectError(elsewhere, 400, 'invalid_request');

    // Ten at once with one key: one runs; the others get its answer or 409 while it runs.
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: slugify('burst'), headers: { 'Idempotency-Key': 'burst-1' } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    for (const r of results.filter((r) => r.status !== 200)) {
      expectError(r, 409, 'conflict');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.execution_id)).size).toBe(1);
    expect(await executionCount(t.tenantId)).toBe(2);
  });

  it('a failed execution is kept and replayed; a request refused before running keeps nothing', async () => {
    const t = await s.register();
    // Invalid input to the action: a recorded, counted execution (422) — replayed as it was.
    const bad = { action: 'slugify', input: { text: 42 } };
    const failed = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: bad, headers: { 'Idempotency-Key': 'bad-input' } });
    const body = expectError(failed, 422, 'invalid_input');
    const replay = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: bad, headers: { 'Idempotency-Key': 'bad-input' } });
    expect(expectError(replay, 422, 'invalid_input').execution).toEqual(body.execution);
    // The first answer, but for the request id its body names (the retry's, as its X-Request-Id: expectError).
    expect({ ...replay.body, request_id: body.request_id }).toEqual(failed.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await executionCount(t.tenantId)).toBe(1);

    // Unknown module (404, nothing run): the key stays free, so the corrected request may reuse it.
    const missing = await s.call('/api/v1/modules/no-such-module/execute', {
      key: t.apiKey,
      body: slugify('x'),
      headers: { 'Idempotency-Key': 'typo' },
    });
    expectError(missing, 404, 'not_found');
    const [row] = await s.svc.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, t.tenantId), eq(idempotencyKeys.key, 'typo')));
    expect(row).toBeUndefined();
  });

  it('keys belong to a tenant; answers are kept encrypted; a bad key is a 400; reads ignore it', async () => {
    const a = await s.register();
    const b = await s.register();
    const headers = { 'Idempotency-Key': 'shared-name' };
    const fromA = await s.call('/api/v1/modules/crypto/execute', { key: a.apiKey, body: { action: 'uuid', input: {} }, headers });
    const fromB = await s.call('/api/v1/modules/crypto/execute', { key: b.apiKey, body: { action: 'uuid', input: {} }, headers });
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    expect(fromB.body.output).not.toEqual(fromA.body.output);
    const [row] = await s.svc.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.tenantId, a.tenantId));
    expect(row!.state).toBe('done');
    expect(row!.answer).toMatch(/^v1:/);
    expect(row!.answer).not.toContain(fromA.body.execution_id);

    for (const bad of ['', 'x'.repeat(256), 'has space', 'ünïcode']) {
      const res = await s.call('/api/v1/modules/crypto/execute', {
        key: a.apiKey,
        body: { action: 'uuid', input: {} },
        headers: { 'Idempotency-Key': bad },
      });
      expect(expectError(res, 400, 'invalid_request').issues[0].path).toBe('Idempotency-Key');
    }
    const read = await s.call('/api/v1/modules?limit=1', { key: a.apiKey, headers: { 'Idempotency-Key': 'x y' } });
    expect(read.status).toBe(200);
  });

  it('a batch is idempotent as a whole; a created key is answered again, its secret kept encrypted', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const calls = {
      calls: [
        { id: 'a', module: 'crypto', action: 'uuid', input: {} },
        { id: 'b', module: 'text', action: 'slugify', input: { text: 'B' } },
      ],
    };
    const first = await s.call('/api/v1/batch', { key: t.apiKey, body: calls, headers: { 'Idempotency-Key': 'batch-1' } });
    const again = await s.call('/api/v1/batch', { key: t.apiKey, body: calls, headers: { 'Idempotency-Key': 'batch-1' } });
    expect(again.body).toEqual(first.body);
    expect(await executionCount(t.tenantId)).toBe(2);

    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'ci' }, headers: { 'Idempotency-Key': 'key-1' } });
    expect(created.status).toBe(201);
    const replayed = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'ci' }, headers: { 'Idempotency-Key': 'key-1' } });
    expect(replayed.status).toBe(201);
    expect(replayed.body).toEqual(created.body);
    expect((await s.call('/api/v1/keys', { key: t.apiKey })).body.data).toHaveLength(2);
    const [row] = await s.svc.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, t.tenantId), eq(idempotencyKeys.key, 'key-1')));
    expect(row!.answer).not.toContain(created.body.api_key);
  });

  it("an answer is replayed only to the credential that sent the request: a narrower key never gets a wider key's secret", async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const manager = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'manager', scopes: ['keys:manage', 'modules:read'] } });
    expect(manager.status).toBe(201);
    const narrow = manager.body.api_key as string;
    const wide = { name: 'root-2', scopes: ['*'] };
    expectError(await s.call('/api/v1/keys', { key: narrow, body: wide }), 403, 'insufficient_scope');
    const headers = { 'Idempotency-Key': 'create-root' };
    expect((await s.call('/api/v1/keys', { key: t.apiKey, body: wide, headers })).status).toBe(201);
    const replayed = await s.call('/api/v1/keys', { key: narrow, body: wide, headers });
    expect(expectError(replayed, 400, 'invalid_request').issues).toEqual([
      { path: 'Idempotency-Key', message: expect.stringMatching(/another credential/) },
    ]);
    expect(replayed.text).not.toContain('amp_');
    // The key that sent it gets its answer again.
    const own = await s.call('/api/v1/keys', { key: t.apiKey, body: wide, headers });
    expect(own.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the same body with its members reordered is the same request', async () => {
    const t = await s.register();
    const headers = { 'Idempotency-Key': 'reordered', 'content-type': 'application/json' };
    const first = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { action: 'slugify', input: { text: 'Same', separator: '_' } },
      headers,
    });
    expect(first.status).toBe(200);
    const again = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: { input: { separator: '_', text: 'Same' }, action: 'slugify' },
      headers,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('a claim its instance stopped renewing is taken afresh; a live one is renewed', async () => {
    const t = await s.register();
    const k = idempotencyKeys;
    const stale = new Date(Date.now() - ABANDONED_AFTER_MS - 5_000);
    // As a request whose instance was killed mid-request left it.
    await s.svc.db
      .insert(k)
      .values({ tenantId: t.tenantId, key: 'crashed', fingerprint: 'of-the-killed-request', state: 'pending', createdAt: stale });
    const retry = await s.call('/api/v1/modules/text/execute', {
      key: t.apiKey,
      body: slugify('after the crash'),
      headers: { 'Idempotency-Key': 'crashed' },
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();

    await s.svc.db.insert(k).values({ tenantId: t.tenantId, key: 'running', fingerprint: 'f', state: 'pending', createdAt: stale });
    await renewIdempotencyClaims(s.svc, [{ tenantId: t.tenantId, key: 'running' }]);
    const [row] = await s.svc.db
      .select()
      .from(k)
      .where(and(eq(k.tenantId, t.tenantId), eq(k.key, 'running')));
    expect(Date.now() - row!.createdAt.getTime()).toBeLessThan(ABANDONED_AFTER_MS);
  });
});
