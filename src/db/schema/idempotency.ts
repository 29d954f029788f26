import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from './tenants';

/**
 * Idempotency keys (the `Idempotency-Key` header, src/idempotency/keys.ts): one row per
 * (tenant, key). `pending` while the first request runs; then `done` with what it answered,
 * encrypted (a response may carry a secret: a new key, an action's output). Kept 24 hours.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of the credential, the operation and its input: a reuse with another request, or by another credential, is refused. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['pending', 'done'] }).notNull(),
    /** The success status the first request set (absent: the operation's own), or the error's. */
    status: integer('status'),
    /** `encryptSecret` of the stored answer's JSON (src/idempotency/keys.ts `StoredAnswer`). */
    answer: text('answer'),
    /** When the key was claimed; while `pending`, renewed by the instance running its request (a stale claim is abandoned). */
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
  },
  // The purge (rows older than a day).
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
