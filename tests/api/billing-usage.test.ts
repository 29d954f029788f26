/**
 * GET /api/v1/billing/usage (docs/billing.md, Usage): executions counted from their records (REST,
 * batch, chain and MCP each once), failures, per-day and per-module breakdowns, requests per
 * day, overage and its exact cost, proration of a plan change, past cycles, the quota reset at
 * a cycle boundary, and the usual refusals.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executionsByDayAndModule } from '../../src/billing/usage';
import { executions, planChanges, requestCounts, tenants, usageCounters } from '../../src/db/schema';
import type { TermsSnapshot } from '../../src/db/schema/billing';
import { RequestCounter } from '../../src/metering/request-counts';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';

const DAY_MS = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const snapshot = (plan: TermsSnapshot['plan']): TermsSnapshot => ({
  plan,
  requests_per_minute: null,
  executions_per_month: null,
  overage_unit_micro_usd: null,
  monthly_fee_micro_usd: null,
});

/** The current cycle, the previous one and the one before it (UTC calendar months). */
function cycles(now = new Date()) {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const at = (months: number) => new Date(Date.UTC(y, m + months, 1));
  const name = (d: Date) => d.toISOString().slice(0, 7);
  return {
    current: { name: name(at(0)), start: at(0), end: at(1) },
    previous: { name: name(at(-1)), start: at(-1), end: at(0), days: Math.round((at(0).getTime() - at(-1).getTime()) / DAY_MS) },
    before: { name: name(at(-2)), start: at(-2) },
    next: { name: name(at(1)) },
  };
}

backends.describe('billing usage (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  const usage = (key: string | undefined, query = '') => s.call(`/api/v1/billing/usage${query}`, { key });
  const execute = (key: string, input: unknown = { text: 'Hello World' }) =>
    s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input } });
  const counter = async (tenantId: string, cycleStartDay: string) =>
    (
      await s.svc.db
        .select()
        .from(usageCounters)
        .where(and(eq(usageCounters.tenantId, tenantId), eq(usageCounters.cycleStart, cycleStartDay)))
    )[0]?.executions ?? 0;

  /**
   * `n` execution records at `at`, and the cycle's counter moved with them as a reservation does
   * (`quota`: the quota in force, for the counter's overage).
   */
  async function seedExecutions(
    tenantId: string,
    n: number,
    at: Date,
    opts: { module?: string; status?: 'success' | 'failed'; counter?: boolean; quota?: number } = {},
  ) {
    const tag = Math.random().toString(36).slice(2, 10);
    await s.svc.db.execute(sql`
      insert into executions (id, tenant_id, module, action, status, request_id, input_bytes, created_at, source)
      select 'exe_seed_' || ${tag} || '_' || g, ${tenantId}::uuid, ${opts.module ?? 'text'}, 'slugify', ${opts.status ?? 'success'}, 'req_seed', 0, ${at.toISOString()}::timestamptz, 'api'
      from generate_series(1, ${n}::int) g`);
    if (opts.counter === false) return;
    const cycle = `${at.toISOString().slice(0, 7)}-01`;
    const q = opts.quota ?? 1_000_000_000;
    const u = usageCounters;
    await s.svc.db
      .insert(u)
      .values({ tenantId, cycleStart: cycle, executions: n, overage: Math.max(0, n - q) })
      .onConflictDoUpdate({
        target: [u.tenantId, u.cycleStart],
        set: {
          executions: sql`${u.executions} + ${n}`,
          overage: sql`${u.overage} + greatest(0, ${u.executions} + ${n} - ${q}) - greatest(0, ${u.executions} - ${q})`,
        },
      });
  }

  /** A tenant that has been `plan` since before the previous cycle, with no change of plan recorded since. */
  async function longStandingTenant(plan: 'free' | 'pro' = 'free') {
    const t = await s.register();
    if (plan !== 'free') await s.setPlan(t.tenantId, plan);
    await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
    await s.svc.db.update(tenants).set({ createdAt: cycles().before.start }).where(eq(tenants.id, t.tenantId));
    return t;
  }

  it('counts each execution once whatever ran it (REST, batch, chain, MCP), with failures, per module and per day', async () => {
    const t = await s.register();
    // REST: two successes and one failed execution (invalid input is an execution).
    expect((await execute(t.apiKey)).status).toBe(200);
    expect((await execute(t.apiKey)).status).toBe(200);
    expectError(await execute(t.apiKey, { text: 1 }), 422, 'invalid_input');
    // Batch: three executions (one failed); an unknown action is none.
    const batch = await s.call('/api/v1/batch', {
      key: t.apiKey,
      body: {
        calls: [
          { module: 'text', action: 'slugify', input: { text: 'A' } },
          { module: 'crypto', action: 'hash', input: { text: 'abc', algorithm: 'sha256' } },
          { module: 'text', action: 'slugify', input: { text: 2 } },
          { module: 'text', action: 'nope', input: {} },
        ],
      },
    });
    expect(batch.body).toMatchObject({ succeeded: 2, failed: 2 });
    // Chain: two steps, two executions.
    const chain = await s.call('/api/v1/chain', {
      key: t.apiKey,
      body: {
        input: { text: 'Hello Chain' },
        steps: [
          { module: 'text', action: 'slugify' },
          { module: 'text', action: 'change_case', input: { to: 'upper' }, map: '{ "text": slug }' },
        ],
      },
    });
    expect(chain.body.status).toBe('success');
    // MCP through the SDK client: one success, one failed execution.
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': t.apiKey } } }),
    );
    expect((await client.callTool({ name: 'text__slugify', arguments: { text: 'Via MCP' } })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'text__slugify', arguments: { text: 42 } })).isError).toBe(true);
    await client.close();

    const rows = await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId));
    const bySource = Object.fromEntries(['api', 'batch', 'chain', 'mcp'].map((src) => [src, rows.filter((r) => r.source === src).length]));
    expect(bySource).toEqual({ api: 3, batch: 3, chain: 2, mcp: 2 });

    const res = await usage(t.apiKey);
    expect(res.status).toBe(200);
    const u = res.body;
    const { current } = cycles();
    expect(u).toMatchObject({
      tenant_id: t.tenantId,
      cycle: current.name,
      cycle_start: current.start.toISOString(),
      cycle_end: current.end.toISOString(),
      is_current: true,
      plan: 'free',
      terms: { executions_per_month: 1000, overage_unit_usd: '0.00', monthly_fee_usd: '0.00', requests_per_minute: 60 },
      executions: { used: 10, limit: 1000, remaining: 990, overage: 0, failed: 3 },
      overage_cost_usd: '0.00',
      projected_total_usd: '0.00',
    });
    // The records and the counter of record agree, and the header says the same.
    expect(u.executions.used).toBe(await counter(t.tenantId, isoDay(current.start)));
    expect(res.headers.get('x-execution-remaining')).toBe('990');
    expect(u.by_module).toEqual([
      { module: 'text', executions: 9, failures: 3 },
      { module: 'crypto', executions: 1, failures: 0 },
    ]);
    // Every day of the cycle up to today, in order; today's has the executions.
    const today = isoDay(new Date());
    const expectedDays = Math.floor((Date.parse(today) - current.start.getTime()) / DAY_MS) + 1;
    expect(u.daily).toHaveLength(expectedDays);
    expect(u.daily[0].date).toBe(isoDay(current.start));
    expect(u.daily.at(-1)).toMatchObject({ date: today, executions: 10, failures: 3 });
    expect(u.daily.reduce((n: number, d: { executions: number }) => n + d.executions, 0)).toBe(10);
    expect(u.plan_changes).toEqual([]);
  });

  it('requests per day: the authenticated calls counted against the request limit, exactly', async () => {
    const t = await s.register();
    const today = isoDay(new Date());
    for (let i = 0; i < 3; i++) expect((await s.call('/api/v1/me', { key: t.apiKey })).status).toBe(200);
    expect((await execute(t.apiKey)).status).toBe(200);
    expectError(await s.call('/api/v1/executions/exe_nope', { key: t.apiKey }), 404, 'not_found');
    // Not counted: exempt endpoints (docs/decisions.md, Plans and limits) and calls without a valid credential.
    expect((await s.call('/api/v1/modules', { key: t.apiKey })).status).toBe(200);
    expectError(await s.call('/api/v1/me', { key: 'amp_wrong' }), 401, 'unauthorized');

    // 5 calls above + this usage call itself.
    const first = await usage(t.apiKey);
    expect(first.body.daily.at(-1)).toMatchObject({ date: today, requests: 6, executions: 1 });
    const second = await usage(t.apiKey);
    expect(second.body.daily.at(-1).requests).toBe(7);
    expect(second.body.daily.slice(0, -1).every((d: { requests: number }) => d.requests === 0)).toBe(true);
    // Written to the table (usage flushed before reading).
    const [row] = await s.svc.db
      .select()
      .from(requestCounts)
      .where(and(eq(requestCounts.tenantId, t.tenantId), eq(requestCounts.day, today)));
    expect(Number(row!.requests)).toBe(7);
  });

  it('request counts of several instances add up in the table (one upsert per flush)', async () => {
    const t = await s.register();
    const today = isoDay(new Date());
    const a = new RequestCounter(s.svc.db, undefined, 0);
    const b = new RequestCounter(s.svc.db, undefined, 0);
    a.countRequest(t.tenantId, 5);
    b.countRequest(t.tenantId, 2);
    b.countRequest(t.tenantId, 5);
    expect(a.pendingRequests(t.tenantId, today)).toBe(5);
    await Promise.all([a.flush(), b.flush()]);
    a.countRequest(t.tenantId, 1);
    await a.close();
    expect(a.pendingRequests(t.tenantId, today)).toBe(0);
    const [row] = await s.svc.db
      .select()
      .from(requestCounts)
      .where(and(eq(requestCounts.tenantId, t.tenantId), eq(requestCounts.day, today)));
    expect(Number(row!.requests)).toBe(13);
    // A deleted tenant's pending counts do not block the others'.
    const gone = await s.register();
    const other = await s.register();
    const c = new RequestCounter(s.svc.db, undefined, 0);
    c.countRequest(gone.tenantId, 3);
    c.countRequest(other.tenantId, 4);
    await s.svc.db.delete(tenants).where(eq(tenants.id, gone.tenantId));
    await c.flush();
    const [kept] = await s.svc.db.select().from(requestCounts).where(eq(requestCounts.tenantId, other.tenantId));
    expect(Number(kept!.requests)).toBe(4);
    expect(c.pendingRequests(gone.tenantId, today)).toBe(0);
  });

  it('pro over its quota: overage and its exact cost, projected total = fee + overage', async () => {
    const t = await longStandingTenant('pro');
    await seedExecutions(t.tenantId, 50_248, new Date(Date.now() - 1000), { quota: 50_000 });
    expect((await execute(t.apiKey)).status).toBe(200);
    expectError(await execute(t.apiKey, { text: 3 }), 422, 'invalid_input');
    const res = await usage(t.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: 'pro',
      terms: { executions_per_month: 50_000, overage_unit_usd: '0.001', monthly_fee_usd: '29.00', requests_per_minute: 300 },
      executions: { used: 50_250, limit: 50_000, remaining: 0, overage: 250, failed: 1 },
      overage_cost_usd: '0.25',
      projected_total_usd: '29.25',
    });
    expect(res.body.executions.used).toBe(await counter(t.tenantId, isoDay(cycles().current.start)));
    expect(res.body.by_module).toEqual([{ module: 'text', executions: 50_250, failures: 1 }]);
  });

  it('a plan change in the current cycle is listed and prorates the projected fee (the day of the change on the new plan)', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const res = await usage(t.apiKey);
    const { current } = cycles();
    const cycleDays = Math.round((current.end.getTime() - current.start.getTime()) / DAY_MS);
    const today = Date.parse(isoDay(new Date()));
    const proDays = Math.round((current.end.getTime() - today) / DAY_MS);
    const feeMicro = Math.floor((29_000_000 * proDays * 2 + cycleDays) / (2 * cycleDays));
    const cents = Math.floor((feeMicro + 5_000) / 10_000);
    expect(res.body).toMatchObject({
      plan: 'pro',
      terms: { executions_per_month: 50_000, monthly_fee_usd: '29.00' },
      executions: { used: 0, limit: 50_000, remaining: 50_000, overage: 0, failed: 0 },
      projected_total_usd: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    });
    expect(res.body.plan_changes).toEqual([{ from_plan: 'free', to_plan: 'pro', changed_at: expect.any(String), actor: 'admin' }]);
    expect(Date.parse(res.body.plan_changes[0].changed_at)).toBeGreaterThanOrEqual(today);
  });

  it("per-tenant terms (admin): the tenant's own quota, overage price and fee", async () => {
    const t = await s.register();
    const set = await s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, {
      method: 'PUT',
      headers: { 'x-admin-token': ADMIN_TOKEN },
      body: { plan: 'enterprise', executions_per_month: 5, overage_unit_usd: '0.25', monthly_fee_usd: '100' },
    });
    expect(set.status).toBe(200);
    // As if the contract had been in force all cycle: no proration here.
    await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
    for (let i = 0; i < 7; i++) expect((await execute(t.apiKey)).status).toBe(200);
    const res = await usage(t.apiKey);
    expect(res.body).toMatchObject({
      plan: 'enterprise',
      terms: { executions_per_month: 5, overage_unit_usd: '0.25', monthly_fee_usd: '100.00', requests_per_minute: 5_000 },
      executions: { used: 7, limit: 5, remaining: 0, overage: 2, failed: 0 },
      overage_cost_usd: '0.50',
      projected_total_usd: '100.50',
    });
    expect(res.body.executions.used).toBe(await counter(t.tenantId, isoDay(cycles().current.start)));
  });

  it('a quota raised mid-cycle: the overage already run stays billed, as the invoice bills it', async () => {
    const t = await s.register();
    const setTerms = (executions_per_month: number) =>
      s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, {
        method: 'PUT',
        headers: { 'x-admin-token': ADMIN_TOKEN },
        body: { plan: 'pro', executions_per_month, overage_unit_usd: '0.5' },
      });
    expect((await setTerms(10)).status).toBe(200);
    for (let i = 0; i < 12; i++) expect((await execute(t.apiKey)).status).toBe(200);
    expect((await setTerms(100)).status).toBe(200);
    await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
    const res = await usage(t.apiKey);
    expect(res.body).toMatchObject({
      terms: { executions_per_month: 100, overage_unit_usd: '0.50' },
      executions: { used: 12, limit: 100, remaining: 88, overage: 2, failed: 0 },
      overage_cost_usd: '1.00',
      projected_total_usd: '30.00',
    });
  });

  it('the largest prices (the caps) price any count exactly; charges past the exact range are 409 conflict, never a 500', async () => {
    const t = await s.register();
    const admin = (body: Record<string, unknown>) =>
      s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, { method: 'PUT', headers: { 'x-admin-token': ADMIN_TOKEN }, body });
    // What an outside check once set: refused now, with the field in `issues`.
    const refused = expectError(
      await admin({ plan: 'pro', executions_per_month: 0, overage_unit_usd: '9007199254.740991', monthly_fee_usd: '9007199254.740991' }),
      400,
      'invalid_request',
    );
    expect(refused.issues.map((i: { path: string }) => i.path).sort()).toEqual(['monthly_fee_usd', 'overage_unit_usd']);
    // At the caps: 3 executions past a quota of 0 at 1,000 USD, and a 10,000,000 USD fee.
    const capped = await admin({ plan: 'pro', executions_per_month: 0, overage_unit_usd: '1000', monthly_fee_usd: '10000000' });
    expect(capped.status, capped.text).toBe(200);
    await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
    for (let i = 0; i < 3; i++) expect((await execute(t.apiKey)).status).toBe(200);
    expect((await usage(t.apiKey)).body).toMatchObject({
      terms: { overage_unit_usd: '1000.00', monthly_fee_usd: '10000000.00' },
      executions: { used: 3, overage: 3 },
      overage_cost_usd: '3000.00',
      projected_total_usd: '10003000.00',
    });
    // Terms stored before the caps existed (written directly): the same 3 executions come to more
    // than the largest exact amount. The usage answers 409 `conflict` saying so, not a 500.
    await s.svc.db
      .update(tenants)
      .set({ overageUnitMicroUsd: Number.MAX_SAFE_INTEGER, monthlyFeeMicroUsd: Number.MAX_SAFE_INTEGER })
      .where(eq(tenants.id, t.tenantId));
    const over = expectError(await usage(t.apiKey), 409, 'conflict');
    expect(over.message).toMatch(/more than 9007199254\.74 USD/);
    // Another tenant is unaffected.
    const other = await s.register();
    expect((await usage(other.apiKey)).status).toBe(200);
  });

  it('a past cycle (?cycle=YYYY-MM): its executions in its half-open window, every day, its plan change prorated', async () => {
    const t = await longStandingTenant('pro');
    const { previous, current } = cycles();
    const day = (n: number, hour = 12) => new Date(previous.start.getTime() + (n - 1) * DAY_MS + hour * 3_600_000);
    await seedExecutions(t.tenantId, 1, previous.start); // the first instant belongs to the cycle
    await seedExecutions(t.tenantId, 4, day(3));
    await seedExecutions(t.tenantId, 2, day(10), { module: 'csv', status: 'failed' });
    await seedExecutions(t.tenantId, 1, current.start); // the end is exclusive: this is the current cycle's
    await s.svc.db.insert(requestCounts).values({ tenantId: t.tenantId, day: isoDay(day(3)), requests: 41 });
    // Upgraded from free to pro on day 11 of the previous cycle (by the operator).
    await s.svc.db.insert(planChanges).values({
      id: `pch_test_${t.tenantId}`,
      tenantId: t.tenantId,
      fromTerms: snapshot('free'),
      toTerms: snapshot('pro'),
      actor: 'admin',
      changedAt: day(11, 15),
    });

    const res = await usage(t.apiKey, `?cycle=${previous.name}`);
    expect(res.status).toBe(200);
    const u = res.body;
    expect(u).toMatchObject({
      cycle: previous.name,
      cycle_start: previous.start.toISOString(),
      cycle_end: previous.end.toISOString(),
      is_current: false,
      plan: 'pro',
      executions: { used: 7, limit: 50_000, remaining: 49_993, overage: 0, failed: 2 },
      overage_cost_usd: '0.00',
      plan_changes: [{ from_plan: 'free', to_plan: 'pro', changed_at: day(11, 15).toISOString(), actor: 'admin' }],
    });
    expect(u.executions.used).toBe(await counter(t.tenantId, isoDay(previous.start)));
    // Free for days 1-10 (0 USD), pro from day 11 (the day of the change) to the end.
    const proDays = previous.days - 10;
    const feeMicro = Math.floor((29_000_000 * proDays * 2 + previous.days) / (2 * previous.days));
    const cents = Math.floor((feeMicro + 5_000) / 10_000);
    expect(u.projected_total_usd).toBe(`${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);
    expect(u.daily).toHaveLength(previous.days);
    expect(u.daily[0]).toEqual({ date: isoDay(previous.start), executions: 1, failures: 0, requests: 0 });
    expect(u.daily[2]).toEqual({ date: isoDay(day(3)), executions: 4, failures: 0, requests: 41 });
    expect(u.daily[9]).toEqual({ date: isoDay(day(10)), executions: 2, failures: 2, requests: 0 });
    expect(u.daily.at(-1).date).toBe(isoDay(new Date(previous.end.getTime() - DAY_MS)));
    expect(u.by_module).toEqual([
      { module: 'text', executions: 5, failures: 0 },
      { module: 'csv', executions: 2, failures: 2 },
    ]);
    // The current cycle has the one at its first instant, and no plan change.
    const now = await usage(t.apiKey);
    expect(now.body.executions.used).toBe(1);
    expect(now.body.plan_changes).toEqual([]);
    expect(now.body.projected_total_usd).toBe('29.00');
  });

  it('the quota resets at a cycle boundary: a free tenant at its quota last cycle starts this one with all of it', async () => {
    const t = await longStandingTenant('free');
    const { previous } = cycles();
    await seedExecutions(t.tenantId, 1_000, new Date(previous.start.getTime() + 5 * DAY_MS), { quota: 1_000 });
    const before = await usage(t.apiKey, `?cycle=${previous.name}`);
    expect(before.body.executions).toEqual({ used: 1_000, limit: 1_000, remaining: 0, overage: 0, failed: 0 });
    expect((await execute(t.apiKey)).status).toBe(200);
    const after = await usage(t.apiKey);
    expect(after.body.executions).toEqual({ used: 1, limit: 1_000, remaining: 999, overage: 0, failed: 0 });
    expect(after.headers.get('x-execution-remaining')).toBe('999');
  });

  it('?cycle: malformed, not begun, or before the tenant registered is 400 invalid_request', async () => {
    const t = await s.register();
    const { next, previous, current } = cycles();
    for (const bad of ['2026-13', '2026-00', '2026-1', '202611', 'abc', '2026-11-01', '', '%00']) {
      const body = expectError(await usage(t.apiKey, `?cycle=${bad}`), 400, 'invalid_request');
      expect(body.issues?.[0]?.path).toBe('cycle');
    }
    expect(expectError(await usage(t.apiKey, `?cycle=${next.name}`), 400, 'invalid_request').message).toContain(current.name);
    // Registered this cycle: the previous one is before it.
    expect(expectError(await usage(t.apiKey, `?cycle=${previous.name}`), 400, 'invalid_request').message).toContain(current.name);
    expectError(await usage(t.apiKey, '?cycle=0001-01'), 400, 'invalid_request');
    expectError(await usage(t.apiKey, '?month=2026-11'), 400, 'invalid_request');
    expect((await usage(t.apiKey, `?cycle=${current.name}`)).body.cycle).toBe(current.name);
  });

  it('needs billing:read (403 insufficient_scope) and a credential (401)', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const make = async (scopes: string[]) =>
      (await s.call('/api/v1/keys', { key: t.apiKey, body: { name: scopes.join(','), scopes } })).body.api_key as string;
    const readOnly = await make(['modules:read']);
    expect(expectError(await usage(readOnly), 403, 'insufficient_scope').required_scope).toBe('billing:read');
    expect((await usage(await make(['billing:read']))).status).toBe(200);
    expectError(await usage(undefined), 401, 'unauthorized');
    expectError(await usage('amp_not_a_key'), 401, 'unauthorized');
    // Another tenant's numbers are never shown: the answer is always the caller's.
    const other = await s.register();
    expect((await usage(other.apiKey)).body.tenant_id).toBe(other.tenantId);
  });

  it("the cycle's executions are read through executions_tenant_created_idx with a half-open range", async () => {
    const { current } = cycles();
    const plan = await s.svc.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const q = executionsByDayAndModule(tx, '00000000-0000-0000-0000-000000000000', current.start, current.end);
      return tx.execute(sql`explain ${q}`);
    });
    const rows = (plan as unknown as { rows: Record<string, string>[] }).rows;
    const text = rows.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('executions_tenant_created_idx');
    expect(text).toMatch(/created_at >= .*created_at < /s);
  });
});
