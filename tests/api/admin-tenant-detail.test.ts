/**
 * The operator's look into one tenant (`admin.tenant`, the dashboard's Admin tenant page): tRPC
 * only (no REST route), operators only, read-only: plan and terms, this cycle's executions, active
 * keys, webhook subscriptions by status and the tenant's own failed deliveries.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../harness';

backends.describe('admin tenant detail (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => s?.close());

  const admin = { 'x-admin-token': ADMIN_TOKEN };
  const detail = (tenantId: string, opts: { headers?: Record<string, string>; key?: string } = {}) =>
    s.call(`/api/trpc/admin.tenant?input=${encodeURIComponent(JSON.stringify({ tenant_id: tenantId }))}`, opts);

  it('answers an operator with the tenant, its cycle, keys and webhooks; refuses a tenant; has no REST route', async () => {
    const t = await s.register({ agent_name: 'Detail Co' });
    await s.setPlan(t.tenantId, 'pro');
    expect((await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'second', scopes: ['modules:read'] } })).status).toBe(201);
    const revoked = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'gone', scopes: ['modules:read'] } });
    expect((await s.call(`/api/v1/keys/${String(revoked.body.key_id)}`, { method: 'DELETE', key: t.apiKey })).status).toBe(200);
    expect(
      (await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: 'http://127.0.0.1:9/hook', events: ['execution.completed'] } }))
        .status,
    ).toBe(201);
    expect(
      (await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'A b' } } })).status,
    ).toBe(200);

    const res = await detail(t.tenantId, { headers: admin });
    expect(res.status).toBe(200);
    const d = res.body.result.data;
    expect(d).toMatchObject({
      tenant_id: t.tenantId,
      agent_name: 'Detail Co',
      plan: 'pro',
      deleted_at: null,
      executions_this_cycle: 1,
      overage_this_cycle: 0,
      keys: { active: 2, suspended: 0 },
      webhooks: { total: 1, active: 1, disabled: 0, suspended: 0 },
    });
    expect(Array.isArray(d.recent_failed_deliveries)).toBe(true);
    expect(d.cycle_start).toMatch(/^\d{4}-\d{2}-01$/);

    // Another tenant's failed deliveries are not this one's.
    const other = await s.register();
    expect((await detail(other.tenantId, { headers: admin })).body.result.data.recent_failed_deliveries).toEqual([]);

    // A tenant's own key is no operator; an unknown tenant is 404; REST has no such route.
    expect([401, 403]).toContain((await detail(t.tenantId, { key: t.apiKey })).status);
    expect((await detail('00000000-0000-4000-8000-000000000000', { headers: admin })).status).toBe(404);
    expect((await s.call(`/api/v1/admin/tenants/${t.tenantId}`, { headers: admin })).status).toBe(404);
  });
});
