import { and, desc, eq, gte, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import {
  certificationRuns,
  executions,
  modules,
  trustComponents,
  trustFeedback,
  trustScoreHistory,
  type StoredTrustInputs,
} from '../db/schema';
import { unitOfWork, type Outbox } from '../outbox';
import type { Services } from '../services';
import { moduleAudience } from './audience';

export type TrustReason = 'certification' | 'feedback' | 'usage';

/** The components of the trust score and their weights (sum 1); docs/trust.md restates them. */
export const TRUST_WEIGHTS = { certification: 0.4, success_rate: 0.3, latency: 0.1, feedback: 0.2 } as const;
export type TrustComponent = keyof typeof TRUST_WEIGHTS;

/** Value of a component without data (never certified, never executed, never rated). */
export const NEUTRAL_VALUE = 50;
/** Value of the certification component per tier of the latest completed run. */
export const TIER_VALUES = { gold: 100, silver: 80, bronze: 60, none: 20 } as const;
/** Days of execution records the success rate and latency look at. */
export const TRUST_WINDOW_DAYS = 30;
/** p95 latency at or under this is worth 100 ... */
export const LATENCY_BEST_MS = 250;
/** ... and at or over this 0, linear in between. */
export const LATENCY_WORST_MS = 5000;
/** A move of this many points or more emits `trust.score_changed`. */
export const SCORE_CHANGE_THRESHOLD = 5;

/** What the components are computed from. */
export interface TrustInputs {
  certification: { tier: keyof typeof TIER_VALUES; ranAt: Date; p95Ms: number | null } | null;
  /** Finished executions in the window; failures for the caller's own invalid input excluded. */
  executions: { total: number; succeeded: number; p95Ms: number | null };
  feedback: { count: number; average: number | null };
}

export interface ComponentValue {
  value: number;
  weight: number;
}

export type TrustComponents = Record<TrustComponent, ComponentValue>;

export function latencyValue(p95Ms: number): number {
  if (p95Ms <= LATENCY_BEST_MS) return 100;
  if (p95Ms >= LATENCY_WORST_MS) return 0;
  return Math.round((100 * (LATENCY_WORST_MS - p95Ms)) / (LATENCY_WORST_MS - LATENCY_BEST_MS));
}

/** Each component's value (0–100) with its weight; neutral where there is no data. */
export function componentValues(inputs: TrustInputs): TrustComponents {
  const { certification, executions: ex, feedback } = inputs;
  const p95 = ex.p95Ms ?? certification?.p95Ms ?? null;
  const values: Record<TrustComponent, number> = {
    certification: certification ? TIER_VALUES[certification.tier] : NEUTRAL_VALUE,
    success_rate: ex.total > 0 ? Math.round((100 * ex.succeeded) / ex.total) : NEUTRAL_VALUE,
    latency: p95 === null ? NEUTRAL_VALUE : latencyValue(p95),
    feedback: feedback.count > 0 && feedback.average !== null ? Math.round((feedback.average - 1) * 25) : NEUTRAL_VALUE,
  };
  const entries = Object.entries(TRUST_WEIGHTS).map(([name, weight]) => [name, { value: values[name as TrustComponent], weight }]);
  return Object.fromEntries(entries) as TrustComponents;
}

/** The weighted sum, rounded to an integer in 0–100. */
export function weightedScore(components: TrustComponents): number {
  const sum = Object.values(components).reduce((acc, c) => acc + c.value * c.weight, 0);
  return Math.max(0, Math.min(100, Math.round(sum)));
}

/** Reads the inputs of a module's score: its latest completed run, 30 days of executions, feedback. */
export async function trustInputs(db: Executor, moduleName: string): Promise<TrustInputs> {
  const [run] = await db
    .select({ tier: certificationRuns.tier, finishedAt: certificationRuns.finishedAt, p95Ms: certificationRuns.p95Ms })
    .from(certificationRuns)
    .where(and(eq(certificationRuns.moduleName, moduleName), eq(certificationRuns.status, 'completed')))
    .orderBy(desc(certificationRuns.finishedAt))
    .limit(1);
  const since = new Date(Date.now() - TRUST_WINDOW_DAYS * 86_400_000);
  // Uses executions_module_created_idx. A failure for the caller's own invalid input says nothing
  // about the module, so it is left out; interrupted, timed-out and crashed runs count as failures.
  const [ex] = await db
    .select({
      succeeded: sql<number>`count(*) filter (where ${executions.status} = 'success')::int`,
      failed: sql<number>`count(*) filter (where ${executions.status} = 'failed' and ${executions.errorCode} is distinct from 'invalid_input')::int`,
      p95Ms: sql<
        number | null
      >`(percentile_disc(0.95) within group (order by ${executions.latencyMs}) filter (where ${executions.status} = 'success'))::int`,
    })
    .from(executions)
    .where(and(eq(executions.module, moduleName), gte(executions.createdAt, since)));
  const [fb] = await db
    .select({ count: sql<number>`count(*)::int`, average: sql<string | null>`avg(${trustFeedback.rating})` })
    .from(trustFeedback)
    .where(eq(trustFeedback.moduleName, moduleName));
  return {
    certification: run?.tier && run.finishedAt ? { tier: run.tier, ranAt: run.finishedAt, p95Ms: run.p95Ms } : null,
    executions: { total: (ex?.succeeded ?? 0) + (ex?.failed ?? 0), succeeded: ex?.succeeded ?? 0, p95Ms: ex?.p95Ms ?? null },
    feedback: { count: fb?.count ?? 0, average: fb?.average == null ? null : Number(fb.average) },
  };
}

/** No data at all: every component neutral, the score 50 (a module never scored yet). */
export const NO_INPUTS: TrustInputs = {
  certification: null,
  executions: { total: 0, succeeded: 0, p95Ms: null },
  feedback: { count: 0, average: null },
};

export function storeInputs(inputs: TrustInputs): StoredTrustInputs {
  return { ...inputs, certification: inputs.certification && { ...inputs.certification, ranAt: inputs.certification.ranAt.toISOString() } };
}

export function loadInputs(stored: StoredTrustInputs): TrustInputs {
  return { ...stored, certification: stored.certification && { ...stored.certification, ranAt: new Date(stored.certification.ranAt) } };
}

/**
 * Recomputes a module's trust score inside `tx`: writes `modules.trust_score`, what it was
 * computed from (`trust_components`, which GET /trust/{name} shows) and, when it changed, a
 * history row; records `trust.score_changed` for every tenant of the module's
 * audience when it moved by SCORE_CHANGE_THRESHOLD or more. The caller calls
 * `svc.moduleCache.invalidate(moduleName)` after the commit.
 *
 * Locks the module row (`for no key update`: it does not conflict with the key-share locks that
 * inserting rows referencing the module takes), so concurrent recomputations of one module
 * run one after the other, each reading what the previous committed.
 */
export async function recomputeTrustScore(
  tx: Executor,
  out: Outbox,
  moduleName: string,
  reason: TrustReason,
): Promise<{ score: number; previous: number }> {
  const [row] = await tx.select({ score: modules.trustScore }).from(modules).where(eq(modules.name, moduleName)).for('no key update');
  if (!row) return { score: NEUTRAL_VALUE, previous: NEUTRAL_VALUE };
  const inputs = await trustInputs(tx, moduleName);
  const components = componentValues(inputs);
  const score = weightedScore(components);
  const previous = row.score;
  const stored = { inputs: storeInputs(inputs), computedAt: new Date() };
  await tx
    .insert(trustComponents)
    .values({ moduleName, ...stored })
    .onConflictDoUpdate({ target: trustComponents.moduleName, set: stored });
  if (score === previous) return { score, previous };
  await tx.update(modules).set({ trustScore: score }).where(eq(modules.name, moduleName));
  await tx.insert(trustScoreHistory).values({ moduleName, score, previousScore: previous, reason, components });
  if (Math.abs(score - previous) >= SCORE_CHANGE_THRESHOLD) {
    for (const tenantId of await moduleAudience(tx, moduleName)) {
      await out.emit(tenantId, 'trust.score_changed', { module: moduleName, score, previous_score: previous, reason });
    }
  }
  return { score, previous };
}

/**
 * The daily recomputation (src/jobs/trust.ts): every module, one transaction each, so a module
 * whose executions moved its score gets it written and its audience told. Returns how many moved.
 */
export async function recomputeAllTrustScores(svc: Services): Promise<number> {
  const names = await svc.db.select({ name: modules.name }).from(modules).orderBy(modules.name);
  let changed = 0;
  for (const { name } of names) {
    const result = await unitOfWork(svc, (tx, out) => recomputeTrustScore(tx, out, name, 'usage'));
    if (result.score === result.previous) continue;
    changed++;
    svc.moduleCache.invalidate(name);
  }
  return changed;
}
