import { listAuditLogAsOperator } from '../../audit/list';
import { adminAuditLogPage, adminListAuditLogInput } from '../../audit/schema';
import { changeTenantPlan, getTenantDetail, listTenants } from '../../tenants/admin';
import { restoreTenant } from '../../tenants/deletion';
import {
  adminPlanChangeView,
  adminTenantDetail,
  adminTenantDetailInput,
  changePlanInput,
  listTenantsInput,
  restoredTenant,
  restoreTenantInput,
  tenantList,
} from '../../tenants/schema';
import { adminProcedure, router } from '../trpc';
import { enableWebhook } from '../../webhooks/subscriptions';
import { recoverInput, recoverResult, testInput, testResult, webhookIdInput, webhookView } from '../../webhooks/schema';
import { sendTestEvent } from '../../webhooks/test-event';
import { recoverEvents } from '../../webhooks/recover';
import { listDisabledWebhooks, listFailedDeliveries } from '../../webhooks/admin';
import { adminDisabledWebhookList, adminFailedDeliveryList, adminPageInput } from '../../webhooks/admin-schema';

const tags = ['admin'];
const errorResponses = {
  401: "Missing or wrong `x-admin-token`, and no operator's bearer token (`unauthorized`)",
  403: 'A bearer token of someone who is not an operator (ADMIN_EMAILS, email confirmed) (`forbidden`)',
};

export const adminRouter = router({
  auditLog: adminProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/audit-log',
        protect: false,
        tags,
        summary: 'List the audit log across tenants (operators)',
        description:
          "Every tenant's audit entries and operators' own (`tenant_id` null when on no tenant), newest first, paginated; the filters of `GET /api/v1/audit-log` plus `tenant_id`.",
        errorResponses: { 400: 'Invalid query (`invalid_request`, with `issues`)', ...errorResponses },
      },
    })
    .input(adminListAuditLogInput)
    .output(adminAuditLogPage)
    .query(({ ctx, input }) => listAuditLogAsOperator(ctx.svc, input)),

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

  // The dashboard's tenant page (tRPC only, no REST route): plan, this cycle's usage, keys,
  // webhooks and the latest failed deliveries of one tenant.
  tenant: adminProcedure
    .input(adminTenantDetailInput)
    .output(adminTenantDetail)
    .query(({ ctx, input }) => getTenantDetail(ctx.svc, input.tenant_id)),

  changePlan: adminProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/admin/tenants/{tenant_id}/plan',
        protect: false,
        tags,
        summary: "Change a tenant's plan and per-tenant terms (operators)",
        description:
          'Sets the plan and, for custom contracts, per-tenant terms: `requests_per_minute`, `executions_per_month`, `overage_unit_usd` and ' +
          '`monthly_fee_usd` (USD as a decimal string or number, non-negative, at most 6 decimals; at most 1000 per execution and 10000000 a month, so every invoice stays exact). Each one absent keeps the current value; ' +
          "`null` clears it back to the plan's. Takes effect at once (metering, headers, billing events, invoices). The same service as " +
          "`PUT /api/v1/billing/plan`: the change is recorded for proration, and keys and webhook subscriptions beyond the new plan's " +
          'allowance are suspended (or restored), as the answer lists.',
        errorResponses: { 400: 'Invalid body (`invalid_request`, with `issues`)', ...errorResponses, 404: 'No such tenant' },
      },
    })
    .input(changePlanInput)
    .output(adminPlanChangeView)
    .mutation(({ ctx, input }) => changeTenantPlan(ctx.svc, input)),

  restoreTenant: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/tenants/{tenant_id}/restore',
        protect: false,
        tags,
        summary: 'Restore a deleted tenant (operators)',
        description:
          'A tenant deleted by its owner and not yet purged comes back with its members and data. Its keys stay revoked (the owner creates new ones); its webhooks resume. Its owner email comes back unless another tenant took it meanwhile (`owner_email_restored`). 409 when it is not deleted, or already purged.',
        errorResponses: { ...errorResponses, 404: 'No such tenant', 409: 'Not deleted, or purged' },
      },
    })
    .input(restoreTenantInput)
    .output(restoredTenant)
    .mutation(({ ctx, input }) => restoreTenant(ctx.svc, input.tenant_id)),

  enableWebhook: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/webhooks/{id}/enable',
        protect: false,
        tags,
        summary: "Re-enable any tenant's webhook subscription (operators)",
        description:
          "Sets `active` and resets the consecutive-failure count of a subscription of any tenant, as the tenant's own enable does.",
        errorResponses,
      },
    })
    .input(webhookIdInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => enableWebhook(ctx.svc, null, input.id)),

  // The Admin page's test send before re-enabling a tenant's subscription (tRPC only, no REST
  // route): the tenant's own test (POST /api/v1/webhooks/{id}/test) on a subscription of any tenant.
  testWebhook: adminProcedure
    .input(testInput)
    .output(testResult)
    .mutation(({ ctx, input }) => sendTestEvent(ctx.svc, null, input)),

  recoverWebhook: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/webhooks/{id}/recover',
        protect: false,
        tags,
        summary: "Recover a tenant's missed webhook events (operators)",
        description:
          "The tenant's own recover, for a subscription of any tenant: re-sends the events in [since, until) it has not received (same event ids; 7 days back, 10,000 per call). The subscription must be active: enable it first.",
        errorResponses: {
          ...errorResponses,
          400: 'Invalid body or window',
          404: 'No such webhook',
          409: 'The subscription is disabled, or a poll subscription',
        },
      },
      successStatus: 202,
    })
    .input(recoverInput)
    .output(recoverResult)
    .mutation(({ ctx, input }) => recoverEvents(ctx.svc, null, input)),

  disabledWebhooks: adminProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/webhooks/disabled',
        protect: false,
        tags,
        summary: 'List disabled webhook subscriptions of every tenant (operators)',
        description:
          'Subscriptions the service disabled after repeated failed deliveries, most recently disabled first, each with its tenant ' +
          '(`tenant_id`, `agent_name`, `owner_email`); paginated (`limit`, `cursor`). Re-enable one with `POST /api/v1/admin/webhooks/{id}/enable`.',
        errorResponses: { 400: 'Invalid query', ...errorResponses },
      },
    })
    .input(adminPageInput)
    .output(adminDisabledWebhookList)
    .query(({ ctx, input }) => listDisabledWebhooks(ctx.svc, input)),

  failedDeliveries: adminProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/webhooks/failed-deliveries',
        protect: false,
        tags,
        summary: 'List failed webhook deliveries of every tenant (operators)',
        description:
          'Deliveries whose every attempt failed, newest first, with their attempts (status codes, latency, error, response excerpt), ' +
          'the subscription and its receiver URL and the tenant; paginated (`limit`, `cursor`).',
        errorResponses: { 400: 'Invalid query', ...errorResponses },
      },
    })
    .input(adminPageInput)
    .output(adminFailedDeliveryList)
    .query(({ ctx, input }) => listFailedDeliveries(ctx.svc, input)),
});
