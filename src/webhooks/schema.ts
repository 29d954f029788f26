import { z } from 'zod';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../contract/events';
import { customHeaderProblems, WEBHOOK_HEADERS_MAX_BYTES, WEBHOOK_HEADERS_MAX_COUNT } from '../contract/webhook-headers';
import {
  WEBHOOK_AUTO_DISABLE_AFTER,
  WEBHOOK_RATE_LIMIT_MAX,
  WEBHOOK_SECRET_LENGTH,
  WEBHOOK_SECRET_PATTERN,
  WEBHOOK_URL_MAX_LENGTH,
} from '../contract/limits';
import { isoDateTime } from '../lib/dates';
import { FILTER_MAX_LENGTH } from '../lib/event-filter';
import { listParams, pageSchema, queryInteger } from '../lib/pagination';

const webhookId = z.string().min(1).max(64).describe('Subscription identifier (`wh_...`)');

const eventKinds = z
  .array(z.string())
  .min(1, 'Subscribe to at least one event kind, or "*".')
  .max(EVENT_TYPES.length + 1)
  .superRefine((kinds, ctx) => {
    kinds.forEach((kind, i) => {
      if (kind !== '*' && !(EVENT_TYPES as readonly string[]).includes(kind)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `Unknown event kind '${kind}'. Use "*" or one of: ${EVENT_TYPES.join(', ')}.` });
      }
    });
  })
  .describe(`Event kinds to receive, or ["*"] for all: ${EVENT_TYPES.join(', ')}`);

const receiverUrl = z
  .string()
  .trim()
  .min(1)
  .max(WEBHOOK_URL_MAX_LENGTH)
  .describe('HTTPS receiver address (public addresses only unless WEBHOOK_ALLOW_PRIVATE=1)');

const signingSecret = z
  .string()
  .min(WEBHOOK_SECRET_LENGTH.min, `The secret must be at least ${WEBHOOK_SECRET_LENGTH.min} characters.`)
  .max(WEBHOOK_SECRET_LENGTH.max)
  .regex(WEBHOOK_SECRET_PATTERN, 'The secret must be printable ASCII without spaces.')
  .describe('HMAC-SHA256 signing secret; one (`whsec_...`) is generated when absent');

const eventFilter = z
  .string()
  .max(FILTER_MAX_LENGTH, `A filter has at most ${FILTER_MAX_LENGTH} characters.`)
  .nullable()
  .describe(
    'Only events this expression matches are delivered (docs/webhooks.md, Filters), e.g. `event == "execution.failed" && data.module == "http"`: `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, parentheses, `in [..]`, string/number/true/false/null literals, `event` and `data.<path>`. null: every event of the subscribed kinds',
  );

const rateLimitPerSecond = z
  .number({ error: `rate_limit_per_second must be an integer from 1 to ${WEBHOOK_RATE_LIMIT_MAX}, or null.` })
  .int(`rate_limit_per_second must be an integer from 1 to ${WEBHOOK_RATE_LIMIT_MAX}, or null.`)
  .min(1, `rate_limit_per_second must be an integer from 1 to ${WEBHOOK_RATE_LIMIT_MAX}, or null.`)
  .max(WEBHOOK_RATE_LIMIT_MAX, `rate_limit_per_second must be an integer from 1 to ${WEBHOOK_RATE_LIMIT_MAX}, or null.`)
  .nullable()
  .describe(
    `Requests per second at most to this receiver, 1–${WEBHOOK_RATE_LIMIT_MAX} (shared by every instance); the rest wait in the queue, in order, none dropped. null: unpaced`,
  );

const failureAlertThreshold = z
  .number({ error: `failure_alert_threshold must be an integer from 1 to ${WEBHOOK_AUTO_DISABLE_AFTER}.` })
  .int(`failure_alert_threshold must be an integer from 1 to ${WEBHOOK_AUTO_DISABLE_AFTER}.`)
  .min(1, `failure_alert_threshold must be an integer from 1 to ${WEBHOOK_AUTO_DISABLE_AFTER}.`)
  .max(
    WEBHOOK_AUTO_DISABLE_AFTER,
    `failure_alert_threshold must be at most ${WEBHOOK_AUTO_DISABLE_AFTER}, the failed deliveries in a row that disable a subscription.`,
  )
  .describe(
    `Failed deliveries in a row that alert the tenant's owner (once per run of failures), 1–${WEBHOOK_AUTO_DISABLE_AFTER}; default 3. At ${WEBHOOK_AUTO_DISABLE_AFTER} the subscription is disabled.`,
  );

const customHeaders = z
  .record(z.string(), z.string())
  .superRefine((headers, ctx) => {
    for (const p of customHeaderProblems(headers))
      ctx.addIssue({ code: 'custom', path: p.name === undefined ? [] : [p.name], message: p.message });
  })
  .describe(
    `Headers added to every request to the receiver (name -> value), e.g. an \`Authorization\` your receiver expects. At most ${WEBHOOK_HEADERS_MAX_COUNT}, ${WEBHOOK_HEADERS_MAX_BYTES} bytes of names and values in all; names are HTTP tokens, values printable ASCII; names the platform sets (Content-Type, Content-Length, Host, User-Agent, Connection, \`webhook-*\`, \`X-Webhook-*\`, …) are refused. On update the object replaces the previous headers (\`{}\` removes them).`,
  );

export const createWebhookInput = z.strictObject({
  kind: z
    .enum(['push', 'poll'])
    .default('push')
    .describe('`push` (default): events are POSTed to `url`; `poll`: no URL, the events are read with GET /api/v1/webhooks/{id}/messages'),
  url: receiverUrl.optional().describe('HTTPS receiver address, required for `push` and refused for `poll`'),
  events: eventKinds,
  secret: signingSecret.optional(),
  headers: customHeaders.optional(),
  failure_alert_threshold: failureAlertThreshold.optional(),
  filter: eventFilter.optional(),
  rate_limit_per_second: rateLimitPerSecond.optional(),
});

export const updateWebhookInput = z.strictObject({
  id: webhookId,
  url: receiverUrl.optional(),
  events: eventKinds.optional(),
  secret: signingSecret.optional(),
  headers: customHeaders.optional(),
  failure_alert_threshold: failureAlertThreshold.optional(),
  filter: eventFilter.optional(),
  rate_limit_per_second: rateLimitPerSecond.optional(),
});

export const webhookIdInput = z.strictObject({ id: webhookId });

export const listWebhooksInput = z.strictObject({ ...listParams });

export const replayInput = z.strictObject({
  id: webhookId,
  since: isoDateTime().describe('Start of the window (ISO 8601), at most 7 days ago'),
  until: isoDateTime().optional().describe('End of the window (exclusive; default now)'),
});

export const recoverInput = z.strictObject({
  id: webhookId,
  since: isoDateTime().describe('Start of the window (ISO 8601), at most 7 days ago'),
  until: isoDateTime().optional().describe('End of the window (exclusive; default now)'),
});

export const webhookView = z
  .object({
    id: z.string(),
    kind: z.enum(['push', 'poll']).describe('`push`: POSTed to `url`; `poll`: read with GET /api/v1/webhooks/{id}/messages'),
    url: z.string().nullable().describe('The receiver; null for a `poll` subscription'),
    events: z.array(z.string()),
    status: z.enum(['active', 'disabled']),
    secret: z.string().describe('The full secret on create and rotation; masked (`…` + last 4) afterwards'),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe('While a rotated-out secret still signs deliveries beside the current one: when it stops (null otherwise)'),
    headers: z.record(z.string(), z.string()).describe('Custom headers added to every request to the receiver'),
    filter: z.string().nullable().describe('Only events this expression matches are delivered (null: all of the subscribed kinds)'),
    rate_limit_per_second: z.number().int().nullable().describe('Requests per second at most to the receiver (null: unpaced)'),
    consecutive_failures: z.number().int(),
    disabled_at: z.string().nullable(),
    failure_alert_threshold: z.number().int().describe("Failed deliveries in a row that alert the tenant's owner"),
    failing_since: z
      .string()
      .nullable()
      .describe(
        'When the current run of failed deliveries reached `failure_alert_threshold` (the owner was alerted); null once a delivery succeeds',
      ),
    suspended: z
      .boolean()
      .describe('True while a downgrade below Pro has suspended the subscription: nothing is delivered until an upgrade restores it'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Webhook' });

export const webhookList = pageSchema(
  webhookView
    .extend({
      success_rate: z
        .number()
        .nullable()
        .describe("Succeeded / finished deliveries, 0–1, as the detail view's `stats.success_rate` (null before the first finishes)"),
    })
    .meta({ id: 'WebhookListItem' }),
);

const attemptView = z
  .object({
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    success: z.boolean(),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
    response_body: z.string().nullable().describe('The first 1 KB of the answer'),
    at: z.string(),
  })
  .meta({ id: 'Attempt' });

export const deliveryView = z
  .object({
    id: z.string(),
    event_id: z.string().describe('The envelope id: the same on every attempt and replay'),
    event: z.string(),
    kind: z
      .enum(['event', 'replay', 'recover', 'test'])
      .describe('What made the delivery: an event, a replay, a recovery or a test send. The list may grow'),
    status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
    attempt: z.number().int().describe('Attempts made so far'),
    status_code: z.number().int().nullable().describe('Of the latest attempt'),
    success: z.boolean(),
    latency_ms: z.number().int().nullable().describe('Of the latest attempt'),
    error: z.string().nullable().describe('Of the latest attempt'),
    next_attempt_at: z.string().nullable(),
    at: z.string().describe('When the delivery was created'),
    attempts: z.array(attemptView),
  })
  .meta({ id: 'Delivery' });

export const webhookDetail = webhookView
  .extend({
    stats: z.object({
      success_rate: z.number().nullable().describe('Succeeded / finished deliveries, 0–1 (null before the first finishes)'),
      avg_latency_ms: z.number().int().nullable().describe('Mean latency of attempts the receiver answered'),
      total_deliveries: z.number().int().describe('Deliveries made or pending (test sends excluded)'),
      succeeded_deliveries: z.number().int(),
      failed_deliveries: z.number().int(),
      pending_deliveries: z
        .number()
        .int()
        .describe('Deliveries waiting for an attempt (a retry, or their turn under `rate_limit_per_second`)'),
      oldest_pending_at: z.string().nullable().describe('When the oldest pending delivery was created (null when none is pending)'),
      lag_seconds: z
        .number()
        .nullable()
        .describe(
          'How long the oldest pending delivery has waited, in seconds: the queue lag of this receiver (null when none is pending)',
        ),
      consecutive_failures: z.number().int(),
      messages: z
        .number()
        .int()
        .describe(
          'Distinct events (message ids) sent or being sent to this receiver, over the 30-day history: a replayed or recovered event counts once however many deliveries it has (test sends excluded)',
        ),
      attempts: z
        .number()
        .int()
        .describe(
          'HTTP attempts made, over the 30-day history: every delivery attempt, retries and resends included (test sends excluded)',
        ),
    }),
    deliveries: z.array(deliveryView).describe('The latest 100 deliveries, newest first'),
  })
  .meta({ id: 'WebhookDetail' });

export const deliveryIdInput = z.strictObject({
  id: webhookId,
  delivery_id: z.string().min(1).max(64).describe('Delivery identifier (`dlv_...`)'),
});

export const deliveryWithPayload = deliveryView
  .extend({
    payload: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        'The envelope `{id, event, timestamp, data}` this delivery sends, as its attempts send it; null for test sends and once the event passed the 30-day retention',
      ),
  })
  .meta({ id: 'DeliveryWithPayload' });

export const webhookSeriesInput = z.strictObject({
  id: webhookId,
  range: z.enum(['24h', '7d', '30d']).default('7d').describe('24h: hourly buckets; 7d, 30d: daily buckets (UTC)'),
});

export const webhookSeries = z
  .object({
    id: z.string(),
    range: z.enum(['24h', '7d', '30d']),
    bucket: z.enum(['hour', 'day']),
    from: z.string().describe('Start of the first bucket'),
    points: z
      .array(
        z.object({
          start: z.string().describe('Start of the bucket (UTC)'),
          succeeded_deliveries: z.number().int().describe('Deliveries that succeeded in this bucket'),
          failed_deliveries: z.number().int().describe('Deliveries whose every attempt failed, finished in this bucket'),
          success_rate: z.number().nullable().describe('Succeeded / finished in this bucket, 0–1 (null when none finished)'),
          answered_attempts: z.number().int().describe('Attempts the receiver answered (any status) in this bucket'),
          avg_latency_ms: z.number().int().nullable().describe('Mean latency of the answered attempts'),
          p95_latency_ms: z.number().int().nullable().describe('95th percentile latency of the answered attempts'),
        }),
      )
      .describe('Every bucket of the range, oldest first; test sends excluded'),
  })
  .meta({ id: 'WebhookSeries' });

export const messagesInput = z.strictObject({
  id: webhookId,
  after: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      'Where to start: `next_cursor` of the previous page, an event id (`evt_...`: the events after it), or `now` (only events recorded from now on). Absent: the oldest retained event.',
    ),
  limit: queryInteger(1, 500, 100).describe('Events per page, 1–500 (default 100)'),
});

export const messagesPage = z.object({
  data: z
    .array(
      z
        .object({
          id: z.string().describe('The event id (`evt_...`)'),
          event: z.string().describe('The event kind'),
          timestamp: z.string().describe('When the event happened (ISO 8601)'),
          data: z.record(z.string(), z.unknown()),
        })
        .meta({ id: 'WebhookMessage' }),
    )
    .describe('Envelopes as a push delivery POSTs them, oldest first'),
  next_cursor: z
    .string()
    .describe('Pass as `after` to get the events after this page (the same cursor again when the page is empty: poll it later)'),
  has_more: z.boolean().describe('More events are readable now: fetch the next page at once'),
});

export const deletedWebhook = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWebhook' });

const testableKinds = [...EVENT_TYPES, TEST_EVENT_TYPE] as const;

export const testInput = z.strictObject({
  id: webhookId,
  event_type: z
    .string()
    .superRefine((kind, ctx) => {
      if (!(testableKinds as readonly string[]).includes(kind)) {
        ctx.addIssue({ code: 'custom', message: `Unknown event kind '${kind}'. Use one of: ${testableKinds.join(', ')}.` });
      }
    })
    .optional()
    .describe(
      `The kind to send, with its catalog example as \`data\` (GET /api/v1/webhooks/event-types); default \`${TEST_EVENT_TYPE}\`. Any kind may be sent, subscribed or not.`,
    ),
});

/** Overlap of a rotated-out secret: default and maximum (seconds). */
export const ROTATION_OVERLAP_SECONDS = { default: 86_400, max: 7 * 86_400 } as const;

export const rotateSecretInput = z.strictObject({
  id: webhookId,
  secret: signingSecret.optional().describe('The new secret; one (`whsec_...`) is generated when absent'),
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(ROTATION_OVERLAP_SECONDS.max)
    .default(ROTATION_OVERLAP_SECONDS.default)
    .describe(
      `How long the current secret keeps signing beside the new one (seconds, 0–${ROTATION_OVERLAP_SECONDS.max}; default ${ROTATION_OVERLAP_SECONDS.default}, 24 h). 0 replaces it at once.`,
    ),
});

export const eventTypeList = z.object({
  data: z.array(
    z
      .object({
        type: z.string().describe('The event kind, as in `events` and the envelope `event`'),
        description: z.string(),
        subscribable: z.boolean().describe('False for `webhook.test`, which only the test endpoint sends'),
        schema: z.record(z.string(), z.unknown()).describe("JSON Schema (draft 2020-12) of the envelope's `data` for this kind"),
        example: z
          .record(z.string(), z.unknown())
          .describe('An example `data`, valid against `schema`; a test send of this kind delivers it'),
      })
      .meta({ id: 'EventType' }),
  ),
});

export const testResult = z
  .object({
    delivered: z.boolean(),
    status_code: z.number().int().nullable(),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
    event_id: z.string(),
    delivery_id: z.string(),
  })
  .meta({ id: 'WebhookTestResult' });

export const replayResult = z
  .object({
    subscription_id: z.string(),
    replayed: z.number().int().describe('Events queued for delivery (at most 10,000 per call)'),
    since: z.string(),
    until: z.string(),
    has_more: z.boolean().describe('More events remain in the window: call again with `since` = `next_since`'),
    next_since: z.string().nullable(),
  })
  .meta({ id: 'ReplayResult' });

export const recoverResult = z
  .object({
    subscription_id: z.string(),
    recovered: z
      .number()
      .int()
      .describe('Events queued for delivery again (at most 10,000 per call): those in the window with no succeeded or pending delivery'),
    since: z.string(),
    until: z.string(),
    has_more: z.boolean().describe('More events remain in the window: call again with `since` = `next_since`'),
    next_since: z.string().nullable(),
  })
  .meta({ id: 'RecoverResult' });

export type CreateWebhookInput = z.infer<typeof createWebhookInput>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookInput>;
export type TestInput = z.infer<typeof testInput>;
export type RotateSecretInput = z.infer<typeof rotateSecretInput>;
export type ListWebhooksInput = z.infer<typeof listWebhooksInput>;
export type ReplayInput = z.infer<typeof replayInput>;
export type MessagesInput = z.infer<typeof messagesInput>;
export type RecoverInput = z.infer<typeof recoverInput>;
export type WebhookSeriesInput = z.infer<typeof webhookSeriesInput>;
