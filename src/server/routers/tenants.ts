import { z } from 'zod';
import { requestWindow } from '../../metering/requests';
import { whoAmIOutput } from '../../tenants/schema';
import { whoAmI } from '../../tenants/whoami';
import { deleteTenant } from '../../tenants/deletion';
import { exportTenant } from '../../tenants/export';
import { deletedTenant, deleteTenantInput, tenantExport } from '../../tenants/schema';
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

  export: apiProcedure()
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/tenant/export',
        tags: ['auth'],
        summary: "Export the tenant's data",
        description:
          'One JSON document: the tenant, members, keys (never their secrets), webhooks (never their secrets or header values) with delivery counts, executions, memory, workflows and runs, invoices and the audit log. The longest histories are capped, newest first, and say so with `truncated`. The owner (signed in) or a `*` key; anyone else 403.',
        errorResponses: { 403: 'Not the owner or a `*` key' },
      },
    })
    .input(z.strictObject({}))
    .output(tenantExport)
    .query(({ ctx }) => exportTenant(ctx.svc, ctx.principal)),

  delete: apiProcedure()
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/tenant/delete',
        tags: ['auth'],
        summary: 'Delete the tenant',
        description:
          'The signed-in owner deletes the tenant, typing its name in `confirm`. At once every key is revoked, webhook deliveries stop, workflow runs are cancelled and no member acts for it; its data is purged after the grace period (`purge_after`, 30 days), except its invoices, which are kept as the law requires. An operator can restore it until then.',
        errorResponses: { 400: 'Invalid body, or `confirm` is not the tenant name', 403: 'Not the signed-in owner' },
      },
    })
    .input(deleteTenantInput)
    .output(deletedTenant)
    .mutation(({ ctx, input }) => deleteTenant(ctx.svc, ctx.principal, input.confirm)),
});
