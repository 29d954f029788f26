import { z } from 'zod';
import { changeOwnPlan } from '../../billing/change-plan';
import { listPlans } from '../../billing/plans';
import { planCatalogView } from '../../billing/schema';
import { describePlans } from '../../tenants/plans';
import { planChangeView, tenantPlanInput } from '../../tenants/schema';
import { apiProcedure, publicProcedure, router } from '../trpc';

export const plansRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/plans',
        protect: false,
        tags: ['billing'],
        summary: 'List the plans with their prices and limits',
        description:
          'Every plan, smallest first: monthly fee, executions per month (null = unlimited), requests per minute, concurrency, installed ' +
          'modules, what happens past the quota and the price per execution there, and which of the features some plans lack ' +
          '(webhooks, multiple keys) each has. Generated from the same table metering, usage and invoices apply. Public: no credential ' +
          "needed (prices are public, as on a pricing page); a request with a valid credential counts against its tenant's request " +
          "pool, one without against the client IP's public pool. The numbers are the plans' list terms: a tenant's own terms (with any " +
          'per-tenant overrides of a custom contract) are in `GET /api/v1/billing/usage` and `GET /api/v1/me`. Enterprise is priced by ' +
          'contract (`custom_pricing: true`, prices null) and set by an operator.\n\n' +
          describePlans(),
      },
    })
    .input(z.strictObject({}))
    .output(planCatalogView)
    .query(() => listPlans()),

  change: apiProcedure('*', undefined, 'billing:write')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/billing/plan',
        tags: ['billing'],
        summary: "Change the tenant's plan",
        description:
          'Moves the tenant to `free`, `pro` or `business`, at once: an upgrade brings its limits, webhooks and extra keys; a downgrade ' +
          "its limits, and keys and webhook subscriptions beyond the new plan's allowance are kept but stop working until the plan allows " +
          'them again (below Pro: only the primary key works, the others answer 403 `plan_required`; no webhook is delivered). The answer ' +
          'lists what was suspended and restored and the terms now in force. The change is recorded for proration of the monthly fee. ' +
          'Asking for the current plan changes nothing (200, `changed: false`). `enterprise` is a custom contract that an operator sets ' +
          '(400). Scope `*`.\n\n' +
          describePlans(),
        errorResponses: {
          400: 'Invalid body, or `enterprise` (to it or off it: an operator changes it) (`invalid_request`)',
        },
      },
    })
    .input(tenantPlanInput)
    .output(planChangeView)
    .mutation(({ ctx, input }) => changeOwnPlan(ctx.svc, ctx.principal.tenantId, input)),
});
