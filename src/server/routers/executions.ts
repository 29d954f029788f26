import { z } from 'zod';
import { getExecution, listExecutions, listExecutionsInput } from '../../executions/read';
import { pageSchema } from '../../lib/pagination';
import { apiProcedure, router } from '../trpc';

const executionView = z.object({
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
});

export const executionsRouter = router({
  list: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/executions',
        tags: ['executions'],
        summary: 'List executions',
        description: 'Newest first; filters `module`, `status`, and the time range `since` (inclusive) to `until` (exclusive), both ISO 8601.',
        errorResponses: { 400: 'Invalid query', 403: 'The credential lacks the scope `modules:read` (`insufficient_scope`)' },
      },
    })
    .input(listExecutionsInput)
    .output(pageSchema(executionView))
    .query(({ ctx, input }) => listExecutions(ctx.svc, ctx.principal, input)),

  get: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/executions/{execution_id}',
        tags: ['executions'],
        summary: 'Get an execution with its full output',
        description: 'One execution of the tenant, with its full output (failed ones with their error). Executions of other tenants are 404.',
        errorResponses: { 403: 'The credential lacks the scope `modules:read` (`insufficient_scope`)', 404: 'No such execution' },
      },
    })
    .input(z.strictObject({ execution_id: z.string().min(1).max(64) }))
    .output(executionView.extend({ output: z.unknown() }))
    .query(({ ctx, input }) => getExecution(ctx.svc, ctx.principal, input.execution_id)),
});
