import { submitFeedback } from '../../trust/feedback';
import { getTrust } from '../../trust/read';
import { feedbackInput, feedbackView, trustInput, trustView } from '../../trust/schema';
import { apiProcedure, router } from '../trpc';

const tags = ['trust'];

export const trustRouter = router({
  get: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/trust/{name}',
        tags,
        summary: "A module's trust score",
        description:
          'The trust score (0–100) of a module visible to the tenant, each weighted component with its value (certification tier, 30-day success rate and p95 latency over all tenants, community feedback), the certification tier, the feedback summary and the history of score changes. See docs/trust.md. Exempt from the request limit.',
        errorResponses: {
          400: 'Invalid query',
          404: 'No such module',
        },
      },
      rateLimitExempt: true,
    })
    .input(trustInput)
    .output(trustView)
    .query(({ ctx, input }) => getTrust(ctx.svc, ctx.principal, input)),

  feedback: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/trust/{name}/feedback',
        tags,
        summary: 'Rate a module',
        description:
          "The tenant's rating (1–5) of a module it executed, with an optional comment: 201 the first time, 200 when it replaces the tenant's earlier rating (one per tenant). The score is recomputed at once; a move of 5 points or more emits `trust.score_changed` to the module's publisher and installers.",
        errorResponses: {
          400: 'Invalid body (rating not an integer from 1 to 5, comment over 2000 characters)',
          403: 'The tenant never executed the module, or it is its own module (`forbidden`)',
          404: 'No such module',
        },
      },
      successStatus: 201,
    })
    .input(feedbackInput)
    .output(feedbackView)
    .mutation(async ({ ctx, input }) => {
      const result = await submitFeedback(ctx.svc, ctx.principal, input);
      ctx.res.status = result.status;
      return result.body;
    }),
});
