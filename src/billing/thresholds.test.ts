import { describe, expect, it } from 'vitest';
import { thresholdEvents } from './thresholds';

const resetAt = new Date('2026-12-01T00:00:00.000Z');
const reservation = (used: number, limit: number | null) => ({
  used,
  limit,
  remaining: limit === null ? null : Math.max(0, limit - used),
  overage: 0,
  resetAt,
});
const types = (plan: 'free' | 'pro' | 'enterprise', used: number, limit: number | null, n = 1) =>
  thresholdEvents({ tenantId: 't', plan }, reservation(used, limit), n).map((e) => e.type);

describe('thresholdEvents', () => {
  it('fires each mark only on the reservation that crosses it', () => {
    expect(types('pro', 39_999, 50_000)).toEqual([]);
    expect(types('pro', 40_000, 50_000)).toEqual(['billing.limit_approaching']);
    expect(types('pro', 40_001, 50_000)).toEqual([]);
    expect(types('pro', 50_000, 50_000)).toEqual(['billing.limit_exceeded']);
    expect(types('pro', 50_001, 50_000)).toEqual([]);
  });

  it('a reservation of several executions can cross both marks; unlimited plans never fire', () => {
    expect(types('free', 1_000, 1_000, 300)).toEqual(['billing.limit_approaching', 'billing.limit_exceeded']);
    expect(types('free', 5, 5, 5)).toEqual(['billing.limit_approaching', 'billing.limit_exceeded']);
    expect(types('enterprise', 1_000_000, null)).toEqual([]);
  });

  it('carries the documented data', () => {
    const [approaching] = thresholdEvents({ tenantId: 't1', plan: 'pro' }, reservation(40_000, 50_000), 1);
    expect(approaching!.data).toEqual({
      tenant_id: 't1',
      plan: 'pro',
      used: 40_000,
      limit: 50_000,
      percent: 80,
      period_end: '2026-12-01T00:00:00.000Z',
    });
    const [exceeded] = thresholdEvents({ tenantId: 't1', plan: 'free' }, reservation(1_000, 1_000), 1);
    expect(exceeded!.data).toMatchObject({ overage: false, used: 1_000, limit: 1_000 });
  });
});
