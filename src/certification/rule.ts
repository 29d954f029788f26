/**
 * The numbers and the tier rule of a certification run, in one place: docs/trust.md, the report
 * (`rule`) and llms.txt restate them from here.
 */
import type { CertificationCheck, CertificationTier } from '../db/schema';

/** p95 of the latency samples must be at or under this for the `latency` check. */
export const LATENCY_BUDGET_MS = 2000;
/** Latency samples: each action's first example run this many times (after its example runs). */
export const LATENCY_RUNS_PER_ACTION = 5;
/** Generated malformed inputs per action, at most. */
export const MAX_MALFORMED_PER_ACTION = 12;
/** Characters of the oversized string put in a string field without `maxLength`. */
export const OVERSIZED_STRING_CHARS = 100_000;
/** The whole run: past it the run ends `failed` (and the module keeps its tier). */
export const RUN_DEADLINE_MS = 5 * 60_000;
/** The fair-queue tenant certification runs wait as, so they take turns with tenants' executions. */
export const CERTIFICATION_TENANT = 'certification';

/** The check that is a measurement, not a behaviour: failing it alone keeps a module silver. */
export const LATENCY_CHECK = 'latency';

export const TIERS: readonly CertificationTier[] = ['none', 'bronze', 'silver', 'gold'];

export const TIER_RULE =
  'gold: every check passes (the latency p95 within its budget included); ' +
  'silver: nothing crashed or timed out, and at least 90% of the checks pass or the latency check is the only one failing; ' +
  'bronze: at least 70% of the checks pass; none: otherwise.';

/**
 * The tier of a run's results. `crashed`: an example ended in a module error or timeout, or any
 * run timed out or crashed its worker or sandbox.
 */
export function tierFor(checks: CertificationCheck[], crashed: boolean): CertificationTier {
  const total = checks.length;
  if (total === 0) return 'none';
  const passed = checks.filter((c) => c.passed).length;
  if (passed === total) return 'gold';
  const onlyLatencyFails = checks.every((c) => c.passed || c.name === LATENCY_CHECK);
  if (!crashed && (passed >= 0.9 * total || onlyLatencyFails)) return 'silver';
  if (passed >= 0.7 * total) return 'bronze';
  return 'none';
}

export function tierRank(tier: CertificationTier): number {
  return TIERS.indexOf(tier);
}
