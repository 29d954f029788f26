import { and, eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import { findVisibleModule } from '../catalog/queries';
import { executions, trustFeedback } from '../db/schema';
import { AppError, notFound } from '../lib/errors';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import type { FeedbackInput } from './schema';
import { recomputeTrustScore } from './score';

/**
 * POST /api/v1/trust/{name}/feedback: the tenant's rating of a module (one per tenant, replaced
 * when it rates again), then the score recomputed in the same transaction. Only a tenant that
 * executed the module may rate it, and a publisher may not rate its own module.
 * 201 when the tenant rated it for the first time, 200 when it replaced its rating.
 */
export async function submitFeedback(svc: Services, principal: Principal, input: FeedbackInput) {
  const found = await findVisibleModule(svc.db, principal.tenantId, input.name, svc.moduleCache);
  if (!found) throw notFound('module');
  const name = found.module.name;
  if (found.module.ownerTenantId === principal.tenantId) throw new AppError('forbidden', 'A publisher cannot rate its own module.');
  const [executed] = await svc.db
    .select({ one: sql<number>`1` })
    .from(executions)
    .where(and(eq(executions.tenantId, principal.tenantId), eq(executions.module, name)))
    .limit(1);
  if (!executed) throw new AppError('forbidden', 'Only a tenant that executed the module may rate it.');
  const comment = input.comment ?? null;
  const result = await unitOfWork(svc, async (tx, out) => {
    const [row] = await tx
      .insert(trustFeedback)
      .values({ moduleName: name, tenantId: principal.tenantId, rating: input.rating, comment })
      .onConflictDoUpdate({
        target: [trustFeedback.moduleName, trustFeedback.tenantId],
        set: { rating: input.rating, comment, updatedAt: sql`now()` },
      })
      .returning({
        rating: trustFeedback.rating,
        comment: trustFeedback.comment,
        createdAt: trustFeedback.createdAt,
        updatedAt: trustFeedback.updatedAt,
        inserted: sql<boolean>`xmax = 0`,
      });
    const recomputed = await recomputeTrustScore(tx, out, name, 'feedback');
    await recordAudit(tx, principal.tenantId, {
      action: 'module.rated',
      target: { type: 'module', id: name },
      changes: { rating: input.rating },
    });
    return { row: row!, recomputed };
  });
  svc.moduleCache.invalidate(name);
  const { row, recomputed } = result;
  return {
    status: row.inserted ? 201 : 200,
    body: {
      module: name,
      rating: row.rating,
      comment: row.comment,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      trust_score: recomputed.score,
    },
  };
}
