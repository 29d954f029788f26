import { changeTenantPlan, listTenants } from '../../tenants/admin';
import { changePlanInput, listTenantsInput, tenantList, tenantView } from '../../tenants/schema';
import { adminProcedure, router } from '../trpc';
import { enableWebhook } from '../../webhooks/subscriptions';
import { webhookIdInput, webhookView } from '../../webhooks/schema';

const tags = ['admin'];
const errorResponses = { 401: 'Missing or wrong `x-admin-token` (`unauthorized`)' };

export const adminRouter = router({
  listTenants: adminProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/tenants',
        protect: false,
        tags,
        summary: 'List tenants (operators)',
        description: 'Every tenant with its plan and per-tenant terms, paginated (`limit`, `cursor`).',
        errorResponses,
      },
    })
    .input(listTenantsInput)
    .output(tenantList)
    .query(({ ctx, input }) => listTenants(ctx.svc, input)),

  changePlan: adminProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/admin/tenants/{tenant_id}/plan',
        protect: false,
        tags,
        summary: "Change a tenant's plan (operators)",
        description: '`requests_per_minute` overrides the plan request limit (enterprise "custom"); null clears the override.',
        errorResponses,
      },
    })
    .input(changePlanInput)
    .output(tenantView)
    .mutation(({ ctx, input }) => changeTenantPlan(ctx.svc, input)),

  enableWebhook: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/webhooks/{id}/enable',
        protect: false,
        tags,
        summary: "Re-enable any tenant's webhook subscription (operators)",
        description: 'Sets `active` and resets the consecutive-failure count of a subscription of any tenant, as the tenant\'s own enable does.',
        errorResponses,
      },
    })
    .input(webhookIdInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => enableWebhook(ctx.svc, null, input.id)),
});
