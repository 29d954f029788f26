import { z } from 'zod';
import { checkHealth } from '../../health/check';
import { checkLiveness, checkReadiness } from '../../health/probes';
import { publicProcedure, router } from '../trpc';

const healthOutput = z
  .object({
    status: z.enum(['ok', 'degraded', 'down']),
    version: z.string(),
    checks: z.object({
      database: z.enum(['ok', 'down']),
      redis: z.enum(['ok', 'degraded', 'disabled']),
      jobs: z.enum(['ok', 'down']),
    }),
  })
  .meta({ id: 'Health' });

const liveOutput = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

const readyOutput = z
  .object({
    status: z.enum(['ok', 'not_ready']),
    phase: z.enum(['starting', 'serving', 'draining']),
    checks: z.object({
      database: z.enum(['ok', 'down', 'unknown']),
      redis: z.enum(['ok', 'down', 'unknown', 'disabled']),
      jobs: z.enum(['ok', 'down', 'unknown']),
      migrations: z.enum(['ok', 'pending']),
    }),
  })
  .meta({ id: 'Readiness' });

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
  live: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/health/live',
        protect: false,
        tags: ['discovery'],
        summary: 'Liveness probe',
        description:
          'Public; exempt from the request limit. 200 while the process runs, including while it starts and while it shuts down: restart the instance only when this fails.',
      },
      rateLimitExempt: true,
    })
    .input(z.strictObject({}))
    .output(liveOutput)
    .query(() => checkLiveness()),
  ready: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/health/ready',
        protect: false,
        tags: ['discovery'],
        summary: 'Readiness probe',
        description:
          'Public; exempt from the request limit. 200 only when this instance should receive traffic: the migrations ran, the database answers, Redis answers when one is configured, and the job queue runs. 503 with the same document (`status: "not_ready"`) otherwise, and from the moment a shutdown begins (`phase: "draining"`).',
      },
      rateLimitExempt: true,
      alsoAnswers: { 503: 'Not ready (starting, draining, or a dependency is down): the same document, with `status: "not_ready"`' },
    })
    .input(z.strictObject({}))
    .output(readyOutput)
    .query(async ({ ctx }) => {
      const readiness = await checkReadiness(ctx.svc);
      if (readiness.status !== 'ok') ctx.res.status = 503;
      return readiness;
    }),
});
