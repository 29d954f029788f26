/**
 * The A2A agent behind /api/a2a, built on @a2a-js/sdk's server side: its DefaultRequestHandler
 * with an AgentExecutor that runs one execution per message (through executeAction, the one
 * execute service) or starts a workflow run, and a TaskStore whose tasks are the execution
 * records (`exe_...`) and the workflow runs (`run_...`, see ./workflows.ts).
 *
 * - A message with a data part naming `{module, action, input}` (or `{tool: "module__action",
 *   input}`) runs the action once: the answer is a Task whose id is the execution id, `completed`
 *   with the output as an artifact, or `failed` with the error in its status message (failed
 *   executions are recorded and counted like every other).
 * - A message with a data part naming `{workflow_id, input?, idempotency_key?}` starts a run of
 *   that workflow: the Task is the run. One waiting for an approval is `input-required`, and a
 *   message naming it (`taskId`) with `{decision: "approve" | "reject", step?, comment?}`
 *   answers it; tasks/cancel cancels it (./workflows.ts).
 * - A message without such a part (text only) is answered with a Message explaining how to call.
 * - A call refused before any execution exists (unknown module or action, malformed call, quota,
 *   concurrency or plan limits) is answered as a JSON-RPC error: the executor leaves it on the
 *   request's user (`refusal`) for the transport adapter (./handler.ts), since the SDK turns an
 *   executor's exception into a synthetic failed Task that could never be read back.
 * - tasks/get reads the execution record through the read service: tenant-scoped, so another
 *   tenant's task is "task not found"; durable and shared by every instance. Nothing is kept in
 *   memory across requests (not even the SDK's event bus of a task left `input-required`), and
 *   the record is the only state (`save` has nothing to add).
 */
import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type Message,
  type Part,
  type SendMessageRequest,
  type Task,
} from '@a2a-js/sdk';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
  type TaskStore,
  type User,
} from '@a2a-js/sdk/server';
import type { Principal } from '../../auth/principal';
import { publicCatalog } from '../../discovery/catalog';
import { executeAction, type ExecuteInput } from '../../executions/execute';
import { findUnstorable, unstorableInput } from '../../lib/storable';
import { getExecution } from '../../executions/read';
import type { ExecutionView } from '../../executions/present';
import type { Services } from '../../services';
import { AppError } from '../errors';
import { agentMessage, dataObjects, dataPart, isPlainObject, textPart } from './parts';
import { cancelRunTask, decideRunTask, isRunTaskId, loadRunTask, startRunTask } from './workflows';

/** The authenticated caller of one A2A request, as the SDK's ServerCallContext carries it. */
export class PlatformUser implements User {
  /** A refusal to hand back as a JSON-RPC error instead of the executor's placeholder reply. */
  refusal?: AppError;
  constructor(
    readonly principal: Principal,
    readonly requestId: string,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.principal.tenantId;
  }
}

function platformUser(context: ServerCallContext): PlatformUser {
  const user = context.user;
  if (!(user instanceof PlatformUser)) throw new AppError('internal_error', 'A2A call without an authenticated principal.');
  return user;
}

const TOOL_NAME = /^([a-z][a-z0-9-]{1,29})__([a-z][a-z0-9_]{0,29})$/;

type ParsedCall = { kind: 'call'; call: ExecuteInput } | { kind: 'help' } | { kind: 'invalid'; message: string };

/**
 * What a message asks for: the data parts that name a call (`module` + `action`, or `tool`/`name`
 * as `module__action`; `input` or `arguments` as the input, `{}` when absent). One call per
 * message; a message without any is a request for help.
 */
export function parseCall(message: Message): ParsedCall {
  const calls = dataObjects(message).filter(isCallPart);
  if (calls.length === 0) return { kind: 'help' };
  if (calls.length > 1)
    return { kind: 'invalid', message: 'A message runs one action: send one data part naming {module, action, input}.' };
  const data = calls[0]!;
  let module: unknown = data.module;
  let action: unknown = data.action;
  const tool = data.tool ?? data.name;
  if (module === undefined && action === undefined && typeof tool === 'string') {
    const m = TOOL_NAME.exec(tool);
    if (!m) return { kind: 'invalid', message: `'${tool.slice(0, 80)}' is not a tool name: tool names are <module>__<action>.` };
    [, module, action] = m;
  }
  if (typeof module !== 'string' || typeof action !== 'string' || module === '' || action === '') {
    return {
      kind: 'invalid',
      message: 'The data part must name the action to run: {"module": "<module>", "action": "<action>", "input": {...}}.',
    };
  }
  const input = data.input ?? data.arguments ?? {};
  if (!isPlainObject(input)) return { kind: 'invalid', message: "'input' must be a JSON object (the action's input)." };
  return { kind: 'call', call: { module, action, input } };
}

const isCallPart = (value: Record<string, unknown>) => 'module' in value || 'action' in value || 'tool' in value || 'name' in value;

type ParsedRequest = ParsedCall | { kind: 'start'; data: Record<string, unknown> } | { kind: 'decision'; data: Record<string, unknown> };

/**
 * What a message asks for: one action (parseCall), a workflow run (a data part naming
 * `workflow_id`) or a decision on the approval a run waits for (a data part naming `decision`).
 * One request per message.
 */
export function parseRequest(message: Message): ParsedRequest {
  const parts = dataObjects(message);
  const starts = parts.filter((v) => 'workflow_id' in v);
  const decisions = parts.filter((v) => !('workflow_id' in v) && 'decision' in v);
  if (starts.length + decisions.length === 0) return parseCall(message);
  const calls = parts.filter((v) => !('workflow_id' in v) && !('decision' in v) && isCallPart(v));
  if (starts.length + decisions.length + calls.length > 1)
    return {
      kind: 'invalid',
      message:
        'A message asks for one thing: send one data part naming {module, action, input}, {workflow_id, input} or {decision, step, comment}.',
    };
  return starts.length === 1 ? { kind: 'start', data: starts[0]! } : { kind: 'decision', data: decisions[0]! };
}

/** The fields of an execution record a Task is made of. */
type ExecutionRecord = Pick<ExecutionView, 'execution_id' | 'module' | 'action' | 'status' | 'error' | 'latency_ms' | 'request_id'> & {
  output?: unknown;
  finished_at?: string | null;
  created_at?: string;
};

/**
 * An execution record as an A2A Task: id and context id are the execution id; `success` is
 * `completed` with the output as the artifact `output`, `failed` is `failed` with the error (text
 * and data) in the status message, `running` is `working`.
 */
export function taskOf(e: ExecutionRecord): Task {
  const id = e.execution_id;
  const state =
    e.status === 'success'
      ? TaskState.TASK_STATE_COMPLETED
      : e.status === 'failed'
        ? TaskState.TASK_STATE_FAILED
        : TaskState.TASK_STATE_WORKING;
  const error = e.error ?? { code: 'internal_error', message: 'The execution failed.' };
  return {
    id,
    contextId: id,
    status: {
      state,
      message:
        e.status === 'failed'
          ? agentMessage([textPart(`${error.code}: ${error.message}`), dataPart({ error: error.code, message: error.message })], id, id)
          : undefined,
      timestamp: e.finished_at ?? e.created_at ?? new Date().toISOString(),
    },
    artifacts:
      e.status === 'success'
        ? [
            {
              artifactId: 'output',
              name: 'output',
              description: `Output of ${e.module}.${e.action}`,
              parts: [dataPart(e.output ?? null)],
              metadata: {},
              extensions: [],
            },
          ]
        : [],
    history: [],
    metadata: {
      execution_id: id,
      module: e.module,
      action: e.action,
      status: e.status,
      latency_ms: e.latency_ms,
      request_id: e.request_id,
    },
  };
}

/**
 * Tasks are execution records, read back through the executions read service, and workflow runs,
 * read through the runs service (both tenant-scoped).
 */
export class ExecutionTaskStore implements TaskStore {
  constructor(private readonly svc: Services) {}

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    if (isRunTaskId(taskId)) return loadRunTask(this.svc, platformUser(context).principal, taskId);
    if (!/^exe_[A-Za-z0-9]{1,64}$/.test(taskId)) return undefined;
    try {
      return taskOf(await getExecution(this.svc, platformUser(context).principal, taskId));
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return undefined;
      throw err;
    }
  }

  /** The execution record is the task; the request handler's copies add nothing to keep. */
  async save(): Promise<void> {}

  async list(): Promise<never> {
    throw new UnsupportedOperationError('ListTasks is not supported: list executions with GET /api/v1/executions.');
  }
}

async function helpText(svc: Services): Promise<{ text: string; example: Record<string, unknown> }> {
  const catalog = await publicCatalog(svc.db);
  const categories = [...new Set(catalog.map((m) => m.module.category))];
  const first = catalog.find((m) => m.module.name === 'text') ?? catalog[0];
  const action = first?.actions.find((a) => a.name === 'slugify') ?? first?.actions[0];
  const example = {
    module: first?.module.name ?? 'text',
    action: action?.name ?? 'slugify',
    input: (action?.examples[0]?.input as Record<string, unknown> | undefined) ?? { text: 'Hello World' },
  };
  const text = [
    'This agent runs module actions: one execution per message, counted against your monthly quota.',
    `Send a message with a data part naming the action: ${JSON.stringify(example)} (or {"tool": "<module>__<action>", "input": {...}}).`,
    'The answer is a Task whose artifact "output" holds the result; read it again with tasks/get (GetTask) and its id.',
    'It also runs your workflows: a data part {"workflow_id": "wf_...", "input": {...}} starts a run, whose Task (id run_...) you read with tasks/get;',
    'a run waiting for an approval is input-required with the prompt, and a message with taskId = the run id and a data part {"decision": "approve"} (or "reject", with an optional "step" and "comment") answers it; tasks/cancel cancels the run.',
    `Skills (module categories): ${categories.join(', ')}. Actions and their input schemas: GET /api/v1/modules and GET /api/v1/modules/{name}, or the MCP endpoint /api/mcp.`,
  ].join(' ');
  return { text, example };
}

/**
 * Runs the message's call once, starts its workflow run or decides its run's approval, and
 * publishes the Task; anything else is answered with a Message.
 */
class ModuleActionExecutor implements AgentExecutor {
  constructor(private readonly svc: Services) {}

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const user = platformUser(rc.context);
    const reply = (parts: Part[]) => bus.publish(AgentEvent.message(agentMessage(parts, '', rc.contextId)));
    try {
      const parsed = parseRequest(rc.userMessage);
      if (rc.task && isRunTaskId(rc.taskId)) {
        // A message naming a run (not finished: see PlatformRequestHandler) answers its approval.
        if (parsed.kind !== 'decision')
          throw new AppError(
            'invalid_request',
            `Task ${rc.taskId} is a workflow run: a message naming it answers the approval it waits for, with one data part {"decision": "approve" | "reject", "step": "<step>", "comment": "..."}.`,
          );
        bus.publish(AgentEvent.task(await decideRunTask(this.svc, user.principal, rc.taskId, parsed.data)));
        return;
      }
      if (parsed.kind === 'decision')
        throw new AppError(
          'invalid_request',
          "A decision answers a workflow run that waits for an approval: send it with the run id (run_...) as the message's taskId.",
        );
      if (parsed.kind === 'start') {
        bus.publish(AgentEvent.task(await startRunTask(this.svc, user.principal, parsed.data, user.requestId)));
        return;
      }
      if (parsed.kind === 'help') {
        const help = await helpText(this.svc);
        reply([textPart(help.text), dataPart({ example: help.example })]);
        return;
      }
      if (parsed.kind === 'invalid') throw new AppError('invalid_request', parsed.message);
      // As REST refuses such input before the procedure runs (400 invalid_request): not an execution.
      const unstorable = findUnstorable(parsed.call.input);
      if (unstorable !== undefined) throw unstorableInput(`input.${unstorable}`);
      let task: Task;
      try {
        const done = await executeAction(this.svc, user.principal, parsed.call, { requestId: user.requestId, source: 'a2a' });
        task = taskOf({ ...done, error: null, finished_at: new Date().toISOString() });
      } catch (err) {
        const execution = err instanceof AppError ? (err.details.execution as ExecutionView | undefined) : undefined;
        if (!execution) throw err;
        task = taskOf(execution);
      }
      bus.publish(AgentEvent.task(task));
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'internal_error')
        this.svc.logger.error({ err, requestId: user.requestId }, 'a2a execution failed');
      user.refusal = err instanceof AppError ? err : new AppError('internal_error');
      reply([textPart(user.refusal.message)]);
    } finally {
      bus.finished();
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    throw new TaskNotCancelableError(`Task ${taskId} cannot be canceled: executions run to completion.`);
  }
}

const TERMINAL_STATES = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** A task state's name as A2A 0.3 writes it (`completed`, `input-required`), for messages. */
export function stateName(state: TaskState): string {
  const name = TaskState[state] as string | undefined;
  return name
    ? name
        .replace(/^TASK_STATE_/, '')
        .toLowerCase()
        .replaceAll('_', '-')
    : 'unknown';
}

/**
 * The SDK's request handler, except for cancelation and continuing a task. Cancelation: an
 * execution runs to completion, and one still running may belong to another request or instance
 * (the SDK would record a `canceled` status for a task it has no executor for, which the
 * execution record would contradict); a run is canceled through the runs service. Continuing:
 * see sendMessage. Every request ends its event bus, whatever the task's state: the SDK would
 * keep an `input-required` task's bus in memory for a follow-up on the same instance, but the
 * follow-up (a decision) reads the run again, on whichever instance it reaches.
 */
class PlatformRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: ExecutionTaskStore,
    executor: AgentExecutor,
    private readonly svc: Services,
  ) {
    super(card, tasks, executor, new DefaultExecutionEventBusManager(), undefined, undefined, undefined, undefined, {
      keepBusAliveStates: [],
    });
  }

  /**
   * A message naming an existing task continues it. An execution is finished (or another
   * request's), and so is a finished run: such a message is refused as the SDK would refuse it,
   * but naming the state (`completed`) rather than its internal enum number. A run that is not
   * finished takes a decision on its approval (the executor).
   */
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const taskId = params.message?.taskId;
    if (taskId) {
      const task = await this.tasks.load(taskId, context);
      if (!task) throw new TaskNotFoundError(`Task not found: ${taskId}`);
      const state = task.status?.state;
      if (state !== undefined && TERMINAL_STATES.has(state)) {
        const why = isRunTaskId(task.id)
          ? 'the workflow run has finished, so it waits for no decision.'
          : 'every message is its own task, so send the next one without taskId.';
        throw new UnsupportedOperationError(`Task ${task.id} is in a terminal state (${stateName(state)}) and cannot be modified: ${why}`);
      }
    }
    return super.sendMessage(params, context);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    if (isRunTaskId(params.id)) return cancelRunTask(this.svc, platformUser(context).principal, params.id);
    if (!(await this.tasks.load(params.id, context))) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    throw new TaskNotCancelableError(`Task not cancelable: ${params.id} (executions run to completion).`);
  }
}

/** The SDK request handler for one Services instance (stateless: tasks live in the executions and workflow runs tables). */
export function createRequestHandler(svc: Services, card: AgentCard): DefaultRequestHandler {
  return new PlatformRequestHandler(card, new ExecutionTaskStore(svc), new ModuleActionExecutor(svc), svc);
}
