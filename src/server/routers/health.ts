import { z } from 'zod';
import { checkHealth } from '../../health/check';
import { publicProcedure, router } from '../trpc';

const healthOutput = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  version: z.string(),
  checks: z.object({
    database: z.enum(['ok', 'down']),
    redis: z.enum(['ok', 'degraded', 'disabled']),
    jobs: z.enum(['ok', 'down']),
  }),
});

export const healthRouter = router({
  check: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/health',
        protect: false,
        tags: ['discovery'],
        summary: 'Health check',
        description:
          'Public; exempt from the request limit. Answers 503 with the same body (`status: "down"`) when the database is unreachable; Redis and the job queue degrade the status without failing it.',
      },
      rateLimitExempt: true,
      alsoAnswers: { 503: 'The database is unreachable: the same health document, with `status: "down"`' },
    })
    .input(z.strictObject({}))
    .output(healthOutput)
    .query(async ({ ctx }) => {
      const health = await checkHealth(ctx.svc);
      if (health.status === 'down') ctx.res.status = 503;
      return health;
    }),
});
