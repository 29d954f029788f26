import { z } from 'zod';
import { actionName, moduleName } from '../catalog/schema';
import { roleSchema } from '../contract/roles';
import { listParams, pageSchema } from '../lib/pagination';

/** Steps per workflow (and so per run). */
export const MAX_WORKFLOW_STEPS = 50;
/** Attempts per step at most (the retry policy's `max_attempts`). */
export const MAX_STEP_ATTEMPTS = 10;
/** A step's own deadline at most: the longest any action may run. */
export const MAX_STEP_TIMEOUT_MS = 120_000;

/** Step ids are identifiers, so that `steps.<id>` reads the same in templates and JSONata. */
export const STEP_ID = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const expression = z.string().min(1).max(2000);

/** A duration: a whole number and a unit, `ms`, `s`, `m`, `h`, `d` or `w` (e.g. `15m`, `24h`, `7d`). */
export const DURATION = /^(\d{1,9})(ms|s|m|h|d|w)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** The longest a step may sleep or wait. */
export const MAX_WAIT_MS = 365 * 86_400_000;

/** Milliseconds of a duration (NaN for a string that is not one). */
export function durationMs(text: string): number {
  const m = DURATION.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : NaN;
}

const duration = z
  .string()
  .regex(DURATION, 'A duration is a whole number and a unit: ms, s, m, h, d or w (e.g. "15m", "24h", "7d")')
  .refine((d) => !DURATION.test(d) || (durationMs(d) >= 1 && durationMs(d) <= MAX_WAIT_MS), 'A duration is between 1 ms and 365 days');

const stepId = z
  .string()
  .regex(STEP_ID, 'Step ids are 1–64 letters, digits and _, starting with a letter')
  .describe('Unique within the workflow');
const dependsOn = z.array(z.string().max(64)).max(MAX_WORKFLOW_STEPS).optional().describe('Ids of the steps that must succeed first');
const condition = expression.optional().describe('JSONata condition over `{input, steps}`; false skips this step and its dependents');

const actionStep = z.strictObject({
  kind: z.literal('action').optional().describe('`action` (the default), `sleep`, `wait_for_event` or `approval`'),
  id: stepId,
  module: moduleName,
  action: actionName,
  input: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'The action input: strings may hold `{{input.x}}` / `{{steps.<id>.output.x}}` references; a string that is one whole reference takes the referenced value with its JSON type',
    ),
  depends_on: dependsOn,
  retry: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(MAX_STEP_ATTEMPTS),
      backoff_ms: z.number().int().min(0).max(3_600_000).default(1000),
      backoff: z.enum(['fixed', 'exponential']).default('exponential'),
    })
    .optional()
    .describe('Attempts of a failing step (module_error, timeout, interrupted); default one attempt'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_STEP_TIMEOUT_MS)
    .optional()
    .describe('Deadline of one attempt (ms); the action\u2019s own deadline applies as well'),
  if: condition,
  map: expression
    .optional()
    .describe('JSONata expression over `{input, steps}` whose result (an object) is merged over the resolved input'),
});

const sleepStep = z
  .strictObject({
    kind: z.literal('sleep'),
    id: stepId,
    for: duration.optional().describe('How long to sleep, e.g. `15m`'),
    until: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('When to wake: an ISO 8601 time, or a template giving one (`{{input.remind_at}}`); a time past wakes at once'),
    depends_on: dependsOn,
    if: condition,
  })
  .refine((s) => (s.for === undefined) !== (s.until === undefined), { message: 'A sleep step has exactly one of `for` and `until`' });

const waitForEventStep = z.strictObject({
  kind: z.literal('wait_for_event'),
  id: stepId,
  event: z.string().min(1).max(100).describe('The event kind to wait for, e.g. `execution.failed`'),
  match: expression
    .optional()
    .describe(
      'JSONata condition over `{event: {id, type, data, created_at}, input, steps}`; without it, the first event of the kind matches',
    ),
  timeout: duration.describe('How long to wait, e.g. `24h`'),
  on_timeout: z
    .enum(['fail', 'continue'])
    .default('fail')
    .describe('`fail` (default): the step fails with `timeout`; `continue`: it succeeds with output `null`'),
  depends_on: dependsOn,
  if: condition,
});

const approvalStep = z.strictObject({
  kind: z.literal('approval'),
  id: stepId,
  prompt: z.string().min(1).max(2000).describe('What the approver is asked; may hold `{{input.x}}` / `{{steps.<id>.output.x}}` references'),
  approvers: z
    .array(z.union([roleSchema, z.email()]))
    .min(1)
    .max(20)
    .optional()
    .describe('Member roles or email addresses who may decide; without it, any member or key with `modules:execute`'),
  timeout: duration.describe('How long to wait for a decision; past it the step fails with `timeout`'),
  depends_on: dependsOn,
  if: condition,
});

export const workflowStep = z
  .discriminatedUnion('kind', [actionStep, sleepStep, waitForEventStep, approvalStep])
  .meta({ id: 'WorkflowStepInput' });

export type WorkflowStepInput = z.infer<typeof workflowStep>;

const workflowId = z.string().min(1).max(64).describe('Workflow identifier (`wf_...`)');
const runId = z.string().min(1).max(64).describe('Run identifier (`run_...`)');

/** Cron: five fields (minute hour day-of-month month day-of-week), or one of the macros. */
export const CRON_MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'] as const;

const runInputTemplate = (reads: string) =>
  z
    .record(z.string(), z.unknown())
    .optional()
    .describe(`The run's input, a template: strings may hold ${reads} references (default \`{}\`)`);

const scheduleTrigger = z
  .strictObject({
    cron: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .describe(
        'Five fields, minute hour day-of-month month day-of-week (`0 9 * * 1-5`), or `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`',
      ),
    timezone: z.string().min(1).max(64).default('UTC').describe('IANA time zone the cron is read in, e.g. `Europe/Paris` (default UTC)'),
    input: runInputTemplate('`{{schedule.tick}}` (the tick, ISO 8601 UTC)'),
  })
  .meta({ id: 'WorkflowSchedule' });

const eventTrigger = z
  .strictObject({
    event: z.string().min(1).max(100).describe('The event kind that starts a run, e.g. `execution.failed`'),
    filter: expression
      .optional()
      .describe('JSONata condition over `{event: {id, type, data, created_at}}`; without it every event of the kind starts a run'),
    input: runInputTemplate('`{{event.data.x}}` (also `{{event.id}}`, `{{event.type}}`, `{{event.created_at}}`)'),
  })
  .meta({ id: 'WorkflowEventTrigger' });

const flowKey = z
  .string()
  .min(1)
  .max(500)
  .optional()
  .describe('A template over the run input (`{{input.customer}}`): runs with different values are counted apart');
const flowPeriod = duration.refine(
  (d) => !DURATION.test(d) || (durationMs(d) >= 1000 && durationMs(d) <= 7 * 86_400_000),
  'A period is between 1 s and 7 days',
);

/**
 * A flow control as a definition sends it (closed: the API refuses unknown members) and as an
 * answer carries it (open: answers may gain members), each its own component.
 */
const flowControl = <T extends z.ZodObject>(fields: T, name: string, description: string) => ({
  input: fields.meta({ id: `${name}Input`, description }),
  view: fields.meta({ id: name, description }),
});
const concurrency = flowControl(
  z.strictObject({
    limit: z.number().int().min(1).max(1000).describe('Runs in progress (started, not finished; waiting ones included) at once'),
    key: flowKey,
  }),
  'WorkflowConcurrency',
  'At most `limit` runs in progress at once (per key); later runs stay `queued` until one finishes',
);
const throttle = flowControl(
  z.strictObject({
    limit: z.number().int().min(1).max(10_000).describe('Runs that may start per period'),
    period: flowPeriod.describe('The sliding window, e.g. `1m`'),
    key: flowKey,
  }),
  'WorkflowThrottle',
  'At most `limit` runs start per `period` (per key); later runs stay `queued` until the window allows',
);
const debounce = flowControl(
  z.strictObject({
    period: flowPeriod.describe('How long starts must stop before the run begins, e.g. `30s`'),
    key: flowKey,
  }),
  'WorkflowDebounce',
  'A start within `period` of a previous one (per key) that has not begun replaces its input and waits `period` again',
);

const definitionFields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).optional(),
  steps: z.array(workflowStep).min(1).max(MAX_WORKFLOW_STEPS),
  schedule: scheduleTrigger.nullable().optional().describe('Start a run on every tick of a cron schedule'),
  on: eventTrigger.nullable().optional().describe('Start a run for every matching event of the tenant'),
  concurrency: concurrency.input.nullable().optional(),
  throttle: throttle.input.nullable().optional(),
  debounce: debounce.input.nullable().optional(),
  priority: z
    .number()
    .int()
    .min(-100)
    .max(100)
    .optional()
    .describe("Its runs' steps go before those of the tenant's workflows with a lower priority (default 0)"),
};

export const createWorkflowInput = z.strictObject(definitionFields);
export const updateWorkflowInput = z.strictObject({ id: workflowId, ...definitionFields });
export const workflowIdInput = z.strictObject({ id: workflowId });
export const listWorkflowsInput = z.strictObject({ ...listParams });

export type CreateWorkflowInput = z.infer<typeof createWorkflowInput>;
export type UpdateWorkflowInput = z.infer<typeof updateWorkflowInput>;

/** A step as answered: every step names its kind, so a client tells them apart by `kind` alone. */
const stepView = z
  .discriminatedUnion('kind', [
    actionStep.extend({
      kind: z.literal('action').default('action').describe('`action`, `sleep`, `wait_for_event` or `approval`'),
      input: z.record(z.string(), z.unknown()),
    }),
    sleepStep,
    waitForEventStep,
    approvalStep,
  ])
  .meta({ id: 'WorkflowStep' });

export const workflowView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int().describe('Goes up by one on every update; a run records the version it started with'),
    steps: z.array(stepView),
    schedule: scheduleTrigger.extend({ input: z.record(z.string(), z.unknown()) }).nullable(),
    next_run_at: z.string().nullable().describe('The schedule\u2019s next tick (null without a schedule)'),
    on: eventTrigger.extend({ input: z.record(z.string(), z.unknown()) }).nullable(),
    concurrency: concurrency.view.nullable(),
    throttle: throttle.view.nullable(),
    debounce: debounce.view.nullable(),
    priority: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Workflow' });

export const workflowList = pageSchema(workflowView);
export const deletedWorkflow = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWorkflow' });

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const STEP_STATUSES = ['pending', 'running', 'waiting', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export const STEP_KINDS = ['action', 'sleep', 'wait_for_event', 'approval'] as const;

export const startRunInput = z.strictObject({
  id: workflowId,
  input: z.record(z.string(), z.unknown()).default({}).describe('Available to steps as `{{input.*}}`'),
  idempotency_key: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('The same key for the same workflow returns the run it started instead of a new one'),
});

export const startedRun = z
  .object({
    run_id: z.string(),
    workflow_id: z.string(),
    workflow_version: z.number().int(),
    status: z.enum(RUN_STATUSES),
  })
  .meta({ id: 'StartedWorkflowRun' });

export const runIdInput = z.strictObject({ id: workflowId, run_id: runId });

export const listRunsInput = z.strictObject({ id: workflowId, status: z.enum(RUN_STATUSES).optional(), ...listParams });

const errorView = z.object({ code: z.string(), message: z.string() });

const waitView = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('sleep'), until: z.string().describe('When the sleep ends') }),
    z.object({
      kind: z.literal('event'),
      event: z.string(),
      match: z.string().nullable(),
      timeout_at: z.string(),
      on_timeout: z.enum(['fail', 'continue']),
    }),
    z.object({
      kind: z.literal('approval'),
      prompt: z.string().describe('The prompt with its references resolved'),
      approvers: z.array(z.string()).describe('Roles or emails who may decide; empty: any member or key with `modules:execute`'),
      timeout_at: z.string(),
    }),
  ])
  .meta({ id: 'WorkflowStepWait' });

export const stepDecisionView = z
  .object({
    decision: z.enum(['approved', 'rejected']),
    comment: z.string().nullable(),
    by: z.object({ type: z.string(), id: z.string().nullable(), email: z.string().nullable().optional() }),
    decided_at: z.string(),
  })
  .meta({ id: 'WorkflowStepDecision' });

export const runStepView = z
  .object({
    id: z.string(),
    kind: z.enum(STEP_KINDS),
    module: z.string().nullable().describe('The action step\u2019s module (null for other kinds)'),
    action: z.string().nullable(),
    status: z.enum(STEP_STATUSES),
    wait: waitView.nullable().describe('What a waiting step waits for (kept once the wait ends)'),
    decision: stepDecisionView.nullable().describe('How an approval step was decided'),
    definition: stepView.describe('The step as the run\u2019s version defines it (what a step not yet started will do)'),
    attempts: z.number().int(),
    input: z.unknown().describe('The input as resolved for the latest attempt (null before it)'),
    output: z.unknown(),
    error: errorView.nullable(),
    execution_ids: z.array(z.string()).describe('One execution record per attempt'),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'WorkflowRunStep' });

const originView = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('api') }),
    z.object({ type: z.literal('schedule'), tick: z.string() }),
    z.object({ type: z.literal('event'), event_id: z.string(), event_type: z.string() }),
    z.object({ type: z.literal('replay'), run_id: z.string().describe('The failed run this one replays') }),
  ])
  .meta({ id: 'WorkflowRunOrigin' });

export const runSummary = z
  .object({
    run_id: z.string(),
    workflow_id: z.string(),
    workflow_version: z.number().int(),
    status: z.enum(RUN_STATUSES),
    origin: originView.describe('How the run started: by a call, a schedule tick, an event, or as a replay'),
    error: errorView.extend({ step: z.string() }).nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'WorkflowRunSummary' });

export const runView = runSummary
  .extend({
    input: z.unknown(),
    output: z.unknown().describe('Outputs of the leaf steps by step id, once completed'),
    steps: z.array(runStepView),
  })
  .meta({ id: 'WorkflowRun' });

export const runList = pageSchema(runSummary);

export const decideStepInput = z.strictObject({
  id: workflowId,
  run_id: runId,
  step: stepId.describe('The approval step\u2019s id'),
  comment: z.string().max(2000).optional().describe('Kept with the decision, and in the step\u2019s output'),
});

export const replayedRun = startedRun
  .extend({ replay_of: z.string().describe('The failed or cancelled run this one replays') })
  .meta({ id: 'ReplayedWorkflowRun' });

const window = {
  since: z.iso.datetime({ offset: true }).optional().describe('Runs created at or after this time (ISO 8601)'),
  until: z.iso.datetime({ offset: true }).optional().describe('Runs created before this time (ISO 8601)'),
};

export const cancelRunsInput = z.strictObject({
  id: workflowId,
  status: z.enum(['queued', 'running']).optional().describe('Only runs in this state (default: both)'),
  ...window,
});

export const replayRunsInput = z.strictObject({
  id: workflowId,
  status: z.enum(['failed', 'cancelled']).default('failed').describe('Replay the failed runs (default) or the cancelled ones'),
  ...window,
});

export const cancelledRuns = z
  .object({
    cancelled: z.number().int(),
    run_ids: z.array(z.string()),
    has_more: z.boolean().describe('More runs matched than one call handles (500): call again'),
  })
  .meta({ id: 'CancelledWorkflowRuns' });

export const replayedRuns = z
  .object({
    replayed: z.number().int(),
    runs: z.array(z.object({ run_id: z.string(), replay_of: z.string(), status: z.enum(RUN_STATUSES) })),
    has_more: z.boolean().describe('More runs matched than one call handles (500): call again'),
  })
  .meta({ id: 'ReplayedWorkflowRuns' });
