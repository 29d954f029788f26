import type { TermsSnapshot } from '../db/schema/billing';
import { sameTerms, snapshotTerms } from './terms';

const DAY_MS = 86_400_000;

/** A change of plan or terms as recorded in `plan_changes` (a `PlanChangeRow` fits). */
export interface TermsChange {
  changedAt: Date;
  toTerms: TermsSnapshot;
}

/** What `prorateFees` prorates: the terms in force when the cycle began and the cycle's changes. */
export interface ProrationInput {
  /** In force at cycle start: `from_terms` of the cycle's first change, else the tenant's current terms. */
  startTerms: TermsSnapshot;
  /** The cycle's `plan_changes` rows, in any order (changes outside the cycle are ignored). */
  changes: readonly TermsChange[];
}

/** One stretch of a cycle on one set of terms, and the share of its monthly fee it costs. */
export interface FeeSegment {
  terms: TermsSnapshot;
  /** Inclusive, UTC midnight. */
  from: Date;
  /** Exclusive, UTC midnight (the next segment's `from`, or the cycle end). */
  to: Date;
  /** Whole UTC days on these terms. */
  days: number;
  /** monthly fee × days / days in the cycle, rounded half-up to an integer number of micro-dollars. */
  fee_micro_usd: number;
}

function utcDay(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS) * DAY_MS;
}

/**
 * Splits a cycle [cycleStart, cycleEnd) into the stretches spent on each set of terms and prices
 * each at its monthly fee × days on it / days in the cycle. Days are whole UTC days; a day on
 * which the terms change counts for the terms with the highest monthly fee in force at any
 * moment of it (the new ones on a tie): an upgrade's day is billed at the new plan, a downgrade's
 * at the old one, and a day spent on business between two changes costs business however briefly
 * (no plan can be had for a day without its fee). The day after, the terms in force at the end of
 * the day take over. Stretches of zero days are left out, so the segments cover the cycle exactly
 * once and their days add up to the days of the cycle. With no change in the cycle there is one
 * segment of the whole cycle at the full fee. Pure: the same input always gives the same output.
 */
export function prorateFees(input: ProrationInput, cycleStart: Date, cycleEnd: Date): FeeSegment[] {
  const start = utcDay(cycleStart);
  const end = utcDay(cycleEnd);
  if (!(end > start)) throw new Error('prorateFees: cycleEnd must be at least one day after cycleStart');
  const cycleDays = Math.round((end - start) / DAY_MS);

  const changes = input.changes
    .filter((c) => c.changedAt.getTime() >= cycleStart.getTime() && c.changedAt.getTime() < cycleEnd.getTime())
    .slice()
    .sort((a, b) => a.changedAt.getTime() - b.changedAt.getTime());

  const stretches: { terms: TermsSnapshot; from: number }[] = [{ terms: input.startTerms, from: start }];
  // Terms from `from` on; a stretch on the same terms as the one before it continues that one.
  const startAt = (terms: TermsSnapshot, from: number) => {
    const last = stretches[stretches.length - 1]!;
    if (last.from === from) {
      stretches.pop();
      const before = stretches[stretches.length - 1];
      if (before && sameTerms(before.terms, terms)) return;
    } else if (sameTerms(last.terms, terms)) return;
    stretches.push({ terms, from });
  };
  let current = input.startTerms;
  for (let i = 0; i < changes.length;) {
    // The changes of one UTC day: the day costs the dearest terms held during it.
    const day = Math.max(start, utcDay(changes[i]!.changedAt));
    let dayTerms = current;
    for (; i < changes.length && Math.max(start, utcDay(changes[i]!.changedAt)) === day; i++) {
      current = changes[i]!.toTerms;
      if (monthlyFee(current) >= monthlyFee(dayTerms)) dayTerms = current;
    }
    startAt(dayTerms, day);
    if (day + DAY_MS < end) startAt(current, day + DAY_MS);
  }

  return stretches.map((s, i) => {
    const to = i + 1 < stretches.length ? stretches[i + 1]!.from : end;
    const days = Math.round((to - s.from) / DAY_MS);
    const monthly = snapshotTerms(s.terms).monthlyFeeMicroUsd;
    // Integer arithmetic, half-up, exact (bigint: a fee near the largest exact amount times 62 is
    // past a safe integer; the result is never more than the monthly fee).
    const fee = days === cycleDays ? monthly : Number((BigInt(monthly) * BigInt(days) * 2n + BigInt(cycleDays)) / BigInt(2 * cycleDays));
    return { terms: s.terms, from: new Date(s.from), to: new Date(to), days, fee_micro_usd: fee };
  });
}

const monthlyFee = (terms: TermsSnapshot) => snapshotTerms(terms).monthlyFeeMicroUsd;

/** The sum of the segments' fees. */
export function totalFees(segments: readonly FeeSegment[]): number {
  return segments.reduce((sum, s) => sum + s.fee_micro_usd, 0);
}
