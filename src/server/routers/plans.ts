import { changeOwnPlan } from '../../billing/change-plan';
import { describePlans } from '../../tenants/plans';
import { planChangeView, tenantPlanInput } from '../../tenants/schema';
import { apiProcedure, router } from '../trpc';

export const plansRouter = router({
  change: apiProcedure('*')
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
          403: 'The credential lacks the scope `*` (`insufficient_scope`)',
        },
      },
    })
    .input(tenantPlanInput)
    .output(planChangeView)
    .mutation(({ ctx, input }) => changeOwnPlan(ctx.svc, ctx.principal.tenantId, input)),
});
