import { boolean, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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
    ...timestamps,
  },
  (t) => [index('api_keys_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
