import { and, desc, eq, getTableColumns, gte, ilike, like, lt, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { SEARCH_MAX_LENGTH } from '../contract/limits';
import { executions } from '../db/schema';
import { isoDateTime } from '../lib/dates';
import { decodeCursor, encodeCursor, listParams, toPage, beforeCursor } from '../lib/pagination';
import { notFound } from '../lib/errors';
import type { Services } from '../services';
import { presentExecution } from './present';

export const listExecutionsInput = z.strictObject({
  ...listParams,
  module: z.string().max(30).optional(),
  status: z.enum(['running', 'success', 'failed']).optional(),
  since: isoDateTime().optional(),
  until: isoDateTime().optional().describe('Only executions created before this instant (ISO 8601); with `since`, a time range'),
  q: z
    .string()
    .min(1)
    .max(SEARCH_MAX_LENGTH)
    .optional()
    .describe(
      `Search, at most ${SEARCH_MAX_LENGTH} characters: ` +
        'an exact execution id answers that execution alone; otherwise an execution matches when its request id equals `q`, ' +
        'its action name starts with `q` (or `module.action` prefix, e.g. `text.slug`), its error code equals `q`, or its error message contains `q` ' +
        '(case-insensitive; `%` and `_` are literal)',
    ),
});

/**
 * Executions a search (`q`) examines per page, newest first, through the (tenant_id, created_at)
 * index: a page's cost stays bounded on a tenant with millions of executions. A page whose budget
 * ran out before `limit` matches answers what it found, `has_more: true` and the cursor of the
 * last execution examined, so the next page goes on from there.
 */
export const SEARCH_SCAN_LIMIT = 20_000;

/** `q` as a literal inside a LIKE pattern: its `\`, `%` and `_` escaped (PostgreSQL's default escape is `\`). */
export function escapeLike(q: string): string {
  return q.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** What `q` matches besides an exact execution id (see listExecutionsInput.q). */
function searchMatch(q: string): SQL {
  const literal = escapeLike(q);
  const dot = q.indexOf('.');
  return or(
    eq(executions.requestId, q),
    like(executions.action, `${literal}%`),
    dot > 0 ? and(eq(executions.module, q.slice(0, dot)), like(executions.action, `${escapeLike(q.slice(dot + 1))}%`)) : undefined,
    eq(executions.errorCode, q),
    ilike(executions.errorMessage, `%${literal}%`),
  )!;
}

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

type ListExecutionsInput = z.infer<typeof listExecutionsInput>;

/** GET /api/v1/executions: newest first; filters module, status, since, until; the search `q`. */
export async function listExecutions(svc: Services, principal: Principal, input: ListExecutionsInput) {
  const after = decodeCursor(input.cursor);
  if (input.q !== undefined) return searchExecutions(svc, principal, input, input.q, after);
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

/**
 * `q`: an exact execution id of the tenant (primary key) answers that execution alone, within the
 * other filters. Otherwise one bounded scan: the tenant's executions newest first within
 * since/until and after the cursor (the index's range), at most SEARCH_SCAN_LIMIT of them, each
 * tested against module/status and the search; `row_number` marks the last one examined so the
 * cursor can continue past a budget spent without a full page.
 */
async function searchExecutions(
  svc: Services,
  principal: Principal,
  input: ListExecutionsInput,
  q: string,
  after: ReturnType<typeof decodeCursor>,
) {
  const filters = [
    input.module ? eq(executions.module, input.module) : undefined,
    input.status ? eq(executions.status, input.status) : undefined,
  ];
  const range = [
    eq(executions.tenantId, principal.tenantId),
    input.since ? gte(executions.createdAt, new Date(input.since)) : undefined,
    input.until ? lt(executions.createdAt, new Date(input.until)) : undefined,
    beforeCursor(executions.createdAt, executions.id, after),
  ];
  const [exact] = await svc.db
    .select()
    .from(executions)
    .where(and(eq(executions.id, q), ...range, ...filters))
    .limit(1);
  if (exact) return { ...toPage([exact], input.limit, (r) => presentExecution(r)), searched_back_to: null };

  const scan = svc.db
    .select({
      ...getTableColumns(executions),
      hit: sql<boolean>`coalesce(${and(...filters, searchMatch(q))}, false)`.as('hit'),
      examined: sql<number>`row_number() over (order by ${executions.createdAt} desc, ${executions.id} desc)`
        .mapWith(Number)
        .as('examined'),
    })
    .from(executions)
    .where(and(...range))
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(SEARCH_SCAN_LIMIT)
    .as('scan');
  const rows = await svc.db
    .select()
    .from(scan)
    .where(or(scan.hit, eq(scan.examined, SEARCH_SCAN_LIMIT)))
    .orderBy(desc(scan.createdAt), desc(scan.id))
    .limit(input.limit + 1);
  const hits = rows.filter((r) => r.hit);
  const last = rows.at(-1);
  if (hits.length > input.limit)
    return { ...toPage(hits, input.limit, (r) => presentExecution(r)), searched_back_to: hits[input.limit - 1]!.createdAt.toISOString() };
  // Every execution in range examined: nothing older left to search.
  if (!last || last.examined !== SEARCH_SCAN_LIMIT)
    return { ...toPage(hits, input.limit, (r) => presentExecution(r)), searched_back_to: null };
  // The budget ran out first: what was found, and the cursor past the last execution examined.
  return {
    data: hits.map((r) => presentExecution(r)),
    has_more: true,
    next_cursor: encodeCursor({ at: last.createdAt, id: last.id }),
    searched_back_to: last.createdAt.toISOString(),
  };
}
