import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

interface StepBase {
  id: string;
  depends_on?: string[];
  if?: string;
}

/** A step that runs a module action (the default kind). */
export interface ActionStepDefinition extends StepBase {
  kind?: 'action';
  module: string;
  action: string;
  input: Record<string, unknown>;
  retry?: { max_attempts: number; backoff_ms: number; backoff: 'fixed' | 'exponential' };
  timeout_ms?: number;
  map?: string;
}

/** Waits for a duration (`for`) or until a time (`until`, ISO 8601 or a template giving one). */
export interface SleepStepDefinition extends StepBase {
  kind: 'sleep';
  for?: string;
  until?: string;
}

/** Waits for an event of the tenant that `match` accepts; its output is the event. */
export interface WaitForEventStepDefinition extends StepBase {
  kind: 'wait_for_event';
  event: string;
  match?: string;
  timeout: string;
  on_timeout?: 'fail' | 'continue';
}

/** Waits for a person (or a credential) to approve or reject. */
export interface ApprovalStepDefinition extends StepBase {
  kind: 'approval';
  prompt: string;
  approvers?: string[];
  timeout: string;
}

/** The saved form of a workflow's steps (validated by src/workflows/definition.ts). */
export type WorkflowStepDefinition = ActionStepDefinition | SleepStepDefinition | WaitForEventStepDefinition | ApprovalStepDefinition;
export type WaitingStepDefinition = Exclude<WorkflowStepDefinition, ActionStepDefinition>;

/** What a waiting step waits for, as the step row records it when the wait begins. */
export type StepWait =
  | { kind: 'sleep'; until: string }
  | { kind: 'event'; event: string; match: string | null; timeout_at: string; on_timeout: 'fail' | 'continue' }
  | { kind: 'approval'; prompt: string; approvers: string[]; timeout_at: string };

/** How an approval step was decided. */
export interface StepDecision {
  decision: 'approved' | 'rejected';
  comment: string | null;
  by: { type: string; id: string | null; email?: string | null };
  decided_at: string;
}

/** A workflow's schedule: a cron expression in a time zone, and the run input as a template. */
export interface WorkflowSchedule {
  cron: string;
  timezone: string;
  input?: Record<string, unknown>;
}

/** A workflow's event trigger: an event kind of the tenant, a JSONata filter, the run input as a template. */
export interface WorkflowEventTrigger {
  event: string;
  filter?: string;
  input?: Record<string, unknown>;
}

/** A workflow's flow control: how many of its runs may be in progress, start per period, or be debounced. */
export interface WorkflowFlow {
  concurrency?: { limit: number; key?: string };
  throttle?: { limit: number; period: string; key?: string };
  debounce?: { period: string; key?: string };
}

/** How a run started. */
export type RunOrigin =
  | { type: 'api' }
  | { type: 'schedule'; tick: string }
  | { type: 'event'; event_id: string; event_type: string }
  | { type: 'replay'; run_id: string };

/** A tenant's workflow definition; `version` goes up by one on every update. */
export const workflows = pgTable(
  'workflows',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    version: integer('version').notNull().default(1),
    steps: jsonb('steps').$type<WorkflowStepDefinition[]>().notNull(),
    schedule: jsonb('schedule').$type<WorkflowSchedule>(),
    /** The schedule's next tick; the schedule sweep starts the run of a tick once it has passed. */
    nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date' }),
    trigger: jsonb('trigger').$type<WorkflowEventTrigger>(),
    /** The trigger's event kind, for the listeners' index. */
    triggerEvent: text('trigger_event'),
    /** The scopes (and key) of the credential that saved the definition: its triggered runs run with them. */
    savedScopes: text('saved_scopes').array().notNull().default([]),
    savedKeyId: text('saved_key_id'),
    flow: jsonb('flow').$type<WorkflowFlow>(),
    /** Step jobs of its runs go before those of lower priorities (-100 to 100). */
    priority: integer('priority').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('workflows_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    index('workflows_next_run_idx')
      .on(t.nextRunAt)
      .where(sql`${t.nextRunAt} is not null`),
    index('workflows_trigger_idx')
      .on(t.tenantId, t.triggerEvent)
      .where(sql`${t.triggerEvent} is not null`),
  ],
);

export type WorkflowRow = typeof workflows.$inferSelect;

export type WorkflowRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type WorkflowStepStatus = 'pending' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/**
 * One run of a workflow, with the steps of the version it started with (later edits of the
 * definition do not change a run under way) and the scopes of the credential that started it
 * (each step runs with them).
 */
export const workflowRuns = pgTable(
  'workflow_runs',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    workflowId: text('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    workflowVersion: integer('workflow_version').notNull(),
    steps: jsonb('steps').$type<WorkflowStepDefinition[]>().notNull(),
    status: text('status').$type<WorkflowRunStatus>().notNull().default('queued'),
    input: jsonb('input').notNull(),
    /** The outputs of the leaf steps by step id, once completed. */
    output: jsonb('output'),
    error: jsonb('error').$type<{ step: string; code: string; message: string }>(),
    idempotencyKey: text('idempotency_key'),
    scopes: text('scopes').array().notNull(),
    keyId: text('key_id'),
    requestId: text('request_id').notNull(),
    origin: jsonb('origin').$type<RunOrigin>().notNull().default({ type: 'api' }),
    /** Runs started by an event a triggered run caused, counted: a trigger chain stops at 10. */
    triggerDepth: integer('trigger_depth').notNull().default(0),
    priority: integer('priority').notNull().default(0),
    /** When flow control let the run start (its first steps enqueued); null while it waits its turn. */
    admittedAt: timestamp('admitted_at', { withTimezone: true, mode: 'date' }),
    /** A debounced run starts no earlier than this. */
    startAfter: timestamp('start_after', { withTimezone: true, mode: 'date' }),
    /** The run's keys for its workflow's concurrency, throttle and debounce ('' without a key template). */
    concurrencyKey: text('concurrency_key'),
    throttleKey: text('throttle_key'),
    debounceKey: text('debounce_key'),
    deadlineAt: timestamp('deadline_at', { withTimezone: true, mode: 'date' }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    index('workflow_runs_workflow_idx').on(t.tenantId, t.workflowId, t.createdAt, t.id),
    uniqueIndex('workflow_runs_idempotency_idx').on(t.tenantId, t.workflowId, t.idempotencyKey),
    index('workflow_runs_request_idx').on(t.tenantId, t.requestId),
    index('workflow_runs_waiting_turn_idx')
      .on(t.workflowId, t.createdAt)
      .where(sql`${t.admittedAt} is null and ${t.status} = 'queued'`),
  ],
);

export type WorkflowRunRow = typeof workflowRuns.$inferSelect;

/** One step of one run: its state machine pending -> running -> succeeded|failed (or skipped/cancelled). */
export const workflowRunSteps = pgTable(
  'workflow_run_steps',
  {
    runId: text('run_id')
      .notNull()
      .references(() => workflowRuns.id, { onDelete: 'cascade' }),
    stepId: text('step_id').notNull(),
    tenantId: uuid('tenant_id').notNull(),
    status: text('status').$type<WorkflowStepStatus>().notNull().default('pending'),
    /** Attempts started (the claim of attempt n sets it to n). */
    attempts: integer('attempts').notNull().default(0),
    /** Times an attempt was found abandoned by a worker that died (run again, not counted as an attempt). */
    interruptions: integer('interruptions').notNull().default(0),
    /** Set when the step's first job was enqueued (so a join is enqueued once). */
    scheduledAt: timestamp('scheduled_at', { withTimezone: true, mode: 'date' }),
    input: jsonb('input'),
    output: jsonb('output'),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    executionIds: text('execution_ids').array().notNull().default([]),
    /** What a `waiting` step waits for; `wait_event` copies its event kind for the listeners' index. */
    wait: jsonb('wait').$type<StepWait>(),
    waitEvent: text('wait_event'),
    /** When a sleep ends or a wait times out (a delayed job, and the sweep, wake the step then). */
    wakeAt: timestamp('wake_at', { withTimezone: true, mode: 'date' }),
    decision: jsonb('decision').$type<StepDecision>(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.stepId] }),
    index('workflow_run_steps_listening_idx')
      .on(t.tenantId, t.waitEvent)
      .where(sql`${t.status} = 'waiting'`),
    index('workflow_run_steps_wake_idx')
      .on(t.wakeAt)
      .where(sql`${t.status} = 'waiting'`),
  ],
);

export type WorkflowRunStepRow = typeof workflowRunSteps.$inferSelect;

/**
 * Events a waiting step (or, later, a trigger) of the tenant listens for, noted in the
 * transaction that wrote the event; the event matcher (src/workflows/waits.ts) takes them from here.
 */
export const workflowEventInbox = pgTable('workflow_event_inbox', {
  eventId: text('event_id').primaryKey(),
  tenantId: uuid('tenant_id').notNull(),
  type: text('type').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
