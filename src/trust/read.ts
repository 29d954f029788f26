import { and, desc, eq, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { findVisibleModule } from '../catalog/queries';
import { trustComponents, trustFeedback, trustScoreHistory } from '../db/schema';
import { notFound } from '../lib/errors';
import type { Services } from '../services';
import type { TrustInput } from './schema';
import { componentValues, loadInputs, NO_INPUTS, TRUST_WINDOW_DAYS, weightedScore } from './score';

/**
 * GET /api/v1/trust/{name}: the score, the components it was last computed from, the tier,
 * feedback and score history. Exempt from the request limit, so it reads stored rows only: no
 * aggregate over executions (the recomputations store what they read, src/trust/score.ts).
 */
export async function getTrust(svc: Services, principal: Principal, input: TrustInput) {
  const found = await findVisibleModule(svc.db, principal.tenantId, input.name, svc.moduleCache);
  if (!found) throw notFound('module');
  const name = found.module.name;
  const [stored, ratings, mine, history] = await Promise.all([
    svc.db.select().from(trustComponents).where(eq(trustComponents.moduleName, name)),
    svc.db
      .select({ rating: trustFeedback.rating, n: sql<number>`count(*)::int` })
      .from(trustFeedback)
      .where(eq(trustFeedback.moduleName, name))
      .groupBy(trustFeedback.rating),
    svc.db
      .select({ rating: trustFeedback.rating })
      .from(trustFeedback)
      .where(and(eq(trustFeedback.moduleName, name), eq(trustFeedback.tenantId, principal.tenantId))),
    svc.db
      .select()
      .from(trustScoreHistory)
      .where(eq(trustScoreHistory.moduleName, name))
      .orderBy(desc(trustScoreHistory.id))
      .limit(input.history_limit),
  ]);
  // Never scored yet: every component neutral, which is what the default score of 50 means.
  const inputs = stored[0] ? loadInputs(stored[0].inputs) : NO_INPUTS;
  const components = componentValues(inputs);
  const distribution = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 };
  for (const r of ratings) distribution[r.rating as keyof typeof distribution] = r.n;
  const { certification, executions } = inputs;
  const feedback = summarise(ratings);
  const latencySource = executions.p95Ms !== null ? 'executions' : certification?.p95Ms != null ? 'certification' : 'none';
  return {
    module: name,
    trust_score: found.module.trustScore,
    certification_tier: found.module.certificationTier,
    components: {
      certification: { ...components.certification, tier: certification?.tier ?? null, ran_at: certification?.ranAt.toISOString() ?? null },
      success_rate: {
        ...components.success_rate,
        executions: executions.total,
        succeeded: executions.succeeded,
        window_days: TRUST_WINDOW_DAYS,
      },
      latency: { ...components.latency, p95_ms: executions.p95Ms ?? certification?.p95Ms ?? null, source: latencySource },
      feedback: { ...components.feedback, average: roundAverage(inputs.feedback.average), count: inputs.feedback.count },
    },
    computed_score: weightedScore(components),
    computed_at: stored[0]?.computedAt.toISOString() ?? null,
    feedback: { count: feedback.count, average: roundAverage(feedback.average), distribution, your_rating: mine[0]?.rating ?? null },
    history: history.map((h) => ({
      score: h.score,
      previous_score: h.previousScore,
      reason: h.reason,
      changed_at: h.createdAt.toISOString(),
    })),
  };
}

function summarise(ratings: { rating: number; n: number }[]) {
  const count = ratings.reduce((n, r) => n + r.n, 0);
  return { count, average: count === 0 ? null : ratings.reduce((sum, r) => sum + r.rating * r.n, 0) / count };
}

const roundAverage = (average: number | null) => (average === null ? null : Math.round(average * 100) / 100);
