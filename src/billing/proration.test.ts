import { describe, expect, it } from 'vitest';
import type { TermsSnapshot } from '../db/schema/billing';
import { prorateFees, totalFees } from './proration';
import { snapshotTerms } from './terms';

const terms = (plan: TermsSnapshot['plan'], monthlyFee: number | null = null): TermsSnapshot => ({
  plan,
  requests_per_minute: null,
  executions_per_month: null,
  overage_unit_micro_usd: null,
  monthly_fee_micro_usd: monthlyFee,
});
const free = terms('free');
const pro = terms('pro');
const business = terms('business');

// November 2026: 30 days.
const start = new Date('2026-11-01T00:00:00.000Z');
const end = new Date('2026-12-01T00:00:00.000Z');
const at = (iso: string) => new Date(iso);

describe('prorateFees', () => {
  it('no change: one segment of the whole cycle at the full monthly fee', () => {
    expect(prorateFees({ startTerms: pro, changes: [] }, start, end)).toEqual([
      { terms: pro, from: start, to: end, days: 30, fee_micro_usd: 29_000_000 },
    ]);
    expect(prorateFees({ startTerms: free, changes: [] }, start, end)).toEqual([
      { terms: free, from: start, to: end, days: 30, fee_micro_usd: 0 },
    ]);
  });

  it('mid-cycle upgrade on day 11 of 30: 10 days on the old plan, 20 (the day of the change included) on the new', () => {
    const segments = prorateFees({ startTerms: free, changes: [{ changedAt: at('2026-11-11T15:30:00Z'), toTerms: pro }] }, start, end);
    expect(segments).toEqual([
      { terms: free, from: start, to: at('2026-11-11T00:00:00Z'), days: 10, fee_micro_usd: 0 },
      // 29 USD × 20 / 30 = 19.333333… USD
      { terms: pro, from: at('2026-11-11T00:00:00Z'), to: end, days: 20, fee_micro_usd: 19_333_333 },
    ]);
    const upgrade = prorateFees({ startTerms: pro, changes: [{ changedAt: at('2026-11-11T00:00:00Z'), toTerms: business }] }, start, end);
    // 29 × 10/30 = 9.666667 (half-up), 299 × 20/30 = 199.333333
    expect(upgrade.map((s) => [s.days, s.fee_micro_usd])).toEqual([
      [10, 9_666_667],
      [20, 199_333_333],
    ]);
    expect(totalFees(upgrade)).toBe(209_000_000);
  });

  it('two changes: three segments whose days add up to the cycle; the input order does not matter', () => {
    const changes = [
      { changedAt: at('2026-11-21T09:00:00Z'), toTerms: business },
      { changedAt: at('2026-11-06T23:59:59.999Z'), toTerms: pro },
    ];
    const segments = prorateFees({ startTerms: free, changes }, start, end);
    expect(
      segments.map((s) => ({ plan: s.terms.plan, from: s.from.toISOString(), to: s.to.toISOString(), days: s.days, fee: s.fee_micro_usd })),
    ).toEqual([
      { plan: 'free', from: '2026-11-01T00:00:00.000Z', to: '2026-11-06T00:00:00.000Z', days: 5, fee: 0 },
      { plan: 'pro', from: '2026-11-06T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z', days: 15, fee: 14_500_000 },
      { plan: 'business', from: '2026-11-21T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', days: 10, fee: 99_666_667 },
    ]);
    expect(segments.reduce((d, s) => d + s.days, 0)).toBe(30);
  });

  it('a change on day 1 takes the whole cycle', () => {
    expect(prorateFees({ startTerms: free, changes: [{ changedAt: at('2026-11-01T08:00:00Z'), toTerms: pro }] }, start, end)).toEqual([
      { terms: pro, from: start, to: end, days: 30, fee_micro_usd: 29_000_000 },
    ]);
  });

  it("a downgrade's day is billed at the old plan, the days after at the new one", () => {
    const segments = prorateFees({ startTerms: pro, changes: [{ changedAt: at('2026-11-11T00:00:01Z'), toTerms: free }] }, start, end);
    // 29 × 11/30 = 10.633333
    expect(segments.map((s) => [s.terms.plan, s.from.toISOString(), s.days, s.fee_micro_usd])).toEqual([
      ['pro', start.toISOString(), 11, 10_633_333],
      ['free', '2026-11-12T00:00:00.000Z', 19, 0],
    ]);
  });

  it('several changes on one day: the dearest terms held that day take it, the last ones the days after; changes outside the cycle are ignored', () => {
    const segments = prorateFees(
      {
        startTerms: pro,
        changes: [
          { changedAt: at('2026-10-31T23:59:59Z'), toTerms: free },
          { changedAt: at('2026-11-16T10:00:00Z'), toTerms: business },
          { changedAt: at('2026-11-16T11:00:00Z'), toTerms: free },
          { changedAt: at('2026-12-01T00:00:00Z'), toTerms: business },
        ],
      },
      start,
      end,
    );
    // Up to business at 10:00 and back to free at 11:00: the day costs business, not nothing.
    expect(segments.map((s) => [s.terms.plan, s.days, s.fee_micro_usd])).toEqual([
      ['pro', 15, 14_500_000],
      ['business', 1, 9_966_667],
      ['free', 14, 0],
    ]);
    // Every day an upgrade-then-downgrade: each of those days is billed at business.
    const daily = Array.from({ length: 30 }, (_, d) => [
      { changedAt: new Date(start.getTime() + d * 86_400_000 + 60_000), toTerms: business },
      { changedAt: new Date(start.getTime() + (d + 1) * 86_400_000 - 60_000), toTerms: free },
    ]).flat();
    expect(totalFees(prorateFees({ startTerms: free, changes: daily }, start, end))).toBe(299_000_000);
  });

  it('custom terms: the snapshot fee override is prorated (31-day month)', () => {
    const custom = terms('enterprise', 1_000_000_000);
    const segments = prorateFees(
      { startTerms: terms('enterprise'), changes: [{ changedAt: at('2026-12-26T12:00:00Z'), toTerms: custom }] },
      at('2026-12-01T00:00:00Z'),
      at('2027-01-01T00:00:00Z'),
    );
    // 1,000 USD × 6 / 31 = 193.548387… USD
    expect(segments.map((s) => [s.days, s.fee_micro_usd])).toEqual([
      [25, 0],
      [6, 193_548_387],
    ]);
    expect(snapshotTerms(custom).monthlyFeeMicroUsd).toBe(1_000_000_000);
    expect(snapshotTerms(pro).monthlyFeeMicroUsd).toBe(29_000_000);
  });

  it('rounds half-up to whole micro-dollars', () => {
    // 1 micro-dollar × 15 / 30 = 0.5 -> 1
    const half = prorateFees(
      { startTerms: terms('enterprise'), changes: [{ changedAt: at('2026-11-16T00:00:00Z'), toTerms: terms('enterprise', 1) }] },
      start,
      end,
    );
    expect(half.map((s) => s.fee_micro_usd)).toEqual([0, 1]);
  });

  it('is exact for fees near the largest exact amount (the product passes a safe integer)', () => {
    // 9,007,199,254.740991 USD × 15 / 30 = 4,503,599,627.3704955 -> …370496 micro-dollars (half-up)
    const big = prorateFees(
      {
        startTerms: terms('enterprise'),
        changes: [{ changedAt: at('2026-11-16T00:00:00Z'), toTerms: terms('enterprise', Number.MAX_SAFE_INTEGER) }],
      },
      start,
      end,
    );
    expect(big.map((s) => s.fee_micro_usd)).toEqual([0, 4_503_599_627_370_496]);
  });
});
