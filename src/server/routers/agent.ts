import { z } from 'zod';
import { armAgent, armInput } from '../../agent/arm';
import { batchInput, runBatch } from '../../executions/batch';
import { chainInput, runChain } from '../../executions/chain';
import { apiProcedure, router } from '../trpc';

const callResult = z
  .object({
    module: z.string(),
    action: z.string(),
    status: z.enum(['success', 'failed']),
    output: z.unknown().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    latency_ms: z.number().int(),
    execution_id: z.string().nullable(),
  })
  .meta({ id: 'CallResult' });

export const agentRouter = router({
  batch: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/batch',
        tags: ['agent'],
        summary: 'Run up to 10 actions in parallel',
        description:
          'Body `{calls: [{id?, module, action, input}]}` (1–10; otherwise 400 and nothing runs). Each result carries its call\'s `id`, or the call\'s index (`"0"`, `"1"`, ...) when it has none; ids must be unique among them: a repeated id, or an id equal to the index of a call without one, is 400 naming it (`issues[0].path` e.g. `calls.3.id`) and nothing runs. Results in call order, each `success` or `failed` with its error. Counts one request and one execution per call; a call refused by the quota (`quota_exceeded`) or by concurrency (`concurrency_limit_exceeded`: the plan\'s executions in flight are all taken, or the machine is saturated and the execution could not start within a bounded wait) fails alone, with that code, and is not counted.',
        errorResponses: {
          400: 'No calls, more than 10, an invalid call, or a duplicate call id',
        },
      },
    })
    .input(batchInput)
    .output(
      z.object({
        data: z.array(callResult.extend({ id: z.string() }).meta({ id: 'BatchCallResult' })),
        succeeded: z.number().int(),
        failed: z.number().int(),
      }),
    )
    .mutation(({ ctx, input }) => runBatch(ctx.svc, ctx.principal, input, ctx.requestId)),

  chain: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/chain',
        tags: ['agent'],
        summary: 'Pipe output through several actions',
        description:
          "Body `{input, steps: [{module, action, input?, map?}]}` (1–10 steps). Each step's input is its own `input` with the previous output (the chain's `input` for the first step) merged over it, reshaped first by `map` (a JSONata expression) when given; a non-object output is passed as `{value}`. Every `map` is parsed before any step runs: one that does not parse is 400 `invalid_request` naming it (`issues[0].path` e.g. `steps.1.map`, the message says where in the expression), and nothing runs or is counted; a `map` that fails when evaluated fails its step (`invalid_input`, no execution). Stops at the first failure (`failed_step`), a step refused by the quota (`quota_exceeded`) or by concurrency (`concurrency_limit_exceeded`: the plan's executions in flight are all taken, or the machine is saturated and the execution could not start within a bounded wait; not counted) included. Counts one request and one execution per executed step.",
        errorResponses: {
          400: 'Invalid body, or a `map` that is not valid JSONata',
        },
      },
    })
    .input(chainInput)
    .output(
      z.object({
        status: z.enum(['success', 'failed']),
        output: z.unknown(),
        failed_step: z.number().int().nullable(),
        steps: z.array(callResult),
      }),
    )
    .mutation(({ ctx, input }) => runChain(ctx.svc, ctx.principal, input, ctx.requestId)),

  arm: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/agent/arm',
        tags: ['agent'],
        summary: 'The whole toolkit in one call',
        description:
          "Body `{agent_id?, format?: 'openai'|'anthropic'|'mcp', query?}`. Returns tenant, plan, limits, usage, rate limit, endpoints, memory and the tools in the asked format (names `module__action`): the actions matching `query`, else the installed modules' actions, else every visible action.",
        errorResponses: { 400: 'Invalid body' },
      },
    })
    .input(armInput)
    .output(z.record(z.string(), z.unknown()))
    .mutation(({ ctx, input }) => armAgent(ctx.svc, ctx.principal, input)),
});
