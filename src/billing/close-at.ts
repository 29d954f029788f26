import { nextCycleStart } from '../metering/cycle';

/**
 * The latest instant a close may be asked for, exclusive: the end of the next cycle. A close as of
 * `at` closes every cycle that ended by then, so any `at` before the next cycle ends closes at most
 * the current cycle (early, as documented); a later one would invoice months that have not begun
 * (`9999-12-31` made one close write an invoice for every month until then, for every paying tenant).
 * Kept free of database imports: the billing:close script checks its argument before loading any.
 */
export function closeHorizon(now = new Date()): Date {
  return nextCycleStart(nextCycleStart(now));
}

/** Why a close cannot be asked for as of `at` (a cycle that has not begun would be invoiced), or undefined. */
export function futureCloseRefusal(at: Date, now = new Date()): string | undefined {
  const horizon = closeHorizon(now);
  if (at.getTime() < horizon.getTime()) return undefined;
  return `\`at\` must be before ${horizon.toISOString()}: a later instant would invoice billing cycles that have not begun (an instant before then closes at most the current cycle, early).`;
}
