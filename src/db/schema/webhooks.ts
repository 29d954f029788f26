import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

export type WebhookStatus = 'active' | 'disabled';

/** A tenant's receiver: where events of the subscribed kinds are POSTed, signed with its secret. */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** Event kinds, or `['*']` for all. */
    events: text('events').array().notNull(),
    /** The signing secret, AES-256-GCM under ENCRYPTION_KEY (src/lib/secrets.ts). */
    secretEncrypted: text('secret_encrypted').notNull(),
    /** Last four characters of the secret, to recognise it in a masked view. */
    secretLast4: text('secret_last4').notNull(),
    status: text('status').$type<WebhookStatus>().notNull().default('active'),
    /** Failed deliveries in a row; 10 disables the subscription, a success resets it. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    /** Set while the tenant's plan has no webhooks (a downgrade); deliveries stop until an upgrade clears it. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [index('webhook_subscriptions_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
);

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;

/**
 * Running statistics of a subscription (the detail view's `stats`), spread over a few rows per
 * subscription so concurrent attempts to one busy receiver do not queue on one row lock; the
 * view sums them. Counters, so they outlive the history's retention.
 */
export const webhookStats = pgTable(
  'webhook_stats',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    shard: smallint('shard').notNull(),
    deliveriesSucceeded: bigint('deliveries_succeeded', { mode: 'number' }).notNull().default(0),
    deliveriesFailed: bigint('deliveries_failed', { mode: 'number' }).notNull().default(0),
    attemptsTimed: bigint('attempts_timed', { mode: 'number' }).notNull().default(0),
    attemptLatencyTotalMs: bigint('attempt_latency_total_ms', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.shard] })],
);

export type DeliveryKind = 'event' | 'replay' | 'test';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** One event sent to one subscription: up to WEBHOOK_RETRY_SCHEDULE_MS.length attempts. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    /** The event's id (the envelope `id`; the same on every attempt and on replays). */
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    kind: text('kind').$type<DeliveryKind>().notNull().default('event'),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('webhook_deliveries_subscription_idx').on(t.subscriptionId, t.createdAt, t.id)],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** One HTTP attempt of a delivery. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    success: boolean('success').notNull(),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    /** The first 1 KB of the receiver's answer. */
    responseBody: text('response_body'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);

export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
