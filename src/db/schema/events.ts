import { bigserial, customType, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { tenants } from './tenants';

/** PostgreSQL's 64-bit transaction id (`xid8`), read and written as its decimal text. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

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
    /** Insertion order within a transaction (and a tie-break across them). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    /**
     * The writing transaction's id. Readers that resume from a cursor (polling subscriptions, the
     * event stream) order by (xid, seq) and read only rows whose xid is below their snapshot's
     * xmin, so a transaction that commits late can never slip in behind a cursor.
     */
    xid: xid8('xid')
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [index('events_tenant_created_idx').on(t.tenantId, t.createdAt), index('events_tenant_xid_seq_idx').on(t.tenantId, t.xid, t.seq)],
);

export type EventRow = typeof events.$inferSelect;
