import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from './tenants';

/** Millisecond timestamps: list cursors carry them through JS Dates without losing precision. */
const ms = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

/**
 * Per-agent memory: one row per (tenant, agent, key). Expired rows (`expires_at <= now()`) are
 * never returned and are deleted by the periodic purge (src/memory/purge.ts).
 */
export const memoryEntries = pgTable(
  'memory_entries',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: text('agent_id').notNull(),
    key: text('key').notNull(),
    value: jsonb('value').notNull(),
    tags: text('tags').array().notNull().default([]),
    expiresAt: ms('expires_at'),
    createdAt: ms('created_at').notNull().defaultNow(),
    updatedAt: ms('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.agentId, t.key] }),
    // Lists: one agent of one tenant, newest-updated first, keyset over (updated_at, key).
    index('memory_entries_agent_updated_idx').on(t.tenantId, t.agentId, t.updatedAt.desc(), t.key.desc()),
    // Full-text search (`q`): the same expression as src/memory/queries.ts.
    index('memory_entries_search_idx').using('gin', sql`to_tsvector('simple', ${t.key} || ' ' || (${t.value})::text)`),
    // The purge.
    index('memory_entries_expires_idx')
      .on(t.expiresAt)
      .where(sql`${t.expiresAt} is not null`),
  ],
);

export type MemoryEntryRow = typeof memoryEntries.$inferSelect;
