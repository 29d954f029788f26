import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

export type WebhookStatus = 'active' | 'disabled';
/** `push`: POSTed to `url`; `poll`: kept for the receiver to fetch (`GET …/messages`), no URL. */
export type WebhookKind = 'push' | 'poll';

/** A tenant's receiver: where events of the subscribed kinds are POSTed, signed with its secret. */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<WebhookKind>().notNull().default('push'),
    /** The receiver; null for a `poll` subscription. */
    url: text('url'),
    /** Event kinds, or `['*']` for all. */
    events: text('events').array().notNull(),
    /** The signing secret, AES-256-GCM under ENCRYPTION_KEY (src/lib/secrets.ts). */
    secretEncrypted: text('secret_encrypted').notNull(),
    /** Last four characters of the secret, to recognise it in a masked view. */
    secretLast4: text('secret_last4').notNull(),
    /** The secret being rotated out: it still signs (beside the new one) until `previousSecretExpiresAt`. */
    previousSecretEncrypted: text('previous_secret_encrypted'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    /** Headers added to every request to the receiver (names and values as given; never secrets of ours). */
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
    /** An expression over the event (docs/webhooks.md, Filters); only matching events are delivered. */
    filter: text('filter'),
    /** Deliveries paced to at most this many per second (queued, never dropped); null: unpaced. */
    rateLimitPerSecond: integer('rate_limit_per_second'),
    /** Consecutive failed deliveries that first alert the owner (before the auto-disable at 10). */
    failureAlertThreshold: integer('failure_alert_threshold').notNull().default(3),
    /** When the current run of failures reached `failureAlertThreshold` (alerted once); cleared by a success. */
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
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

export type DeliveryKind = 'event' | 'replay' | 'recover' | 'test';
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
