import { describe, expect, it } from 'vitest';
import type { TermsSnapshot } from '../db/schema/billing';
import { AppError } from '../lib/errors';
import { draftInvoice, roundToCent } from './close';
import { MAX_MONTHLY_FEE_MICRO_USD, MAX_OVERAGE_UNIT_MICRO_USD, MAX_USD_MICRO } from './money';

const terms = (plan: TermsSnapshot['plan'], over: Partial<TermsSnapshot> = {}): TermsSnapshot => ({
  plan,
  requests_per_minute: null,
  executions_per_month: null,
  overage_unit_micro_usd: null,
  monthly_fee_micro_usd: null,
  ...over,
});
const free = terms('free');
const pro = terms('pro');
const business = terms('business');

// November 2026: 30 days.
const cycleStart = new Date('2026-11-01T00:00:00.000Z');
const cycleEnd = new Date('2026-12-01T00:00:00.000Z');
const change = (iso: string, fromTerms: TermsSnapshot, toTerms: TermsSnapshot) => ({ changedAt: new Date(iso), fromTerms, toTerms });

describe('draftInvoice', () => {
  it('pro, no change, 250 overage executions: 29.00 + 0.25', () => {
    const d = draftInvoice({ currentTerms: pro, changes: [], overage: 250, cycleStart, cycleEnd });
    expect(d.lines).toEqual([
      { description: 'Pro plan, November 2026', quantity: 1, unit_amount_micro_usd: 29_000_000, amount_micro_usd: 29_000_000 },
      { description: 'Overage: 250 executions × 0.001 USD', quantity: 250, unit_amount_micro_usd: 1_000, amount_micro_usd: 250_000 },
    ]);
    expect(d.subtotalMicroUsd).toBe(29_250_000);
    expect(d.totalMicroUsd).toBe(29_250_000);
  });

  it('executions within the quota are a line at 0.00 between the fee and the overage', () => {
    const d = draftInvoice({ currentTerms: pro, changes: [], included: 100_000, overage: 250, cycleStart, cycleEnd });
    expect(d.lines).toEqual([
      { description: 'Pro plan, November 2026', quantity: 1, unit_amount_micro_usd: 29_000_000, amount_micro_usd: 29_000_000 },
      { description: 'Executions included in the plan: 100,000', quantity: 100_000, unit_amount_micro_usd: 0, amount_micro_usd: 0 },
      { description: 'Overage: 250 executions × 0.001 USD', quantity: 250, unit_amount_micro_usd: 1_000, amount_micro_usd: 250_000 },
    ]);
    expect(d.totalMicroUsd).toBe(29_250_000);
  });

  it('free with nothing, and enterprise at fee 0 without overage: total 0 (no invoice is made)', () => {
    expect(draftInvoice({ currentTerms: free, changes: [], overage: 0, cycleStart, cycleEnd })).toEqual({
      lines: [],
      subtotalMicroUsd: 0,
      totalMicroUsd: 0,
    });
    expect(draftInvoice({ currentTerms: terms('enterprise'), changes: [], overage: 0, cycleStart, cycleEnd }).totalMicroUsd).toBe(0);
  });

  it('enterprise custom terms: the fee and overage price set for the tenant', () => {
    const custom = terms('enterprise', {
      monthly_fee_micro_usd: 1_500_000_000,
      executions_per_month: 1_000_000,
      overage_unit_micro_usd: 500,
    });
    const d = draftInvoice({ currentTerms: custom, changes: [], overage: 3, cycleStart, cycleEnd });
    expect(d.lines.map((l) => [l.description, l.amount_micro_usd])).toEqual([
      ['Enterprise plan, November 2026', 1_500_000_000],
      // 3 × 0.0005 = 0.0015, half-up to the cent: 0.00
      ['Overage: 3 executions × 0.0005 USD', 0],
    ]);
    expect(d.totalMicroUsd).toBe(1_500_000_000);
  });

  it('upgrade free -> pro on day 11: prorated lines (days on each plan), the day of the change on the new plan', () => {
    const d = draftInvoice({ currentTerms: pro, changes: [change('2026-11-11T09:30:00Z', free, pro)], overage: 0, cycleStart, cycleEnd });
    expect(d.lines).toEqual([
      { description: 'Free plan, 1 Nov – 10 Nov (10 of 30 days)', quantity: 1, unit_amount_micro_usd: 0, amount_micro_usd: 0 },
      // 29 × 20/30 = 19.333… -> 19.33
      {
        description: 'Pro plan, 11 Nov – 30 Nov (20 of 30 days)',
        quantity: 1,
        unit_amount_micro_usd: 19_330_000,
        amount_micro_usd: 19_330_000,
      },
    ]);
    expect(d.totalMicroUsd).toBe(19_330_000);
  });

  it('the terms at the cycle start come from the first later change, whatever the tenant is on today', () => {
    // Pro all November, moved to business on 5 December: November is billed as pro.
    const d = draftInvoice({
      currentTerms: business,
      changes: [change('2026-12-05T00:00:00Z', pro, business)],
      overage: 0,
      cycleStart,
      cycleEnd,
    });
    expect(d.lines.map((l) => l.description)).toEqual(['Pro plan, November 2026']);
    expect(d.totalMicroUsd).toBe(29_000_000);
  });

  it('overage is priced at the terms in force at the cycle end; a downgrade to free keeps the last metered price', () => {
    const cheap = terms('business', { overage_unit_micro_usd: 500 });
    const upgraded = draftInvoice({
      currentTerms: cheap,
      changes: [change('2026-11-21T00:00:00Z', pro, cheap)],
      overage: 1_000,
      cycleStart,
      cycleEnd,
    });
    expect(upgraded.lines.at(-1)).toEqual({
      description: 'Overage: 1,000 executions × 0.0005 USD',
      quantity: 1_000,
      unit_amount_micro_usd: 500,
      amount_micro_usd: 500_000,
    });
    const downgraded = draftInvoice({
      currentTerms: free,
      changes: [change('2026-11-21T00:00:00Z', pro, free)],
      overage: 1_000,
      cycleStart,
      cycleEnd,
    });
    expect(downgraded.lines.at(-1)).toMatchObject({ quantity: 1_000, unit_amount_micro_usd: 1_000, amount_micro_usd: 1_000_000 });
    // pro 21 of 30 days, the downgrade's day included (20.30) + free 9 days (0) + overage 1.00
    expect(downgraded.totalMicroUsd).toBe(21_300_000);
  });

  it('the subtotal is the sum of the lines as shown (each rounded to the cent)', () => {
    const d = draftInvoice({
      currentTerms: business,
      changes: [change('2026-11-06T00:00:00Z', free, pro), change('2026-11-21T00:00:00Z', pro, business)],
      overage: 7,
      cycleStart,
      cycleEnd,
    });
    for (const l of d.lines) expect(l.amount_micro_usd % 10_000).toBe(0);
    expect(d.subtotalMicroUsd).toBe(d.lines.reduce((s, l) => s + l.amount_micro_usd, 0));
    // free 5 days 0 + pro 15 days 14.50 + business 10 days 99.666667 -> 99.67 + 7 × 0.001 = 0.007 -> 0.01
    expect(d.totalMicroUsd).toBe(14_500_000 + 99_670_000 + 10_000);
  });

  it('at the price caps (10,000,000 USD a month, 1,000 USD an execution) millions of overage executions and a prorated change are exact', () => {
    const top = terms('enterprise', {
      monthly_fee_micro_usd: MAX_MONTHLY_FEE_MICRO_USD,
      overage_unit_micro_usd: MAX_OVERAGE_UNIT_MICRO_USD,
      executions_per_month: 0,
    });
    const d = draftInvoice({
      currentTerms: top,
      changes: [change('2026-11-11T00:00:00Z', pro, top)],
      overage: 8_000_000,
      cycleStart,
      cycleEnd,
    });
    expect(d.lines.map((l) => l.amount_micro_usd)).toEqual([
      9_670_000, // pro 10 of 30 days
      6_666_666_670_000, // 10,000,000 × 20/30 = 6,666,666.67
      8_000_000_000_000_000, // 8,000,000 × 1,000
    ]);
    expect(d.totalMicroUsd).toBe(8_006_666_676_340_000);
    expect(Number.isSafeInteger(d.totalMicroUsd)).toBe(true);
  });

  it('charges past the largest exact amount are refused (409 conflict), never rounded', () => {
    const attempt = (over: Partial<TermsSnapshot>, overage: number) => () =>
      draftInvoice({ currentTerms: terms('pro', { executions_per_month: 0, ...over }), changes: [], overage, cycleStart, cycleEnd });
    for (const [over, overage] of [
      // What an outside check once stored (before the caps): 3 × 9,007,199,254.740991 USD.
      [{ overage_unit_micro_usd: MAX_USD_MICRO, monthly_fee_micro_usd: MAX_USD_MICRO }, 3],
      // The largest fee (exact alone: 9,007,199,254.74) plus 0.01 USD of overage at pro's price.
      [{ monthly_fee_micro_usd: MAX_USD_MICRO }, 10],
      // Lines each exact whose sum is not.
      [{ overage_unit_micro_usd: MAX_OVERAGE_UNIT_MICRO_USD, monthly_fee_micro_usd: MAX_MONTHLY_FEE_MICRO_USD }, 9_000_000],
    ] as const) {
      let thrown: unknown;
      try {
        attempt(over, overage)();
      } catch (err) {
        thrown = err;
      }
      expect(thrown, JSON.stringify(over)).toBeInstanceOf(AppError);
      expect((thrown as AppError).code).toBe('conflict');
      expect((thrown as AppError).status).toBe(409);
      expect((thrown as AppError).message).toContain('9007199254.74 USD');
    }
    // The largest exact overage line is fine.
    expect(attempt({ overage_unit_micro_usd: 1_000, monthly_fee_micro_usd: 0 }, 9_007_199_254_735)().totalMicroUsd).toBe(
      9_007_199_254_740_000,
    );
  });

  it('roundToCent rounds half-up', () => {
    expect(roundToCent(4_999)).toBe(0);
    expect(roundToCent(5_000)).toBe(10_000);
    expect(roundToCent(19_333_333)).toBe(19_330_000);
    expect(roundToCent(99_666_667)).toBe(99_670_000);
  });
});
