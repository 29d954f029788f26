import { getReport, listRuns, startRunAsOperator, startRunAsPublisher } from '../../certification/runs';
import { certificationModuleInput, listRunsInput, reportView, runList, startedRunView } from '../../certification/schema';
import { adminProcedure, apiProcedure, router } from '../trpc';

const tags = ['certification'];
const runDescription =
  "Queues a certification run of the module's current version (202): its examples, generated malformed inputs, latency over repeated runs, metadata, and for published modules the http endpoint's signature check or the javascript sandbox's limits (docs/trust.md). Not billed, no execution events. A run of this version already queued or running is returned instead (`shared: true`). When it completes: the tier, the trust score, and `certification.completed` (and `certification.tier_changed` when the tier moved) to the publisher and every tenant that installed the module.";

export const certificationRouter = router({
  run: apiProcedure('modules:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/certification/{module}/run',
        tags,
        summary: 'Certify your module',
        description: `${runDescription} Only the module's publisher may start it here; operators use the admin route.`,
        errorResponses: {
          403: "The module is not yours (`forbidden`: another tenant's public module, a built-in)",
          404: "No such module (or another tenant's private one)",
        },
      },
      successStatus: 202,
    })
    .input(certificationModuleInput)
    .output(startedRunView)
    .mutation(({ ctx, input }) => startRunAsPublisher(ctx.svc, ctx.principal, input.module)),

  report: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/certification/{module}/report',
        tags,
        summary: 'Certification report',
        description:
          "The latest completed certification run of a module visible to the tenant: tier, previous tier, the module's trust score, each check with its detail, the p95 latency against its budget, the tier rule, and the run under way if any. A module never certified: tier `none`, no checks, `ran_at: null`.",
        errorResponses: { 404: 'No such module' },
      },
    })
    .input(certificationModuleInput)
    .output(reportView)
    .query(({ ctx, input }) => getReport(ctx.svc, ctx.principal, input.module)),

  runs: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/certification/{module}/runs',
        tags,
        summary: 'Certification history',
        description:
          'Every certification run of a module visible to the tenant (queued, running, completed, failed) with its checks, newest first, paginated (`limit`, `cursor`).',
        errorResponses: {
          400: 'Invalid query or cursor',
          404: 'No such module',
        },
      },
    })
    .input(listRunsInput)
    .output(runList)
    .query(({ ctx, input }) => listRuns(ctx.svc, ctx.principal, input)),

  runAsOperator: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/certification/{module}/run',
        protect: false,
        tags: ['admin'],
        summary: 'Certify any module (operators)',
        description: `${runDescription} Any module, built-ins included.`,
        errorResponses: { 401: 'Missing or wrong `x-admin-token` (`unauthorized`)', 404: 'No such module' },
      },
      successStatus: 202,
    })
    .input(certificationModuleInput)
    .output(startedRunView)
    .mutation(({ input, ctx }) => startRunAsOperator(ctx.svc, input.module)),
});
