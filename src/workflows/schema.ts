import { z } from 'zod';
import { actionName, moduleName } from '../catalog/schema';
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

export const workflowStep = z.strictObject({
  id: z.string().regex(STEP_ID, 'Step ids are 1–64 letters, digits and _, starting with a letter').describe('Unique within the workflow'),
  module: moduleName,
  action: actionName,
  input: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'The action input: strings may hold `{{input.x}}` / `{{steps.<id>.output.x}}` references; a string that is one whole reference takes the referenced value with its JSON type',
    ),
  depends_on: z.array(z.string().max(64)).max(MAX_WORKFLOW_STEPS).optional().describe('Ids of the steps that must succeed first'),
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
  if: expression.optional().describe('JSONata condition over `{input, steps}`; false skips this step and its dependents'),
  map: expression
    .optional()
    .describe('JSONata expression over `{input, steps}` whose result (an object) is merged over the resolved input'),
});

export type WorkflowStepInput = z.infer<typeof workflowStep>;

const workflowId = z.string().min(1).max(64).describe('Workflow identifier (`wf_...`)');
const runId = z.string().min(1).max(64).describe('Run identifier (`run_...`)');

const definitionFields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).optional(),
  steps: z.array(workflowStep).min(1).max(MAX_WORKFLOW_STEPS),
};

export const createWorkflowInput = z.strictObject(definitionFields);
export const updateWorkflowInput = z.strictObject({ id: workflowId, ...definitionFields });
export const workflowIdInput = z.strictObject({ id: workflowId });
export const listWorkflowsInput = z.strictObject({ ...listParams });

export type CreateWorkflowInput = z.infer<typeof createWorkflowInput>;
export type UpdateWorkflowInput = z.infer<typeof updateWorkflowInput>;

const stepView = workflowStep.extend({ input: z.record(z.string(), z.unknown()) }).meta({ id: 'WorkflowStep' });

export const workflowView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int().describe('Goes up by one on every update; a run records the version it started with'),
    steps: z.array(stepView),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Workflow' });

export const workflowList = pageSchema(workflowView);
export const deletedWorkflow = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWorkflow' });

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const STEP_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;

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

export const runStepView = z
  .object({
    id: z.string(),
    module: z.string(),
    action: z.string(),
    status: z.enum(STEP_STATUSES),
    attempts: z.number().int(),
    input: z.unknown().describe('The input as resolved for the latest attempt (null before it)'),
    output: z.unknown(),
    error: errorView.nullable(),
    execution_ids: z.array(z.string()).describe('One execution record per attempt'),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'WorkflowRunStep' });

export const runSummary = z
  .object({
    run_id: z.string(),
    workflow_id: z.string(),
    workflow_version: z.number().int(),
    status: z.enum(RUN_STATUSES),
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
