import { and, desc, eq, gte, lt } from 'drizzle-orm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { executions } from '../db/schema';
import { isoDateTime } from '../lib/dates';
import { decodeCursor, listParams, toPage, beforeCursor } from '../lib/pagination';
import { notFound } from '../lib/errors';
import type { Services } from '../services';
import { presentExecution } from './present';

export const listExecutionsInput = z.strictObject({
  ...listParams,
  module: z.string().max(30).optional(),
  status: z.enum(['running', 'success', 'failed']).optional(),
  since: isoDateTime().optional(),
  until: isoDateTime().optional().describe('Only executions created before this instant (ISO 8601); with `since`, a time range'),
});

/** GET /api/v1/executions/{id}: the record with its full output. Another tenant's is 404. */
export async function getExecution(svc: Services, principal: Principal, id: string) {
  const [row] = await svc.db
    .select()
    .from(executions)
    .where(and(eq(executions.tenantId, principal.tenantId), eq(executions.id, id)))
    .limit(1);
  if (!row) throw notFound('execution');
  return { ...presentExecution(row), output: row.output ?? null };
}

/** GET /api/v1/executions: newest first; filters module, status, since, until. */
export async function listExecutions(svc: Services, principal: Principal, input: z.infer<typeof listExecutionsInput>) {
  const after = decodeCursor(input.cursor);
  const rows = await svc.db
    .select()
    .from(executions)
    .where(
      and(
        eq(executions.tenantId, principal.tenantId),
        input.module ? eq(executions.module, input.module) : undefined,
        input.status ? eq(executions.status, input.status) : undefined,
        input.since ? gte(executions.createdAt, new Date(input.since)) : undefined,
        input.until ? lt(executions.createdAt, new Date(input.until)) : undefined,
        beforeCursor(executions.createdAt, executions.id, after),
      ),
    )
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, (r) => presentExecution(r));
}
