import { changeTenantPlan, listTenants } from '../../tenants/admin';
import { changePlanInput, listTenantsInput, tenantList, tenantView } from '../../tenants/schema';
import { adminProcedure, router } from '../trpc';
import { enableWebhook } from '../../webhooks/subscriptions';
import { webhookIdInput, webhookView } from '../../webhooks/schema';

const tags = ['admin'];
const errorResponses = { 400: 'Invalid request', 401: 'Wrong or missing x-admin-token', 404: 'Not found (or admin API disabled)' };

export const adminRouter = router({
  listTenants: adminProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/v1/admin/tenants', protect: false, tags, summary: 'List tenants (operators)', errorResponses },
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
        errorResponses,
      },
    })
    .input(webhookIdInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => enableWebhook(ctx.svc, null, input.id)),
});
