/** Pure helpers of the usage page (unit-tested in tests/dashboard/usage-cycle.test.ts). */

/** The cycle named by the page's `?cycle=` (a `YYYY-MM` month), if any: a past cycle's view reloads and can be shared. */
export function cycleParam(value: string | null | undefined): string | undefined {
  return value && /^\d{4}-(0[1-9]|1[0-2])$/.test(value) ? value : undefined;
}

/**
 * What the projected (or closed) invoice is made of, in the API's own figures: the monthly fee,
 * or, when the plan changed in the cycle, the fees prorated by days on each plan (the current
 * plan's list fee alone would not add up to the total), plus the overage cost so far.
 */
export function invoiceMakeup(u: { terms: { monthly_fee_usd: string }; plan_changes: unknown[]; overage_cost_usd: string }): string {
  const fee = u.plan_changes.length > 0 ? 'Monthly fees prorated by days on each plan' : `Monthly fee $${u.terms.monthly_fee_usd}`;
  return `${fee} + $${u.overage_cost_usd} overage`;
}
