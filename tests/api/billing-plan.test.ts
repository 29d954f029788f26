/**
 * Plan changes and per-tenant terms (docs/billing.md): `PUT /api/v1/billing/plan` and the admin plan
 * endpoint share one service (src/billing/change-plan.ts). Upgrades and downgrades apply at once;
 * keys and webhook subscriptions beyond the new plan's allowance are suspended (and restored by
 * an upgrade); each change is recorded in plan_changes; the admin's per-tenant terms drive the
 * quota, the headers and the billing events.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { events, planChanges, usageCounters, webhookDeliveries, webhookSubscriptions } from '../../src/db/schema';
import { cycleStart } from '../../src/metering/cycle';
import { prepareAttempts } from '../../src/webhooks/deliver';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

backends.describe('plan changes and per-tenant terms (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,40,80', WEBHOOK_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  const admin = { 'x-admin-token': ADMIN_TOKEN };
  const adminPlan = (tenantId: string, body: object) =>
    s.call(`/api/v1/admin/tenants/${tenantId}/plan`, { method: 'PUT', headers: admin, body });
  const ownPlan = (key: string, plan: string) => s.call('/api/v1/billing/plan', { method: 'PUT', key, body: { plan } });
  const slugify = (key: string) => s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text: 'Hello' } } });
  const me = (key: string) => s.call('/api/v1/me', { key });
  const changesOf = (tenantId: string) =>
    s.svc.db.select().from(planChanges).where(eq(planChanges.tenantId, tenantId)).orderBy(asc(planChanges.changedAt), asc(planChanges.id));
  const recorded = (tenantId: string, type: string) =>
    s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));
  const deliveriesOf = (subscriptionId: string) =>
    s.svc.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, subscriptionId));
  const setUsed = (tenantId: string, executions: number) =>
    s.svc.db
      .insert(usageCounters)
      .values({ tenantId, cycleStart: cycleStart(), executions })
      .onConflictDoUpdate({ target: [usageCounters.tenantId, usageCounters.cycleStart], set: { executions } });

  it('free -> pro applies at once: webhooks and a second key; the answer names the terms; recorded with actor tenant', async () => {
    const t = await s.register();
    expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'ci' } }), 403, 'plan_required');

    const up = await ownPlan(t.apiKey, 'pro');
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({
      tenant_id: t.tenantId,
      plan: 'pro',
      previous_plan: 'free',
      changed: true,
      terms: {
        requests_per_minute: 300,
        executions_per_month: 50_000,
        concurrency: 25,
        modules: 50,
        overage: 'metered',
        overage_unit_usd: '0.001',
        monthly_fee_usd: '29.00',
      },
      suspended: { keys: [], webhooks: [] },
      restored: { keys: [], webhooks: [] },
    });
    expect(new Date(up.body.effective_at).toISOString()).toBe(up.body.effective_at);

    // At once, with the very key that was cached as free a moment ago.
    expect((await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'ci' } })).status).toBe(201);
    const receiver = await startReceiver();
    receivers.push(receiver);
    expect((await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['*'] } })).status).toBe(201);
    expect((await me(t.apiKey)).body).toMatchObject({ plan: 'pro', limits: { executions_per_month: 50_000 }, requests_per_minute: 300 });

    const [change] = await changesOf(t.tenantId);
    expect(change).toMatchObject({
      actor: 'tenant',
      fromTerms: {
        plan: 'free',
        requests_per_minute: null,
        executions_per_month: null,
        overage_unit_micro_usd: null,
        monthly_fee_micro_usd: null,
      },
      toTerms: {
        plan: 'pro',
        requests_per_minute: null,
        executions_per_month: null,
        overage_unit_micro_usd: null,
        monthly_fee_micro_usd: null,
      },
    });
    expect(change!.id).toMatch(/^pch_/);
    expect(change!.changedAt.toISOString()).toBe(up.body.effective_at);
  });

  it('pro -> free suspends the extra keys (refused at once, even cached) and the webhooks; pro again restores both', async () => {
    const t = await s.register();
    const primaryId = (await me(t.apiKey)).body.credential.key_id as string;
    await s.setPlan(t.tenantId, 'pro');
    const second = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'worker' } });
    const third = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    expect([second.status, third.status]).toEqual([201, 201]);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const hook = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
    expect(hook.status, hook.text).toBe(201);
    expect(hook.body.suspended).toBe(false);

    // The second key works and is cached; its execution is delivered.
    expect((await slugify(second.body.api_key)).status).toBe(200);
    expect((await slugify(second.body.api_key)).status).toBe(200);
    await receiver.waitFor(2);

    const down = await ownPlan(t.apiKey, 'free');
    expect(down.status, down.text).toBe(200);
    expect(down.body).toMatchObject({
      plan: 'free',
      previous_plan: 'pro',
      changed: true,
      terms: { executions_per_month: 1_000, overage: 'pause', overage_unit_usd: '0.00', monthly_fee_usd: '0.00' },
      restored: { keys: [], webhooks: [] },
    });
    expect([...down.body.suspended.keys].sort()).toEqual([second.body.key_id, third.body.key_id].sort());
    expect(down.body.suspended.webhooks).toEqual([hook.body.id]);

    // Refused at once (the cached entry is stale): 403 plan_required naming pro.
    const refused = expectError(await slugify(second.body.api_key), 403, 'plan_required');
    expect(refused.required_plan).toBe('pro');
    expect(refused.message).toMatch(/suspended/);
    const refusedMe = await me(third.body.api_key);
    expectError(refusedMe, 403, 'plan_required');
    // Counted against the tenant's pool, and reported as every answer to a valid credential is.
    expect(refusedMe.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refusedMe.headers.get('x-execution-remaining')).toMatch(/^\d+$/);
    // The primary key goes on working.
    expect((await me(t.apiKey)).body).toMatchObject({ plan: 'free', credential: { key_id: primaryId } });
    const before = (await deliveriesOf(hook.body.id)).length;
    expect((await slugify(t.apiKey)).status).toBe(200);
    // Deliveries are created in the event's transaction: none for a suspended subscription.
    expect(await deliveriesOf(hook.body.id)).toHaveLength(before);
    // The subscription's view says so (the operator endpoint answers the view on any plan).
    const viewed = await s.call(`/api/v1/admin/webhooks/${hook.body.id}/enable`, { method: 'POST', headers: admin });
    expect(viewed.status, viewed.text).toBe(200);
    expect(viewed.body).toMatchObject({ id: hook.body.id, status: 'active', suspended: true });

    // A delivery still pending when the subscription was suspended is not attempted: cancelled.
    const [pending] = await s.svc.db
      .insert(webhookDeliveries)
      .values({
        id: 'dlv_suspendedtest0000000',
        subscriptionId: hook.body.id,
        tenantId: t.tenantId,
        eventId: (await recorded(t.tenantId, 'execution.completed'))[0]!.id,
        eventType: 'execution.completed',
        kind: 'event',
        nextAttemptAt: new Date(),
      })
      .returning();
    const prepared = await prepareAttempts(s.svc, [{ id: 'job-1', data: { deliveryId: pending!.id, attempt: 1 } }]);
    expect(prepared).toMatchObject({ ready: [], idle: ['job-1'] });
    expect((await s.svc.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, pending!.id)))[0]!.status).toBe('cancelled');

    // Pro again: both keys and the webhook work again, and the answer says so.
    const up = await ownPlan(t.apiKey, 'pro');
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      plan: 'pro',
      previous_plan: 'free',
      suspended: { keys: [], webhooks: [] },
      restored: { webhooks: [hook.body.id] },
    });
    expect([...up.body.restored.keys].sort()).toEqual([second.body.key_id, third.body.key_id].sort());
    expect((await slugify(second.body.api_key)).status).toBe(200);
    expect((await me(third.body.api_key)).status).toBe(200);
    const view = await s.call(`/api/v1/webhooks/${hook.body.id}`, { key: t.apiKey });
    expect(view.body).toMatchObject({ suspended: false, status: 'active' });
    await receiver.waitFor(3);

    expect((await changesOf(t.tenantId)).map((c) => [c.actor, c.fromTerms.plan, c.toTerms.plan])).toEqual([
      ['admin', 'free', 'pro'],
      ['tenant', 'pro', 'free'],
      ['tenant', 'free', 'pro'],
    ]);
  });

  it('a downgrade keeps the oldest active key when the primary was revoked', async () => {
    const t = await s.register();
    const primaryId = (await me(t.apiKey)).body.credential.key_id as string;
    await s.setPlan(t.tenantId, 'pro');
    const older = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'older', scopes: ['*'] } });
    const newer = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'newer', scopes: ['*'] } });
    expect((await s.call(`/api/v1/keys/${primaryId}`, { method: 'DELETE', key: older.body.api_key })).status).toBe(200);
    const business = await ownPlan(older.body.api_key, 'business');
    expect(business.body.suspended.keys).toEqual([]);
    const free = await ownPlan(older.body.api_key, 'free');
    expect(free.status, free.text).toBe(200);
    expect(free.body.suspended.keys).toEqual([newer.body.key_id]);
    expect((await me(older.body.api_key)).status).toBe(200);
    expectError(await me(newer.body.api_key), 403, 'plan_required');
  });

  it('keys and webhooks created while a downgrade commits never end up working past the new allowance', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const receiver = await startReceiver();
    receivers.push(receiver);
    const creates = Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? s.call('/api/v1/keys', { key: t.apiKey, body: { name: `race-${i}` } })
        : s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['*'] } }),
    );
    const [down, ...created] = await Promise.all([ownPlan(t.apiKey, 'free'), ...creates]);
    expect(down.status, down.text).toBe(200);
    for (const r of created) expect([201, 403], r.text).toContain(r.status);
    const keys = await s.call('/api/v1/keys', { key: t.apiKey });
    expect(keys.body.data.filter((k: { suspended: boolean }) => !k.suspended)).toHaveLength(1);
    const hooks = await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.tenantId, t.tenantId));
    expect(hooks.filter((h) => h.suspendedAt === null)).toEqual([]);
  });

  it('the same plan is a 200 no-op without a record; scope * is needed; enterprise only through an operator', async () => {
    const t = await s.register();
    const same = await ownPlan(t.apiKey, 'free');
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({
      plan: 'free',
      previous_plan: 'free',
      changed: false,
      suspended: { keys: [], webhooks: [] },
      restored: { keys: [], webhooks: [] },
    });
    expect(await changesOf(t.tenantId)).toHaveLength(0);

    await s.setPlan(t.tenantId, 'pro');
    const reader = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    const denied = expectError(await ownPlan(reader.body.api_key, 'business'), 403, 'insufficient_scope');
    expect(denied.required_scope).toBe('*');

    const enterprise = expectError(await ownPlan(t.apiKey, 'enterprise'), 400, 'invalid_request');
    expect(enterprise.message).toMatch(/contact sales/);
    expectError(await ownPlan(t.apiKey, 'platinum'), 400, 'invalid_request');
    expectError(
      await s.call('/api/v1/billing/plan', { method: 'PUT', key: t.apiKey, body: { plan: 'pro', executions_per_month: 5 } }),
      400,
      'invalid_request',
    );
    // An enterprise contract is not left by the tenant either.
    await s.setPlan(t.tenantId, 'enterprise');
    expectError(await ownPlan(t.apiKey, 'pro'), 400, 'invalid_request');
    expect((await me(t.apiKey)).body.plan).toBe('enterprise');
    expect((await changesOf(t.tenantId)).map((c) => c.toTerms.plan)).toEqual(['pro', 'enterprise']);
  });

  it('admin executions_per_month 5 on a free tenant: the 6th execution is 429, X-Execution-Remaining follows; null clears it', async () => {
    const t = await s.register();
    const set = await adminPlan(t.tenantId, { plan: 'free', executions_per_month: 5 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      plan: 'free',
      previous_plan: 'free',
      changed: true,
      limits: { executions_per_month: 5 },
      terms: { executions_per_month: 5, overage: 'pause' },
      overrides: { executions_per_month: 5, requests_per_minute: null, overage_unit_usd: null, monthly_fee_usd: null },
    });
    const whoami = await me(t.apiKey);
    expect(whoami.headers.get('x-execution-remaining')).toBe('5');
    expect(whoami.body.limits.executions_per_month).toBe(5);

    for (let i = 1; i <= 5; i++) {
      const ran = await slugify(t.apiKey);
      expect(ran.status).toBe(200);
      expect(ran.headers.get('x-execution-remaining')).toBe(String(5 - i));
    }
    const refused = expectError(await slugify(t.apiKey), 429, 'quota_exceeded');
    expect(refused.limit).toBe(5);
    const [exceeded] = await recorded(t.tenantId, 'billing.limit_exceeded');
    expect(exceeded!.data).toMatchObject({ plan: 'free', limit: 5, used: 5, overage: false });
    expect((await recorded(t.tenantId, 'billing.limit_approaching'))[0]!.data).toMatchObject({ limit: 5, used: 4 });

    const arm = await s.call('/api/v1/agent/arm', { key: t.apiKey, body: {} });
    expect(arm.body).toMatchObject({ limits: { executions_per_month: 5 }, usage: { executions_used: 5, executions_remaining: 0 } });

    const cleared = await adminPlan(t.tenantId, { plan: 'free', executions_per_month: null });
    expect(cleared.body).toMatchObject({ terms: { executions_per_month: 1_000 }, overrides: { executions_per_month: null } });
    const again = await slugify(t.apiKey);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-execution-remaining')).toBe('994');

    const listed = (await s.call('/api/v1/admin/tenants?limit=100', { headers: admin })).body.data.find(
      (x: { tenant_id: string }) => x.tenant_id === t.tenantId,
    );
    expect(listed).toMatchObject({ terms: { executions_per_month: 1_000 }, overrides: { executions_per_month: null } });
    expect((await changesOf(t.tenantId)).map((c) => [c.actor, c.fromTerms.executions_per_month, c.toTerms.executions_per_month])).toEqual([
      ['admin', null, 5],
      ['admin', 5, null],
    ]);
  });

  it('admin quota and prices on enterprise: 80% and 100% events fire once with overage, executions go on metered', async () => {
    const t = await s.register();
    const set = await adminPlan(t.tenantId, {
      plan: 'enterprise',
      executions_per_month: 10,
      overage_unit_usd: '0.0025',
      monthly_fee_usd: 1500,
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      plan: 'enterprise',
      previous_plan: 'free',
      terms: {
        executions_per_month: 10,
        overage: 'metered',
        overage_unit_usd: '0.0025',
        monthly_fee_usd: '1500.00',
        concurrency: 500,
        modules: null,
      },
      overrides: { executions_per_month: 10, overage_unit_usd: '0.0025', monthly_fee_usd: '1500.00' },
    });
    await setUsed(t.tenantId, 7);
    for (let i = 0; i < 5; i++) expect((await slugify(t.apiKey)).status).toBe(200);
    const approaching = await recorded(t.tenantId, 'billing.limit_approaching');
    expect(approaching).toHaveLength(1);
    expect(approaching[0]!.data).toMatchObject({ plan: 'enterprise', used: 8, limit: 10, percent: 80 });
    const exceeded = await recorded(t.tenantId, 'billing.limit_exceeded');
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.data).toMatchObject({ plan: 'enterprise', used: 10, limit: 10, overage: true });
    const [counter] = await s.svc.db
      .select()
      .from(usageCounters)
      .where(and(eq(usageCounters.tenantId, t.tenantId), eq(usageCounters.cycleStart, cycleStart())));
    expect(counter).toMatchObject({ executions: 12, overage: 2 });
    expect((await me(t.apiKey)).headers.get('x-execution-remaining')).toBe('0');

    // Prices recorded in micro-dollars for proration; null clears each back to the plan's.
    const [change] = await changesOf(t.tenantId);
    expect(change!.toTerms).toEqual({
      plan: 'enterprise',
      requests_per_minute: null,
      executions_per_month: 10,
      overage_unit_micro_usd: 2_500,
      monthly_fee_micro_usd: 1_500_000_000,
    });
    const cleared = await adminPlan(t.tenantId, { plan: 'enterprise', executions_per_month: null, overage_unit_usd: null });
    expect(cleared.body).toMatchObject({
      terms: { executions_per_month: null, overage_unit_usd: '0.00', monthly_fee_usd: '1500.00' },
      limits: { executions_per_month: null },
    });
    expect((await me(t.apiKey)).headers.get('x-execution-remaining')).toBe('unlimited');
  });

  it("a tenant's own move to another plan ends the operator's per-tenant terms; the same plan keeps them", async () => {
    const t = await s.register();
    const set = await adminPlan(t.tenantId, {
      plan: 'business',
      monthly_fee_usd: '500',
      overage_unit_usd: '0.25',
      requests_per_minute: 2_000,
    });
    expect(set.body.overrides).toMatchObject({ monthly_fee_usd: '500.00', overage_unit_usd: '0.25', requests_per_minute: 2_000 });
    // Asking for the plan it is on changes nothing: the contract stays.
    expect((await ownPlan(t.apiKey, 'business')).body).toMatchObject({ changed: false, terms: { monthly_fee_usd: '500.00' } });
    // Down to free by itself: free's own terms, no contract fee following it there.
    const down = await ownPlan(t.apiKey, 'free');
    expect(down.status, down.text).toBe(200);
    expect(down.body).toMatchObject({
      plan: 'free',
      terms: { requests_per_minute: 60, executions_per_month: 1_000, overage: 'pause', overage_unit_usd: '0.00', monthly_fee_usd: '0.00' },
    });
    const [, change] = await changesOf(t.tenantId);
    expect(change!.toTerms).toEqual({
      plan: 'free',
      requests_per_minute: null,
      executions_per_month: null,
      overage_unit_micro_usd: null,
      monthly_fee_micro_usd: null,
    });
    expect((await me(t.apiKey)).headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('admin prices are capped (1,000 USD an execution, 10,000,000 USD a month) so every invoice stays exact', async () => {
    const t = await s.register();
    for (const [body, path] of [
      [{ overage_unit_usd: '1000.000001' }, 'overage_unit_usd'],
      [{ overage_unit_usd: 1000.5 }, 'overage_unit_usd'],
      [{ monthly_fee_usd: '10000000.01' }, 'monthly_fee_usd'],
      [{ monthly_fee_usd: '9007199254.740991' }, 'monthly_fee_usd'],
    ] as const) {
      const res = expectError(await adminPlan(t.tenantId, { plan: 'pro', ...body }), 400, 'invalid_request');
      expect(res.issues, JSON.stringify(body)).toEqual([
        { path, message: expect.stringMatching(/must be at most (1000|10000000)\.00 USD/) },
      ]);
    }
    expect(await changesOf(t.tenantId)).toHaveLength(0);
    const ok = await adminPlan(t.tenantId, { plan: 'pro', overage_unit_usd: 1000, monthly_fee_usd: '10000000.000000' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.terms).toMatchObject({ overage_unit_usd: '1000.00', monthly_fee_usd: '10000000.00' });
  });

  it('admin terms are validated: non-negative USD with at most 6 decimals, whole quotas', async () => {
    const t = await s.register();
    for (const body of [
      { overage_unit_usd: '-0.001' },
      { overage_unit_usd: -1 },
      { overage_unit_usd: '0.0000001' },
      { overage_unit_usd: 'ten' },
      { overage_unit_usd: '1e3' },
      { monthly_fee_usd: true },
      { monthly_fee_usd: '' },
      { executions_per_month: -1 },
      { executions_per_month: 2.5 },
      { executions_per_month: '5' },
    ]) {
      expectError(await adminPlan(t.tenantId, { plan: 'pro', ...body }), 400, 'invalid_request');
    }
    expectError(await adminPlan('00000000-0000-4000-8000-000000000000', { plan: 'pro' }), 404, 'not_found');
    expect(await changesOf(t.tenantId)).toHaveLength(0);
    const ok = await adminPlan(t.tenantId, { plan: 'pro', overage_unit_usd: 0.000001, monthly_fee_usd: '0' });
    expect(ok.body.terms).toMatchObject({ overage_unit_usd: '0.000001', monthly_fee_usd: '0.00' });
  });
});
