import { createWorkflow, deleteWorkflow, getWorkflow, listWorkflows, updateWorkflow } from '../../workflows/definitions';
import { cancelRun, cancelRuns, getRun, listRuns, replayRun, replayRuns, startRun } from '../../workflows/runs';
import { decideApproval } from '../../workflows/waits';
import {
  cancelledRuns,
  cancelRunsInput,
  createWorkflowInput,
  decideStepInput,
  replayedRun,
  replayedRuns,
  replayRunsInput,
  deletedWorkflow,
  listRunsInput,
  listWorkflowsInput,
  runIdInput,
  runList,
  runView,
  startedRun,
  startRunInput,
  updateWorkflowInput,
  workflowIdInput,
  workflowList,
  workflowView,
} from '../../workflows/schema';
import { apiProcedure, router } from '../trpc';

/** `modules:write` changes definitions, `modules:read` reads, `modules:execute` runs. */
const tags = ['workflows'];
const invalidDefinition =
  'Invalid definition, naming the offending step: duplicate or unknown step ids, a dependency cycle, an unknown module or action, a reference to a step that is not an ancestor (in a template, or in `if`/`map` as `steps.<id>` or `$lookup(steps, "<id>")`), an `if`/`map` that reads `steps` without naming a step (`$lookup(steps, $k)`, `steps.*`), an invalid JSONata expression';

export const workflowsRouter = router({
  create: apiProcedure('modules:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows',
        tags,
        summary: 'Create a workflow',
        description:
          "Steps `{id, module, action, input, depends_on?, retry?, timeout_ms?, if?, map?}` form a DAG (at most 50 steps). Inputs are templates over `{{input.*}}` and `{{steps.<id>.output.*}}` (a whole-value reference keeps its JSON type); `if` and `map` are JSONata over `{input, steps}`, where `steps` holds only the step's ancestors. Version 1.",
        errorResponses: { 400: invalidDefinition, 409: 'Too many workflows' },
      },
      successStatus: 201,
    })
    .input(createWorkflowInput)
    .output(workflowView)
    .mutation(({ ctx, input }) => createWorkflow(ctx.svc, ctx.principal, input)),

  list: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/workflows',
        tags,
        summary: 'List workflows',
        description: 'Newest first.',
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listWorkflowsInput)
    .output(workflowList)
    .query(({ ctx, input }) => listWorkflows(ctx.svc, ctx.principal, input)),

  get: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/workflows/{id}',
        tags,
        summary: 'Get a workflow',
        description: 'The current version of the definition.',
        errorResponses: { 404: 'No such workflow' },
      },
    })
    .input(workflowIdInput)
    .output(workflowView)
    .query(({ ctx, input }) => getWorkflow(ctx.svc, ctx.principal, input.id)),

  update: apiProcedure('modules:write')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/workflows/{id}',
        tags,
        summary: 'Replace a workflow definition',
        description: 'Validated like a new one; the version goes up by one. Runs under way keep the version they started with.',
        errorResponses: { 400: invalidDefinition, 404: 'No such workflow' },
      },
    })
    .input(updateWorkflowInput)
    .output(workflowView)
    .mutation(({ ctx, input }) => updateWorkflow(ctx.svc, ctx.principal, input)),

  delete: apiProcedure('modules:write')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/workflows/{id}',
        tags,
        summary: 'Delete a workflow',
        description: 'Its runs are deleted with it; steps already running finish on their own.',
        errorResponses: { 404: 'No such workflow' },
      },
    })
    .input(workflowIdInput)
    .output(deletedWorkflow)
    .mutation(({ ctx, input }) => deleteWorkflow(ctx.svc, ctx.principal, input.id)),

  startRun: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs',
        tags,
        summary: 'Start a workflow run',
        description:
          'Durable and asynchronous: 202 `{run_id, status: "queued"}`. Steps whose dependencies are done run in parallel, each attempt one execution (quota, records, `execution.*` events with `source: "workflow"`); the run ends with `workflow.completed` or `workflow.failed`. The same `idempotency_key` for the same workflow returns the run it started.',
        errorResponses: { 400: 'Invalid body', 404: 'No such workflow' },
      },
      successStatus: 202,
    })
    .input(startRunInput)
    .output(startedRun)
    .mutation(({ ctx, input }) => startRun(ctx.svc, ctx.principal, input, ctx.requestId)),

  listRuns: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/workflows/{id}/runs',
        tags,
        summary: 'List the runs of a workflow',
        description: 'Newest first; filter `status` (queued, running, completed, failed, cancelled).',
        errorResponses: { 400: 'Invalid query', 404: 'No such workflow' },
      },
    })
    .input(listRunsInput)
    .output(runList)
    .query(({ ctx, input }) => listRuns(ctx.svc, ctx.principal, input)),

  getRun: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/workflows/{id}/runs/{run_id}',
        tags,
        summary: 'Get a workflow run with per-step status',
        description:
          'Each step: status (pending, running, succeeded, failed, skipped, cancelled), attempts, timing, the input as resolved, the output or error, and its execution ids.',
        errorResponses: { 404: 'No such workflow or run' },
      },
    })
    .input(runIdInput)
    .output(runView)
    .query(({ ctx, input }) => getRun(ctx.svc, ctx.principal, input.id, input.run_id)),

  cancelRun: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs/{run_id}/cancel',
        tags,
        summary: 'Cancel a workflow run',
        description: 'Nothing new starts; steps already running finish and record their outcome. The run is `cancelled`.',
        errorResponses: { 404: 'No such workflow or run', 409: 'The run has already finished' },
      },
    })
    .input(runIdInput)
    .output(runView)
    .mutation(({ ctx, input }) => cancelRun(ctx.svc, ctx.principal, input.id, input.run_id)),

  approveStep: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/approve',
        tags,
        summary: 'Approve a waiting approval step',
        description:
          'The step succeeds with `{approved: true, comment, by, decided_at}` as its output and the run goes on. When the step names `approvers`, only a signed-in member with one of those roles or emails may decide.',
        errorResponses: {
          400: 'The step is not an approval step',
          403: 'The caller is not one of the step\u2019s approvers (`reason: not_an_approver`)',
          404: 'No such workflow, run or step',
          409: 'The step is not waiting for a decision (decided, timed out, or the run ended)',
        },
      },
    })
    .input(decideStepInput)
    .output(runView)
    .mutation(({ ctx, input }) => decideApproval(ctx.svc, ctx.principal, input, 'approved')),

  rejectStep: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/reject',
        tags,
        summary: 'Reject a waiting approval step',
        description: 'The step fails with `rejected` (the comment in its message) and the run fails with it (`workflow.failed`).',
        errorResponses: {
          400: 'The step is not an approval step',
          403: 'The caller is not one of the step\u2019s approvers (`reason: not_an_approver`)',
          404: 'No such workflow, run or step',
          409: 'The step is not waiting for a decision (decided, timed out, or the run ended)',
        },
      },
    })
    .input(decideStepInput)
    .output(runView)
    .mutation(({ ctx, input }) => decideApproval(ctx.svc, ctx.principal, input, 'rejected')),

  replayRun: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs/{run_id}/replay',
        tags,
        summary: 'Replay a failed or cancelled run from where it stopped',
        description:
          'A new run (202, `origin: {type: "replay"}`) of the same version and input: the steps that succeeded are copied with their outputs, the others run again. A run is replayed once: asking again answers the same replay.',
        errorResponses: {
          404: 'No such workflow or run',
          409: 'The run did not fail and was not cancelled',
        },
      },
      successStatus: 202,
    })
    .input(runIdInput)
    .output(replayedRun)
    .mutation(({ ctx, input }) => replayRun(ctx.svc, ctx.principal, input.id, input.run_id, ctx.requestId)),

  cancelRuns: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs/cancel',
        tags,
        summary: 'Cancel runs in bulk',
        description:
          'Cancels the queued and running runs matching the filter (oldest first, at most 500 per call; `has_more` when more matched).',
        errorResponses: { 400: 'Invalid body', 404: 'No such workflow' },
      },
    })
    .input(cancelRunsInput)
    .output(cancelledRuns)
    .mutation(({ ctx, input }) => cancelRuns(ctx.svc, ctx.principal, input)),

  replayRuns: apiProcedure('modules:execute')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workflows/{id}/runs/replay',
        tags,
        summary: 'Replay runs in bulk',
        description:
          'Replays the failed (or cancelled) runs matching the filter, each from where it stopped and each once (oldest first, at most 500 per call; `has_more` when more matched).',
        errorResponses: { 400: 'Invalid body', 404: 'No such workflow' },
      },
    })
    .input(replayRunsInput)
    .output(replayedRuns)
    .mutation(({ ctx, input }) => replayRuns(ctx.svc, ctx.principal, input, ctx.requestId)),
});
