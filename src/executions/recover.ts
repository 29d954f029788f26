import { and, eq, lt } from 'drizzle-orm';
import { executions } from '../db/schema';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import { executionEventData } from './present';

/**
 * Closes executions left `running` by a crashed process as failed (`interrupted`), each with its
 * `execution.failed` event, so usage keeps matching recorded executions. Only rows older than
 * `olderThanMs` are touched: on PostgreSQL other live instances may still be running theirs.
 */
export async function closeInterruptedExecutions(svc: Services, olderThanMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs);
  return unitOfWork(svc, async (tx, out) => {
    const stale = await tx
      .update(executions)
      .set({
        status: 'failed',
        errorCode: 'interrupted',
        errorMessage: 'The service stopped while the action was running.',
        finishedAt: new Date(),
      })
      .where(and(eq(executions.status, 'running'), lt(executions.createdAt, cutoff)))
      .returning();
    for (const row of stale) await out.emit(row.tenantId, 'execution.failed', executionEventData(row, undefined));
    return stale.length;
  });
}
