/**
 * MCP tools for workflows: `workflows__start`, `workflows__get_run` and `workflows__decide`, for
 * agents. They call the same service functions as REST and tRPC (src/workflows/runs.ts,
 * waits.ts). The tools/call gate already requires `modules:execute`; reading a run needs
 * `modules:read` as well. A run waiting for an approval lists it in `pending_approvals`, with the
 * `workflows__decide` call that answers it.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import { holdsScope } from '../../contract/scopes';
import { hasWorkflows } from '../../workflows/definitions';
import { getRun, startRun } from '../../workflows/runs';
import { decideStepInput, runIdInput, startRunInput } from '../../workflows/schema';
import { decideApproval, pendingApprovals } from '../../workflows/waits';
import type { Services } from '../../services';
import { AppError, insufficientScope, notFound } from '../errors';
import { findUnstorable, unstorableInput } from '../../lib/storable';
import { parseArgs } from './arguments';
import type { ConnectionScope } from './catalog';

const START = 'workflows__start';
const GET_RUN = 'workflows__get_run';
const DECIDE = 'workflows__decide';

export const WORKFLOW_TOOLS: Tool[] = [
  {
    name: START,
    title: 'Workflows: start a run',
    description:
      'Start a run of one of your workflows (durable, asynchronous). Returns {run_id, status: "queued"}; poll workflows__get_run for per-step status and outputs. Each step attempt counts one execution. The same idempotency_key returns the same run.',
    inputSchema: {
      type: 'object',
      properties: {
        workflow_id: { type: 'string', description: 'The workflow (`wf_...`)' },
        input: { type: 'object', description: 'The run input, read by steps as {{input.*}}' },
        idempotency_key: { type: 'string', description: 'Optional: a repeated key returns the run it started' },
      },
      required: ['workflow_id'],
    },
  },
  {
    name: GET_RUN,
    title: 'Workflows: get a run',
    description:
      'A workflow run with its status (queued, running, completed, failed, cancelled), each step\u2019s status, attempts, resolved input, output or error, and the outputs of the leaf steps once completed.',
    inputSchema: {
      type: 'object',
      properties: {
        workflow_id: { type: 'string', description: 'The workflow (`wf_...`)' },
        run_id: { type: 'string', description: 'The run (`run_...`)' },
      },
      required: ['workflow_id', 'run_id'],
    },
  },
  {
    name: DECIDE,
    title: 'Workflows: approve or reject a step',
    description:
      'Answer an approval step a run waits on (listed in the run\u2019s pending_approvals): approve, and the run goes on; reject, and the run fails. Only the step\u2019s approvers may decide when it names some.',
    inputSchema: {
      type: 'object',
      properties: {
        workflow_id: { type: 'string', description: 'The workflow (`wf_...`)' },
        run_id: { type: 'string', description: 'The run (`run_...`)' },
        step: { type: 'string', description: 'The approval step\u2019s id' },
        decision: { type: 'string', enum: ['approve', 'reject'] },
        comment: { type: 'string', description: 'Optional: kept with the decision' },
      },
      required: ['workflow_id', 'run_id', 'step', 'decision'],
    },
  },
];

export const isWorkflowTool = (name: string) => name === START || name === GET_RUN || name === DECIDE;

/**
 * The first page of tools/list of an unnarrowed connection ends with the workflow tools, once the
 * tenant has a workflow (before that they could only fail).
 */
export async function withWorkflowTools(
  svc: Services,
  principal: Principal,
  tools: Tool[],
  cursor: string | undefined,
  scope: ConnectionScope,
): Promise<Tool[]> {
  if (cursor || scope.modules || !(await hasWorkflows(svc, principal.tenantId))) return tools;
  return [...tools, ...WORKFLOW_TOOLS];
}

const startArgs = z.strictObject({
  workflow_id: z.string(),
  input: startRunInput.shape.input,
  idempotency_key: startRunInput.shape.idempotency_key,
});
const getRunArgs = z.strictObject({ workflow_id: z.string(), run_id: z.string() });
const decideArgs = z.strictObject({
  workflow_id: z.string(),
  run_id: z.string(),
  step: z.string(),
  decision: z.enum(['approve', 'reject']),
  comment: z.string().optional(),
});

const result = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
});
const failure = (err: AppError): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify({ error: err.code, message: err.message, ...err.details }) }],
});

/**
 * What the procedure chain refuses on REST before the service runs (src/server/trpc.ts): text
 * PostgreSQL cannot hold names nothing in an id (404) and is a 400 anywhere else.
 */
function assertStorable(args: Record<string, unknown> | undefined): void {
  const at = findUnstorable(args ?? {});
  if (at === 'workflow_id') throw notFound('workflow');
  if (at === 'run_id') throw notFound('run');
  if (at !== undefined) throw unstorableInput(at);
}

/** tools/call of a workflow tool; domain errors are `isError` results the model can read. */
export async function callWorkflowTool(
  svc: Services,
  principal: Principal,
  name: string,
  args: Record<string, unknown> | undefined,
  requestId: string,
): Promise<CallToolResult> {
  try {
    if (name === START) {
      assertStorable(args);
      const parsed = parseArgs(startArgs, args);
      // The arguments passed above; only the id can still fail (empty, or longer than any id): no such workflow.
      const input = startRunInput.safeParse({ id: parsed.workflow_id, input: parsed.input, idempotency_key: parsed.idempotency_key });
      if (!input.success) throw notFound('workflow');
      return result(await startRun(svc, principal, input.data, requestId));
    }
    if (name === DECIDE) return result(await decide(svc, principal, args));
    if (!holdsScope(principal.scopes, 'modules:read')) throw insufficientScope('modules:read');
    assertStorable(args);
    const parsed = getRunArgs.safeParse(args ?? {});
    if (!parsed.success) throw new AppError('invalid_request', 'Invalid arguments: workflow_id and run_id are required strings.');
    const ids = runIdInput.safeParse({ id: parsed.data.workflow_id, run_id: parsed.data.run_id });
    if (!ids.success) throw new AppError('not_found', 'No such run.');
    return result(withPendingApprovals(await getRun(svc, principal, ids.data.id, ids.data.run_id)));
  } catch (err) {
    if (err instanceof AppError && err.code !== 'internal_error') return failure(err);
    throw err;
  }
}

type RunView = Awaited<ReturnType<typeof getRun>>;

/** The run, with each approval it waits on and the tool call that answers it. */
function withPendingApprovals(run: RunView) {
  const pending = pendingApprovals(run.steps);
  return {
    ...run,
    pending_approvals: pending.map((p) => ({
      ...p,
      answer_with: {
        tool: DECIDE,
        arguments: { workflow_id: run.workflow_id, run_id: run.run_id, step: p.step, decision: 'approve | reject' },
      },
    })),
  };
}

async function decide(svc: Services, principal: Principal, args: Record<string, unknown> | undefined) {
  assertStorable(args);
  const { workflow_id, run_id, step, decision, comment } = parseArgs(decideArgs, args);
  const input = decideStepInput.safeParse({ id: workflow_id, run_id, step, ...(comment === undefined ? {} : { comment }) });
  if (!input.success) throw notFound('step');
  const run = await decideApproval(svc, principal, input.data, decision === 'approve' ? 'approved' : 'rejected');
  return withPendingApprovals(run);
}
