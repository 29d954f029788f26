/**
 * The operator's per-tenant `requests_per_minute` override (docs/decisions.md, Admin): shown in
 * `GET /api/v1/admin/tenants`, kept across plan changes unless cleared with `null`, and every plan
 * change says in its answer whether an override still applies.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('admin tenants and the request-limit override (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const admin = { 'x-admin-token': ADMIN_TOKEN };
  const setPlan = (tenantId: string, body: object) =>
    s.call(`/api/v1/admin/tenants/${tenantId}/plan`, { method: 'PUT', headers: admin, body });
  const listed = async (tenantId: string) => {
    const list = await s.call('/api/v1/admin/tenants?limit=100', { headers: admin });
    expect(list.status).toBe(200);
    return list.body.data.find((x: { tenant_id: string }) => x.tenant_id === tenantId);
  };
  const limitSeenBy = async (apiKey: string) => (await s.call('/api/v1/keys', { key: apiKey })).headers.get('x-ratelimit-limit');

  it('shows the override in the list, keeps it across a plan change (and says so), and clears it with null', async () => {
    const t = await s.register();
    expect(await listed(t.tenantId)).toMatchObject({ plan: 'free', requests_per_minute: 60, requests_per_minute_override: null });

    const set = await setPlan(t.tenantId, { plan: 'enterprise', requests_per_minute: 12_000 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ plan: 'enterprise', requests_per_minute: 12_000, requests_per_minute_override: 12_000 });
    expect(await listed(t.tenantId)).toMatchObject({
      plan: 'enterprise',
      requests_per_minute: 12_000,
      requests_per_minute_override: 12_000,
    });
    expect(await limitSeenBy(t.apiKey)).toBe('12000');

    // A plan change without requests_per_minute keeps the override, and its answer says it applies.
    const moved = await setPlan(t.tenantId, { plan: 'pro' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ plan: 'pro', requests_per_minute: 12_000, requests_per_minute_override: 12_000 });
    expect(await limitSeenBy(t.apiKey)).toBe('12000');

    // null clears it: the plan's value applies again, in the answer, the list and the headers.
    const cleared = await setPlan(t.tenantId, { plan: 'pro', requests_per_minute: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ plan: 'pro', requests_per_minute: 300, requests_per_minute_override: null });
    expect(await listed(t.tenantId)).toMatchObject({ plan: 'pro', requests_per_minute: 300, requests_per_minute_override: null });
    expect(await limitSeenBy(t.apiKey)).toBe('300');

    // Without an override, a plan change brings the new plan's limit.
    const business = await setPlan(t.tenantId, { plan: 'business' });
    expect(business.body).toMatchObject({ plan: 'business', requests_per_minute: 1_000, requests_per_minute_override: null });
    expect(await limitSeenBy(t.apiKey)).toBe('1000');
  });

  it('refuses an override that is not a whole number from 1 to 100,000,000', async () => {
    const t = await s.register();
    for (const requests_per_minute of [0, -5, 1.5, 100_000_001, '600']) {
      expectError(await setPlan(t.tenantId, { plan: 'pro', requests_per_minute }), 400, 'invalid_request');
    }
    expect(await listed(t.tenantId)).toMatchObject({ plan: 'free', requests_per_minute_override: null });
  });
});
