import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from './tenants';

/**
 * The event log and outbox: every event is written in the transaction that caused it. Webhook
 * delivery fans out from here; replay reads it back.
 */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('events_tenant_created_idx').on(t.tenantId, t.createdAt)],
);

export type EventRow = typeof events.$inferSelect;
