import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

/** The saved form of a workflow's steps (validated by src/workflows/definition.ts). */
export interface WorkflowStepDefinition {
  id: string;
  module: string;
  action: string;
  input: Record<string, unknown>;
  depends_on?: string[];
  retry?: { max_attempts: number; backoff_ms: number; backoff: 'fixed' | 'exponential' };
  timeout_ms?: number;
  if?: string;
  map?: string;
}

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
    ...timestamps,
  },
  (t) => [index('workflows_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
);

export type WorkflowRow = typeof workflows.$inferSelect;

export type WorkflowRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type WorkflowStepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

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
    deadlineAt: timestamp('deadline_at', { withTimezone: true, mode: 'date' }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    index('workflow_runs_workflow_idx').on(t.tenantId, t.workflowId, t.createdAt, t.id),
    uniqueIndex('workflow_runs_idempotency_idx').on(t.tenantId, t.workflowId, t.idempotencyKey),
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
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [primaryKey({ columns: [t.runId, t.stepId] })],
);

export type WorkflowRunStepRow = typeof workflowRunSteps.$inferSelect;
