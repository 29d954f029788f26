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
        description: 'Answers 503 with the same body when the database is unreachable.',
        errorResponses: { 503: 'Database unreachable (body: the health document with status `down`)' },
      },
      rateLimitExempt: true,
    })
    .input(z.strictObject({}))
    .output(healthOutput)
    .query(async ({ ctx }) => {
      const health = await checkHealth(ctx.svc);
      if (health.status === 'down') ctx.res.status = 503;
      return health;
    }),
});
