/**
 * Workflow runs as A2A tasks, for the agent in ./agent.ts: "an agent proposes, a person approves,
 * the run continues". The run is the task: its id and context id are the run id (`run_...`).
 *
 * - A message with a data part `{workflow_id, input?, idempotency_key?}` starts a run (startRun).
 * - tasks/get of a run id reads the run (getRun): queued is `submitted`, running `working`, a run
 *   waiting for an approval `input-required` (the prompt as text, and a data part
 *   `{pending_approvals, answer_with}`), completed `completed` with the artifact `outputs`,
 *   failed `failed` with the error, cancelled `canceled`.
 * - A message with `taskId` = the run id and a data part `{decision: "approve" | "reject", step?,
 *   comment?}` answers the approval (decideApproval); `step` defaults to the only pending one.
 * - tasks/cancel cancels the run (cancelRun).
 *
 * Every rule is the workflow services' (src/workflows/runs.ts, waits.ts): this file checks the
 * shape of the arguments, as the MCP tools do (src/server/mcp/workflows.ts), and maps runs to tasks.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import { findUnstorable, unstorableInput } from '../../lib/storable';
import type { Services } from '../../services';
import { findRunWorkflow } from '../../workflows/lookup';
import { cancelRun, getRun, startRun } from '../../workflows/runs';
import { decideStepInput, startRunInput } from '../../workflows/schema';
import { decideApproval, pendingApprovals } from '../../workflows/waits';
import { AppError, conflict, invalidRequest, notFound } from '../errors';
import { agentMessage, dataPart, textPart } from './parts';

type RunView = Awaited<ReturnType<typeof getRun>>;

/** A task id that can name a run (anything else is no run: "task not found"). */
export const isRunTaskId = (id: string) => /^run_[A-Za-z0-9]{1,64}$/.test(id);

const STATES: Record<RunView['status'], TaskState> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
};

const ACTIVE = new Set<RunView['status']>(['queued', 'running']);

/** What a client sends to answer the run's pending approvals (the `answer_with` of an input-required task). */
function answerWith(runId: string, steps: string[]) {
  return {
    task_id: runId,
    data: { decision: 'approve | reject', step: steps.join(' | '), comment: '(optional) kept with the decision' },
    description: `Send a message with taskId ${runId} and one data part {"decision": "approve" | "reject", "step": "<step>", "comment": "..."}: approve and the run goes on, reject and it fails. "step" may be left out while one approval is pending.`,
  };
}

/** A run (as getRun presents it) as an A2A Task. */
export function taskOfRun(run: RunView): Task {
  const id = run.run_id;
  const pending = ACTIVE.has(run.status) ? pendingApprovals(run.steps) : [];
  const state = pending.length > 0 ? TaskState.TASK_STATE_INPUT_REQUIRED : STATES[run.status];
  const error = run.error ?? { step: null, code: 'internal_error', message: 'The run failed.' };
  const message =
    pending.length > 0
      ? agentMessage(
          [
            textPart(pending.length === 1 ? pending[0]!.prompt : pending.map((p) => `${p.step}: ${p.prompt}`).join('\n')),
            dataPart({
              pending_approvals: pending,
              answer_with: answerWith(
                id,
                pending.map((p) => p.step),
              ),
            }),
          ],
          id,
          id,
        )
      : run.status === 'failed'
        ? agentMessage(
            [
              textPart(`${error.code}: ${error.message}`),
              dataPart({ error: error.code, message: error.message, step: error.step ?? null }),
            ],
            id,
            id,
          )
        : undefined;
  return {
    id,
    contextId: id,
    status: { state, message, timestamp: run.finished_at ?? run.started_at ?? run.created_at },
    artifacts:
      run.status === 'completed'
        ? [
            {
              artifactId: 'outputs',
              name: 'outputs',
              description: `Outputs of workflow ${run.workflow_id}: the output of each leaf step, by step id`,
              parts: [dataPart(run.output ?? {})],
              metadata: {},
              extensions: [],
            },
          ]
        : [],
    history: [],
    metadata: {
      run_id: id,
      workflow_id: run.workflow_id,
      workflow_version: run.workflow_version,
      status: run.status,
      steps: run.steps.map((s) => ({ id: s.id, kind: s.kind, status: s.status })),
    },
  };
}

/** The tenant's run with this id, or undefined (another tenant's run is none). */
async function readRun(svc: Services, principal: Principal, runId: string): Promise<RunView | undefined> {
  if (!isRunTaskId(runId)) return undefined;
  const workflowId = await findRunWorkflow(svc, principal.tenantId, runId);
  if (!workflowId) return undefined;
  try {
    return await getRun(svc, principal, workflowId, runId);
  } catch (err) {
    // Deleted with its workflow in between.
    if (err instanceof AppError && err.code === 'not_found') return undefined;
    throw err;
  }
}

/** tasks/get of a run id. */
export async function loadRunTask(svc: Services, principal: Principal, runId: string): Promise<Task | undefined> {
  const run = await readRun(svc, principal, runId);
  return run && taskOfRun(run);
}

const issuesOf = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

/** Text PostgreSQL cannot hold names nothing in an id (404) and is a 400 anywhere else, as on REST. */
function assertStorable(data: Record<string, unknown>, ids: Record<string, () => AppError>): void {
  const at = findUnstorable(data);
  if (at === undefined) return;
  throw ids[at]?.() ?? unstorableInput(at);
}

const startArgs = z.strictObject({
  workflow_id: z.string(),
  input: startRunInput.shape.input,
  idempotency_key: startRunInput.shape.idempotency_key,
});

/** A message's `{workflow_id, input?, idempotency_key?}`: starts a run and answers its task. */
export async function startRunTask(svc: Services, principal: Principal, data: Record<string, unknown>, requestId: string): Promise<Task> {
  assertStorable(data, { workflow_id: () => notFound('workflow') });
  const parsed = startArgs.safeParse(data);
  if (!parsed.success) throw invalidRequest(`Invalid workflow run request: ${issuesOf(parsed.error)}`);
  // The arguments passed above; only the id can still fail (empty, or longer than any id): no such workflow.
  const input = startRunInput.safeParse({
    id: parsed.data.workflow_id,
    input: parsed.data.input,
    idempotency_key: parsed.data.idempotency_key,
  });
  if (!input.success) throw notFound('workflow');
  const started = await startRun(svc, principal, input.data, requestId);
  return taskOfRun(await getRun(svc, principal, started.workflow_id, started.run_id));
}

const decisionArgs = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  step: z.string().optional(),
  comment: z.string().optional(),
});

/** A message naming a run (`taskId`) with `{decision, step?, comment?}`: decides the approval, answers the run's task. */
export async function decideRunTask(svc: Services, principal: Principal, runId: string, data: Record<string, unknown>): Promise<Task> {
  assertStorable(data, { step: () => notFound('step') });
  const parsed = decisionArgs.safeParse(data);
  if (!parsed.success) throw invalidRequest(`Invalid decision: ${issuesOf(parsed.error)}`);
  const run = await readRun(svc, principal, runId);
  // The request handler found the task before the executor ran: gone since (deleted with its workflow).
  if (!run) throw notFound('run');
  let step = parsed.data.step;
  if (step === undefined) {
    const pending = pendingApprovals(run.steps);
    if (pending.length === 0) throw conflict(`Run ${runId} is not waiting for a decision (${run.status}).`);
    if (pending.length > 1)
      throw invalidRequest(
        `Run ${runId} waits for ${pending.length} approvals (${pending.map((p) => p.step).join(', ')}): name the one you decide as "step".`,
        [{ path: 'step', message: 'required while several approvals are pending' }],
      );
    step = pending[0]!.step;
  }
  const input = decideStepInput.safeParse({ id: run.workflow_id, run_id: runId, step, comment: parsed.data.comment });
  if (!input.success) {
    if (input.error.issues.some((i) => i.path[0] === 'step')) throw notFound('step');
    throw invalidRequest(`Invalid decision: ${issuesOf(input.error)}`);
  }
  const decided = await decideApproval(svc, principal, input.data, parsed.data.decision === 'approve' ? 'approved' : 'rejected');
  return taskOfRun(decided);
}

/** tasks/cancel of a run id: cancels the run; a finished one is not cancelable. */
export async function cancelRunTask(svc: Services, principal: Principal, runId: string): Promise<Task> {
  const workflowId = isRunTaskId(runId) ? await findRunWorkflow(svc, principal.tenantId, runId) : undefined;
  if (!workflowId) throw new TaskNotFoundError(`Task not found: ${runId}`);
  try {
    return taskOfRun(await cancelRun(svc, principal, workflowId, runId));
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') throw new TaskNotFoundError(`Task not found: ${runId}`);
    if (err instanceof AppError && err.code === 'conflict')
      throw new TaskNotCancelableError(`Task ${runId} cannot be canceled: ${err.message}`);
    throw err;
  }
}
