import { usageInput, usageView } from '../../billing/schema';
import { getUsage } from '../../billing/usage';
import { apiProcedure, router } from '../trpc';

export const billingRouter = router({
  usage: apiProcedure('billing:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/usage',
        tags: ['billing'],
        summary: 'Usage of a billing cycle',
        description:
          "The cycle's start and end (calendar months in UTC; the quota resets at `cycle_end`), the plan and effective terms, executions used, " +
          'limit, remaining and overage with its cost so far, the projected invoice total (monthly fee, prorated by days on each plan when the ' +
          'plan changed in the cycle, plus overage), the cycle’s plan changes, and breakdowns per UTC day (executions, failures, requests) and ' +
          'per module. Execution numbers are counted from the execution records, so REST, batch, chain, MCP, A2A and workflow executions each ' +
          'count once. `?cycle=YYYY-MM` reads a past cycle (back to the month the tenant registered). Money is USD decimal strings.',
        errorResponses: {
          400: 'Invalid request (`invalid_request`, with `issues`): `cycle` not written `YYYY-MM`, a cycle that has not begun, or one before the tenant registered',
        },
      },
    })
    .input(usageInput)
    .output(usageView)
    .query(({ ctx, input }) => getUsage(ctx.svc, ctx.principal.tenantId, input)),
});
