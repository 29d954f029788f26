/**
 * GET /api/v1/billing/plans (and tRPC plans.list): every plan's price, limits, overage and
 * features, generated from PLANS / PLAN_FEATURES (src/tenants/plans.ts). Public: no credential
 * needed; a caller with a key counts against its tenant's pool, one without against its IP's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseUsd } from '../../src/billing/money';
import { PLAN_FEATURES, PLAN_NAMES, PLANS, type Plan } from '../../src/tenants/plans';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

interface Offer {
  plan: Plan;
  self_serve: boolean;
  custom_pricing: boolean;
  monthly_fee_usd: string | null;
  requests_per_minute: number;
  executions_per_month: number | null;
  concurrency: number;
  modules: number | null;
  overage: 'pause' | 'metered' | 'custom';
  overage_unit_usd: string | null;
  features: Record<string, boolean>;
}

backends.describe('plan catalog (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('lists every plan as PLANS and PLAN_FEATURES say, without a credential', async () => {
    const res = await s.call<{ data: Offer[] }>('/api/v1/billing/plans');
    expect(res.status, res.text).toBe(200);
    const offers = res.body.data;
    expect(offers.map((o) => o.plan)).toEqual([...PLAN_NAMES]);
    for (const offer of offers) {
      const row = PLANS[offer.plan];
      expect(offer, offer.plan).toMatchObject({
        requests_per_minute: row.requestsPerMinute,
        executions_per_month: row.executionsPerMonth,
        concurrency: row.concurrency,
        modules: row.modules,
        overage: row.overage,
        custom_pricing: row.overage === 'custom',
        self_serve: offer.plan !== 'enterprise',
      });
      if (row.overage === 'custom') {
        expect(offer.monthly_fee_usd).toBeNull();
        expect(offer.overage_unit_usd).toBeNull();
      } else {
        // The wire's decimal strings read back to the table's micro-dollars exactly.
        expect(parseUsd(offer.monthly_fee_usd!)).toBe(row.priceMicroUsdPerMonth);
        expect(parseUsd(offer.overage_unit_usd!)).toBe(row.overageMicroUsd);
      }
      const rank = PLAN_NAMES.indexOf(offer.plan);
      expect(Object.keys(offer.features).sort()).toEqual(Object.keys(PLAN_FEATURES).sort());
      for (const [feature, { minPlan }] of Object.entries(PLAN_FEATURES))
        expect(offer.features[feature], `${offer.plan} ${feature}`).toBe(rank >= PLAN_NAMES.indexOf(minPlan));
    }
    // The plan table (docs/decisions.md, Plans and limits), in the money format of the tenant's own terms.
    const byName = Object.fromEntries(offers.map((o) => [o.plan, o]));
    expect(byName.free).toMatchObject({ monthly_fee_usd: '0.00', overage: 'pause', features: { webhooks: false, multiple_keys: false } });
    expect(byName.pro).toMatchObject({
      monthly_fee_usd: '29.00',
      overage_unit_usd: '0.001',
      executions_per_month: 50_000,
      features: { webhooks: true, multiple_keys: true },
    });
    expect(byName.business).toMatchObject({ monthly_fee_usd: '299.00', overage_unit_usd: '0.001', requests_per_minute: 1_000 });
    expect(byName.enterprise).toMatchObject({ executions_per_month: null, custom_pricing: true });

    // Without a credential: the client IP's public pool, and no execution header.
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(res.headers.get('x-execution-remaining')).toBeNull();
  });

  it("with a key: the same list, counted against the tenant's pool; the prices match the tenant's own terms", async () => {
    const t = await s.register();
    const res = await s.call<{ data: Offer[] }>('/api/v1/billing/plans', { key: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(PLANS.free.requestsPerMinute));
    expect(res.headers.get('x-execution-remaining')).toBe(String(PLANS.free.executionsPerMonth));
    const anonymous = await s.call<{ data: Offer[] }>('/api/v1/billing/plans');
    expect(res.body).toEqual(anonymous.body);
    const usage = await s.call('/api/v1/billing/usage', { key: t.apiKey });
    const free = res.body.data.find((o) => o.plan === 'free')!;
    expect(usage.body.terms).toMatchObject({
      monthly_fee_usd: free.monthly_fee_usd,
      executions_per_month: free.executions_per_month,
      requests_per_minute: free.requests_per_minute,
    });
  });

  it('answers the dashboard over tRPC without a session, and refuses unknown parameters', async () => {
    const res = await s.call(`/api/trpc/plans.list?input=${encodeURIComponent('{}')}`);
    expect(res.status, res.text).toBe(200);
    const rest = await s.call('/api/v1/billing/plans');
    expect(res.body.result.data).toEqual(rest.body);
    expectError(await s.call('/api/v1/billing/plans?plan=pro'), 400, 'invalid_request');
  });
});
