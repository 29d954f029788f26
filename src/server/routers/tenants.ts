import { z } from 'zod';
import { requestWindow } from '../../metering/requests';
import { whoAmIOutput } from '../../tenants/schema';
import { whoAmI } from '../../tenants/whoami';
import { apiProcedure, router } from '../trpc';

export const tenantsRouter = router({
  me: apiProcedure()
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/me',
        tags: ['auth'],
        summary: 'Who am I',
        description: "The calling credential's tenant, plan, limits and scopes. Any valid credential may call it.",
      },
    })
    .input(z.strictObject({}))
    .output(whoAmIOutput)
    .query(({ ctx }) => whoAmI(ctx.principal)),

  requestRate: apiProcedure()
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/me/rate-limit',
        tags: ['auth'],
        summary: 'Requests in the current rate-limit window',
        description:
          "The tenant's request pool as it stands: the requests counted in the sliding 60-second window (all the tenant's keys and tokens share it), " +
          'the limit, what remains and when capacity next frees up. The same numbers as the `X-RateLimit-*` headers; reading them is exempt from the limit (it does not count).',
      },
      rateLimitExempt: true,
    })
    .input(z.strictObject({}))
    .output(
      z.object({
        limit: z.number().int().describe('Requests per minute the tenant may make (its plan or override)'),
        used: z.number().int().describe('Requests counted in the current 60-second window (at most the limit)'),
        remaining: z.number().int(),
        window_seconds: z.number().int(),
        reset_at: z.string().describe('When the oldest counted requests leave the window (ISO 8601)'),
      }),
    )
    .query(({ ctx }) => requestWindow(ctx.svc, ctx.principal)),
});
