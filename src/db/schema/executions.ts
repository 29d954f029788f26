import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from './tenants';

/**
 * One row per module action execution. Created `running` in the transaction that reserves the
 * quota; finished (status, latency, output or error) in the transaction that writes its event.
 */
export const executions = pgTable(
  'executions',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    module: text('module').notNull(),
    action: text('action').notNull(),
    status: text('status', { enum: ['running', 'success', 'failed'] }).notNull(),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    output: jsonb('output'),
    latencyMs: integer('latency_ms'),
    requestId: text('request_id').notNull(),
    keyId: text('key_id'),
    inputBytes: integer('input_bytes').notNull(),
    outputBytes: integer('output_bytes'),
    /** Where the call came from: api, batch, chain, mcp, workflow. */
    source: text('source').notNull().default('api'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('executions_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    // Only the few rows still running (crash recovery looks for them): a partial index stays tiny
    // at any table size, where one over every row's status grew with the table.
    index('executions_running_idx')
      .on(t.createdAt)
      .where(sql`status = 'running'`),
    // Trust scores: one module's executions of the last 30 days, across tenants (src/trust/score.ts).
    index('executions_module_created_idx').on(t.module, t.createdAt),
  ],
);

export type ExecutionRow = typeof executions.$inferSelect;
