import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

export type ModuleRuntime =
  { type: 'builtin' } | { type: 'http'; endpoint: string; secret_encrypted: string } | { type: 'javascript'; source: string };

/** A module: built-in packs are synced at start-up; tenants publish their own. Names are global. */
export const modules = pgTable(
  'modules',
  {
    name: text('name').primaryKey(),
    version: text('version').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    tags: text('tags').array().notNull().default([]),
    /** `platform` for built-in packs, else the publishing tenant's agent name. */
    publisher: text('publisher').notNull(),
    ownerTenantId: uuid('owner_tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    visibility: text('visibility', { enum: ['public', 'private'] })
      .notNull()
      .default('public'),
    runtime: jsonb('runtime').$type<ModuleRuntime>().notNull(),
    trustScore: integer('trust_score').notNull().default(50),
    certificationTier: text('certification_tier').notNull().default('none'),
    ...timestamps,
  },
  (t) => [index('modules_owner_idx').on(t.ownerTenantId), index('modules_category_idx').on(t.category)],
);

export const moduleActions = pgTable(
  'module_actions',
  {
    moduleName: text('module_name')
      .notNull()
      .references(() => modules.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull(),
    inputSchema: jsonb('input_schema').$type<Record<string, unknown>>().notNull(),
    outputSchema: jsonb('output_schema').$type<Record<string, unknown>>().notNull(),
    examples: jsonb('examples').$type<{ input: unknown; output: unknown }[]>().notNull(),
    timeoutMs: integer('timeout_ms').notNull().default(10_000),
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.moduleName, t.name] })],
);

export const installations = pgTable(
  'installations',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    moduleName: text('module_name')
      .notNull()
      .references(() => modules.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    installedAt: timestamp('installed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.moduleName] })],
);

export type ModuleRow = typeof modules.$inferSelect;
export type ModuleActionRow = typeof moduleActions.$inferSelect;
