import { bigserial, check, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { modules } from './catalog';
import { tenants } from './tenants';

/** Community feedback: one rating per tenant per module, replaced when the tenant rates again. */
export const trustFeedback = pgTable(
  'trust_feedback',
  {
    moduleName: text('module_name')
      .notNull()
      .references(() => modules.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    rating: smallint('rating').notNull(),
    comment: text('comment'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.moduleName, t.tenantId] }), check('trust_feedback_rating_check', sql`${t.rating} between 1 and 5`)],
);

/** What a module's score was last computed from (src/trust/score.ts), so reading it costs no aggregate. */
export const trustComponents = pgTable('trust_components', {
  moduleName: text('module_name')
    .primaryKey()
    .references(() => modules.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
  inputs: jsonb('inputs').$type<StoredTrustInputs>().notNull(),
  computedAt: timestamp('computed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** TrustInputs as JSON (dates as ISO strings). */
export interface StoredTrustInputs {
  certification: { tier: 'gold' | 'silver' | 'bronze' | 'none'; ranAt: string; p95Ms: number | null } | null;
  executions: { total: number; succeeded: number; p95Ms: number | null };
  feedback: { count: number; average: number | null };
}

/** Each change of a module's trust score, with the components it was computed from. */
export const trustScoreHistory = pgTable(
  'trust_score_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    moduleName: text('module_name')
      .notNull()
      .references(() => modules.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    score: integer('score').notNull(),
    previousScore: integer('previous_score').notNull(),
    reason: text('reason', { enum: ['certification', 'feedback', 'usage'] }).notNull(),
    components: jsonb('components').$type<Record<string, { value: number; weight: number }>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('trust_score_history_module_idx').on(t.moduleName, t.id)],
);

export type TrustFeedbackRow = typeof trustFeedback.$inferSelect;
export type TrustScoreHistoryRow = typeof trustScoreHistory.$inferSelect;
