import { z } from 'zod';
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
});
