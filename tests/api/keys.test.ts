import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('API keys (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  /** A pro tenant (multiple keys allowed). */
  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    return t;
  }

  it('free plan cannot create a second key (403 plan_required)', async () => {
    const t = await s.register();
    const body = expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'ci' } }), 403, 'plan_required');
    expect(body.required_plan).toBe('pro');
  });

  it('creates a key with default scopes, shows the secret once, lists without secrets', async () => {
    const t = await proTenant();
    const created = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'worker' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'worker', scopes: ['modules:read', 'modules:execute'] });
    expect(created.body.key_id).toMatch(/^key_/);
    expect(created.body.api_key).toMatch(/^amp_[A-Za-z0-9]{32,}$/);
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);

    const list = await s.call('/api/v1/keys', { key: t.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.text).not.toContain(created.body.api_key);
    const summary = list.body.data.find((k: any) => k.key_id === created.body.key_id);
    expect(summary.prefix).toBe(created.body.api_key.slice(0, 12));
    expect(list.body).toMatchObject({ has_more: false, next_cursor: null });

    // The new key works and carries only its scopes.
    const denied = expectError(await s.call('/api/v1/keys', { key: created.body.api_key }), 403, 'insufficient_scope');
    expect(denied.required_scope).toBe('keys:manage');
  });

  it('paginates the key list with an opaque cursor', async () => {
    const t = await proTenant();
    for (let i = 0; i < 3; i++) await s.call('/api/v1/keys', { key: t.apiKey, body: { name: `k${i}` } });
    const page1 = await s.call('/api/v1/keys?limit=2', { key: t.apiKey });
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.has_more).toBe(true);
    const page2 = await s.call(`/api/v1/keys?limit=2&cursor=${page1.body.next_cursor}`, { key: t.apiKey });
    expect(page2.body.data).toHaveLength(2);
    expect(page2.body.has_more).toBe(false);
    const ids = [...page1.body.data, ...page2.body.data].map((k: any) => k.key_id);
    expect(new Set(ids).size).toBe(4);
    expectError(await s.call('/api/v1/keys?cursor=garbage', { key: t.apiKey }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/keys?limit=101', { key: t.apiKey }), 400, 'invalid_request');
    // Not plain decimal digits (hex, exponent, sign, decimals, spaces, empty), or given twice: said
    // so, with the path, not "received NaN", and never read as 16 or 10.
    for (const query of [
      'limit=ten',
      'limit=1&limit=2',
      'limit=0x10',
      'limit=1e1',
      'limit=2.0',
      'limit=+5',
      'limit=%205',
      'limit=',
      'limit=-1',
      'limit=0b11',
      'limit=Infinity',
    ]) {
      const refused = await s.call(`/api/v1/keys?${query}`, { key: t.apiKey });
      expect(expectError(refused, 400, 'invalid_request').issues, query).toEqual([
        { path: 'limit', message: 'expected a whole number in decimal digits, given once' },
      ]);
      expect(refused.body.message, query).toBe('Invalid request: limit: expected a whole number in decimal digits, given once');
    }
    expect((await s.call('/api/v1/keys?limit=002', { key: t.apiKey })).body.data).toHaveLength(2);
    // Out of range keeps the range's own words.
    expect((await s.call('/api/v1/keys?limit=0', { key: t.apiKey })).body.message).toMatch(/limit: Too small/);
  });

  it('every integer query parameter takes plain decimal digits only (limit, history_limit)', async () => {
    const t = await proTenant();
    for (const path of [
      '/api/v1/modules?limit=',
      '/api/v1/directory?limit=',
      '/api/v1/catalog/search?q=slug&limit=',
      '/api/v1/executions?limit=',
      '/api/v1/billing/invoices?limit=',
      '/api/v1/memory/agents?limit=',
      '/api/v1/memory?agent_id=a&limit=',
      '/api/v1/webhooks?limit=',
      '/api/v1/workflows?limit=',
      '/api/v1/trust/text?history_limit=',
    ]) {
      const name = path.includes('history_limit') ? 'history_limit' : 'limit';
      for (const value of ['0x10', '1e1', '5.0']) {
        const res = await s.call(path + value, { key: t.apiKey });
        expect(expectError(res, 400, 'invalid_request').issues, path + value).toEqual([
          { path: name, message: 'expected a whole number in decimal digits, given once' },
        ]);
      }
      expect((await s.call(`${path}5`, { key: t.apiKey })).status, `${path}5`).toBe(200);
    }
  });

  it('refuses to grant scopes the creator does not hold', async () => {
    const t = await proTenant();
    const manager = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'mgr', scopes: ['keys:manage', 'modules:read'] } });
    expect(manager.status).toBe(201);
    const body = expectError(
      await s.call('/api/v1/keys', { key: manager.body.api_key, body: { name: 'x', scopes: ['billing:read'] } }),
      403,
      'insufficient_scope',
    );
    expect(body.required_scope).toBe('billing:read');
    const star = expectError(
      await s.call('/api/v1/keys', { key: manager.body.api_key, body: { name: 'x', scopes: ['*'] } }),
      403,
      'insufficient_scope',
    );
    expect(star.required_scope).toBe('*');
    const ok = await s.call('/api/v1/keys', { key: manager.body.api_key, body: { name: 'ro', scopes: ['modules:read'] } });
    expect(ok.status).toBe(201);
  });

  it('validates the create body', async () => {
    const t = await proTenant();
    expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: {} }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'x', scopes: ['root'] } }), 400, 'invalid_request');
    const unknown = expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'x', scope: ['*'] } }), 400, 'invalid_request');
    expect(unknown.issues.length).toBeGreaterThan(0);
  });

  it('revokes a key: it fails on the very next request', async () => {
    const t = await proTenant();
    const k = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'temp', scopes: ['keys:manage'] } });
    expect((await s.call('/api/v1/keys', { key: k.body.api_key })).status).toBe(200);
    const revoked = await s.call(`/api/v1/keys/${k.body.key_id}`, { method: 'DELETE', key: t.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ key_id: k.body.key_id, revoked: true });
    expect(Date.parse(revoked.body.revoked_at)).not.toBeNaN();
    expectError(await s.call('/api/v1/keys', { key: k.body.api_key }), 401, 'unauthorized');
    expectError(await s.call(`/api/v1/keys/${k.body.key_id}`, { method: 'DELETE', key: t.apiKey }), 404, 'not_found');
  });

  it('will not revoke the last key able to manage keys (409)', async () => {
    const t = await s.register();
    const list = await s.call('/api/v1/keys', { key: t.apiKey });
    const primary = list.body.data[0].key_id;
    expectError(await s.call(`/api/v1/keys/${primary}`, { method: 'DELETE', key: t.apiKey }), 409, 'conflict');
    expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
  });

  it('rotates without grace: the old secret fails at once, the new one works', async () => {
    const t = await s.register();
    const primary = (await s.call('/api/v1/keys', { key: t.apiKey })).body.data[0];
    const rotated = await s.call(`/api/v1/keys/${primary.key_id}/rotate`, { key: t.apiKey, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ key_id: primary.key_id, scopes: ['*'], previous_key_expires_at: null });
    expect(rotated.body.api_key).not.toBe(t.apiKey);
    expectError(await s.call('/api/v1/keys', { key: t.apiKey }), 401, 'unauthorized');
    expect((await s.call('/api/v1/keys', { key: rotated.body.api_key })).status).toBe(200);
  });

  it('rotates with grace: both secrets work until the grace ends', async () => {
    const t = await s.register();
    const primary = (await s.call('/api/v1/keys', { key: t.apiKey })).body.data[0];
    const rotated = await s.call(`/api/v1/keys/${primary.key_id}/rotate`, { key: t.apiKey, body: { grace_seconds: 1 } });
    expect(rotated.status).toBe(200);
    expect(Date.parse(rotated.body.previous_key_expires_at)).toBeGreaterThan(Date.now());
    expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    expect((await s.call('/api/v1/keys', { key: rotated.body.api_key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expectError(await s.call('/api/v1/keys', { key: t.apiKey }), 401, 'unauthorized');
    expect((await s.call('/api/v1/keys', { key: rotated.body.api_key })).status).toBe(200);
    expectError(
      await s.call(`/api/v1/keys/${primary.key_id}/rotate`, { key: rotated.body.api_key, body: { grace_seconds: 86_401 } }),
      400,
      'invalid_request',
    );
  });

  it('cannot rotate a key with scopes the caller lacks', async () => {
    const t = await proTenant();
    const mgr = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'mgr', scopes: ['keys:manage'] } });
    const primary = (await s.call('/api/v1/keys', { key: t.apiKey })).body.data.find((k: any) => k.primary);
    expectError(await s.call(`/api/v1/keys/${primary.key_id}/rotate`, { key: mgr.body.api_key, body: {} }), 403, 'insufficient_scope');
  });

  it("another tenant's key is a 404 for every operation", async () => {
    const a = await proTenant();
    const b = await proTenant();
    const bKey = await s.call('/api/v1/keys', { key: b.apiKey, body: { name: 'b' } });
    expectError(await s.call(`/api/v1/keys/${bKey.body.key_id}`, { method: 'DELETE', key: a.apiKey }), 404, 'not_found');
    expectError(await s.call(`/api/v1/keys/${bKey.body.key_id}/rotate`, { key: a.apiKey, body: {} }), 404, 'not_found');
    const aList = await s.call('/api/v1/keys', { key: a.apiKey });
    expect(aList.body.data.map((k: any) => k.key_id)).not.toContain(bKey.body.key_id);
    expect((await s.call('/api/v1/keys', { key: bKey.body.api_key })).status).toBe(403);
  });
});
