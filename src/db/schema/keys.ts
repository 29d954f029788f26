import { bigint, boolean, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { StoredKeyPolicy } from '../../keys/policy-rules';
import { timestamps } from './columns';
import { tenants } from './tenants';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Visible start of the secret, e.g. `amp_Ab12Cd34`, for recognising a key in lists. */
    prefix: text('prefix').notNull(),
    /** SHA-256 (hex) of the secret; the secret itself is never stored. */
    secretHash: text('secret_hash').notNull().unique(),
    scopes: text('scopes').array().notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    /** After a rotation with grace, the old secret keeps working until previousExpiresAt. */
    previousSecretHash: text('previous_secret_hash').unique(),
    previousExpiresAt: timestamp('previous_expires_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** Set while the tenant's plan allows fewer keys than it holds (a downgrade); cleared when it allows them again. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    /** What the key may call and spend (docs/policies.md); null: everything its tenant may. */
    policy: jsonb('policy').$type<StoredKeyPolicy>(),
    ...timestamps,
  },
  (t) => [index('api_keys_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
);

/**
 * Executions and spend counted per key per billing cycle, for keys whose policy caps them. Like
 * the tenant's usage counter, reserved atomically in the transaction that creates the execution.
 */
export const keyUsageCounters = pgTable(
  'key_usage_counters',
  {
    keyId: text('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    cycleStart: date('cycle_start', { mode: 'string' }).notNull(),
    executions: integer('executions').notNull().default(0),
    spendMicroUsd: bigint('spend_micro_usd', { mode: 'number' }).notNull().default(0),
    /** When `key.limit_approaching` / `key.limit_exceeded` went out this cycle (once each). */
    approachingAt: timestamp('approaching_at', { withTimezone: true, mode: 'date' }),
    exceededAt: timestamp('exceeded_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.keyId, t.cycleStart] })],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Requests a key's policy refused, per key, day (UTC) and reason, for the key's usage page. */
export const keyRefusals = pgTable(
  'key_refusals',
  {
    keyId: text('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    /** The refusal's reason (`module_not_allowed`, `ip_not_allowed`, ...) or cap (`executions_per_month`, ...). */
    reason: text('reason').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.reason] })],
);

export type KeyUsageCounterRow = typeof keyUsageCounters.$inferSelect;
