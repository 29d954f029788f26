import { z } from 'zod';
import { getExecution, listExecutions, listExecutionsInput, SEARCH_SCAN_LIMIT } from '../../executions/read';
import { pageSchema } from '../../lib/pagination';
import { apiProcedure, router } from '../trpc';

const executionView = z
  .object({
    execution_id: z.string(),
    tenant_id: z.string(),
    module: z.string(),
    action: z.string(),
    status: z.enum(['running', 'success', 'failed']),
    latency_ms: z.number().int().nullable(),
    request_id: z.string(),
    source: z.string(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    input_bytes: z.number().int(),
    output_bytes: z.number().int().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'Execution' });

export const executionsRouter = router({
  list: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/executions',
        tags: ['executions'],
        summary: 'List executions',
        description:
          'Newest first; filters `module`, `status`, and the time range `since` (inclusive) to `until` (exclusive), both ISO 8601.\n\n' +
          '**Search** (`q`, at most 200 characters): an exact execution id answers that execution alone (a primary-key lookup). Otherwise an ' +
          'execution matches when its request id equals `q` (every execution of a batch, chain or MCP call shares its request id), its action ' +
          'name starts with `q` (case-sensitive; `module.action` narrows to a module, e.g. `text.slug`), its error code equals `q` (e.g. ' +
          '`timeout`), or its error message contains `q` (case-insensitive). `%`, `_` and `\\` are matched literally. Always within the ' +
          'tenant, and combined with the other filters.\n\n' +
          `**Cost of a search.** Executions are indexed by (tenant, creation time), not by their text: a search walks the tenant's executions newest ` +
          `first (within \`since\`/\`until\` and after the cursor) and examines at most ${SEARCH_SCAN_LIMIT.toLocaleString('en-US')} of them per page. ` +
          'When that budget runs out before `limit` matches are found, the page holds the matches found so far (possibly none), `has_more` is ' +
          'true and `next_cursor` continues the search from the last execution examined; `searched_back_to` says how far back this page ' +
          'searched (null when nothing older is left). Narrow a search on a large account with `since`/`until`.',
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listExecutionsInput)
    .output(
      pageSchema(executionView).extend({
        searched_back_to: z
          .string()
          .nullable()
          .optional()
          .describe(
            'With `q` only: the creation time (ISO 8601) of the oldest execution this page examined; null when the search examined every execution in range',
          ),
      }),
    )
    .query(({ ctx, input }) => listExecutions(ctx.svc, ctx.principal, input)),

  get: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/executions/{execution_id}',
        tags: ['executions'],
        summary: 'Get an execution with its full output',
        description:
          'One execution of the tenant, with its full output (failed ones with their error). Executions of other tenants are 404.',
        errorResponses: { 404: 'No such execution' },
      },
    })
    .input(z.strictObject({ execution_id: z.string().min(1).max(64) }))
    .output(executionView.extend({ output: z.unknown() }).meta({ id: 'ExecutionDetail' }))
    .query(({ ctx, input }) => getExecution(ctx.svc, ctx.principal, input.execution_id)),
});
