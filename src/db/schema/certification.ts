import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { modules } from './catalog';

export type CertificationTier = 'none' | 'bronze' | 'silver' | 'gold';
export type CertificationRunStatus = 'queued' | 'running' | 'completed' | 'failed';
export type CertificationTrigger = 'manual' | 'publish' | 'schedule';

/** One check of a run: its name, whether it passed, and what was seen (docs/trust.md). */
export interface CertificationCheck {
  name: string;
  passed: boolean;
  detail: string;
}

/**
 * One certification run of one module version (src/certification/). At most one run per
 * (module, version) is queued or running: concurrent requests share it (the partial unique index).
 */
export const certificationRuns = pgTable(
  'certification_runs',
  {
    id: text('id').primaryKey(),
    moduleName: text('module_name')
      .notNull()
      .references(() => modules.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    version: text('version').notNull(),
    status: text('status').$type<CertificationRunStatus>().notNull().default('queued'),
    trigger: text('trigger').$type<CertificationTrigger>().notNull(),
    requestedByTenantId: uuid('requested_by_tenant_id'),
    /** Null until the run completes. */
    tier: text('tier').$type<CertificationTier>(),
    previousTier: text('previous_tier').$type<CertificationTier>(),
    checks: jsonb('checks').$type<CertificationCheck[]>().notNull().default([]),
    checksPassed: integer('checks_passed').notNull().default(0),
    checksTotal: integer('checks_total').notNull().default(0),
    p95Ms: integer('p95_ms'),
    /** Why a run failed (its deadline passed, the module vanished): never a stack trace. */
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('certification_runs_active_idx')
      .on(t.moduleName, t.version)
      .where(sql`status in ('queued', 'running')`),
    index('certification_runs_module_idx').on(t.moduleName, t.createdAt, t.id),
  ],
);

export type CertificationRunRow = typeof certificationRuns.$inferSelect;
