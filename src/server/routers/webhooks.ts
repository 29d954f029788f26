import { getWebhookHealth, webhookHealthInput, webhookHealthView } from '../../webhooks/health';
import { listEventTypes } from '../../webhooks/event-types';
import { getDelivery, getWebhookSeries } from '../../webhooks/insights';
import { recoverEvents } from '../../webhooks/recover';
import { listMessages } from '../../webhooks/messages';
import { replayEvents } from '../../webhooks/replay';
import { rotateWebhookSecret } from '../../webhooks/rotate-secret';
import { resendDelivery } from '../../webhooks/resend';
import {
  createWebhookInput,
  deletedWebhook,
  eventTypeList,
  deliveryIdInput,
  deliveryWithPayload,
  listWebhooksInput,
  messagesInput,
  messagesPage,
  deliveryView,
  recoverInput,
  recoverResult,
  replayInput,
  replayResult,
  rotateSecretInput,
  testInput,
  testResult,
  updateWebhookInput,
  webhookDetail,
  webhookIdInput,
  webhookList,
  webhookSeries,
  webhookSeriesInput,
  webhookView,
} from '../../webhooks/schema';
import { createWebhook, deleteWebhook, enableWebhook, getWebhook, listWebhooks, updateWebhook } from '../../webhooks/subscriptions';
import { sendTestEvent } from '../../webhooks/test-event';
import { z } from 'zod';
import { apiProcedure, router } from '../trpc';

/** Webhooks need scope `*` (the spec names no webhook scope) and the Pro plan or above. */
const readWebhooks = apiProcedure('*', 'webhooks', 'webhooks:read');
const manageWebhooks = apiProcedure('*', 'webhooks', 'webhooks:write');
const tags = ['webhooks'];
const withId = { 404: 'No such webhook' };

export const webhooksRouter = router({
  eventTypes: apiProcedure()
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/event-types',
        tags,
        summary: 'The event catalog',
        description:
          "Every event kind with its description, the JSON Schema of its `data` and an example (the same schemas as this document's `webhooks` section), then `webhook.test`. Not secret: any valid API key or bearer token reads it, whatever its scopes and plan.",
      },
    })
    .input(z.strictObject({}))
    .output(eventTypeList)
    .query(() => listEventTypes()),

  health: apiProcedure('*', undefined, 'webhooks:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/health',
        tags,
        summary: 'Subscriptions that need attention',
        description:
          "The tenant's disabled subscriptions and those whose failed deliveries in a row reached their `failure_alert_threshold` (`failing_since` set), with counts. Answered on every plan (one without webhooks has none), so a dashboard can ask it on every page.",
      },
    })
    .input(webhookHealthInput)
    .output(webhookHealthView)
    .query(({ ctx }) => getWebhookHealth(ctx.svc, ctx.principal)),

  create: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks',
        tags,
        summary: 'Create a webhook subscription',
        description:
          'The receiver must be `https://` and resolve to public addresses. `secret` is generated (`whsec_...`) when absent and shown only in this response. Deliveries are POSTs of `{id, event, timestamp, data}` signed with `X-Webhook-Signature` = hex HMAC-SHA256 of the raw body.',
        errorResponses: { 400: 'Invalid body or receiver URL', 409: 'Too many subscriptions' },
      },
      successStatus: 201,
    })
    .input(createWebhookInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => createWebhook(ctx.svc, ctx.principal, input)),

  list: readWebhooks
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks',
        tags,
        summary: 'List webhook subscriptions',
        description: 'Newest first; secrets masked.',
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listWebhooksInput)
    .output(webhookList)
    .query(({ ctx, input }) => listWebhooks(ctx.svc, ctx.principal, input)),

  get: readWebhooks
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/{id}',
        tags,
        summary: 'Get a webhook subscription with its delivery history and statistics',
        description: 'The latest 100 deliveries, each with its attempts (status code, latency, error, first 1 KB of the answer).',
        errorResponses: withId,
      },
    })
    .input(webhookIdInput)
    .output(webhookDetail)
    .query(({ ctx, input }) => getWebhook(ctx.svc, ctx.principal, input.id)),

  stats: readWebhooks
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/{id}/stats',
        tags,
        summary: 'Delivery statistics over time',
        description:
          "Succeeded and failed deliveries, success rate and answered-attempt latency (mean, p95) per UTC hour (`range=24h`) or day (`7d`, `30d`), every bucket present, oldest first. Counted as the detail view's `stats` (a delivery in the bucket it finished in; test sends excluded), from the 30-day history.",
        errorResponses: { 400: 'Invalid range', ...withId },
      },
    })
    .input(webhookSeriesInput)
    .output(webhookSeries)
    .query(({ ctx, input }) => getWebhookSeries(ctx.svc, ctx.principal, input)),

  messages: readWebhooks
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/{id}/messages',
        tags,
        summary: 'Poll the events of a poll subscription',
        description:
          "The tenant's events of the subscribed kinds after `after` (a `next_cursor`, an event id, or `now`; absent: the oldest retained), oldest first, as the envelopes a push delivery sends. Call again with `after` = `next_cursor`: every event comes exactly once across pages, also while new ones are recorded. An event appears once every transaction that began before it has ended. Poll subscriptions only (409 for a push subscription).",
        errorResponses: { 400: 'Invalid `after` or `limit`', ...withId, 409: 'A push subscription: its events are POSTed, not polled' },
      },
    })
    .input(messagesInput)
    .output(messagesPage)
    .query(({ ctx, input }) => listMessages(ctx.svc, ctx.principal, input)),

  delivery: readWebhooks
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}',
        tags,
        summary: 'Get one delivery with its attempts and payload',
        description:
          "The delivery as in the detail view's history, plus `payload`: the envelope its attempts send (null for test sends and past retention).",
        errorResponses: { 404: 'No such webhook or delivery' },
      },
    })
    .input(deliveryIdInput)
    .output(deliveryWithPayload)
    .query(({ ctx, input }) => getDelivery(ctx.svc, ctx.principal, input.id, input.delivery_id)),

  update: manageWebhooks
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/webhooks/{id}',
        tags,
        summary: 'Update a webhook subscription',
        description:
          'Any of `url`, `events`, `secret`, `headers`. A new `secret` replaces the current one at once: it signs every attempt made from now on, and a rotation in progress ends (see rotate-secret for an overlap). `headers` replaces the custom headers.',
        errorResponses: { 400: 'Invalid body or receiver URL', ...withId },
      },
    })
    .input(updateWebhookInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => updateWebhook(ctx.svc, ctx.principal, input)),

  delete: manageWebhooks
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/webhooks/{id}',
        tags,
        summary: 'Delete a webhook subscription',
        description: 'Pending deliveries are dropped.',
        errorResponses: withId,
      },
    })
    .input(webhookIdInput)
    .output(deletedWebhook)
    .mutation(({ ctx, input }) => deleteWebhook(ctx.svc, ctx.principal, input.id)),

  test: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/test',
        tags,
        summary: 'Send a test event',
        description:
          'One synchronous, signed attempt of a test event: `webhook.test` (default), or `event_type` with its catalog example as `data`, to this receiver whatever its `events` and status. Marked as a test by `"test": true` in the envelope and the `X-Webhook-Test: 1` header; carries the custom headers and signatures of every delivery. Never retried; never counts toward statistics or auto-disable.',
        errorResponses: { 400: 'Unknown `event_type`, or a poll subscription', ...withId },
      },
    })
    .input(testInput)
    .output(testResult)
    .mutation(({ ctx, input }) => sendTestEvent(ctx.svc, ctx.principal.tenantId, input)),

  rotateSecret: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/rotate-secret',
        tags,
        summary: 'Rotate the signing secret with an overlap',
        description:
          "A new secret (`secret`, or generated `whsec_...`), returned in this response only. For `overlap_seconds` (default 86400, at most 604800; 0 = at once) the current secret keeps signing too: every attempt's `webhook-signature` carries both signatures, `v1,<new> v1,<old>`, so a receiver verifies with either; after it, only the new one. `X-Webhook-Signature` holds one value and is the new secret's from now on. Rotating again during an overlap rotates out the current secret; the older one stops.",
        errorResponses: { 400: 'Invalid secret or overlap', ...withId },
      },
    })
    .input(rotateSecretInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.svc, ctx.principal, input)),

  enable: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/enable',
        tags,
        summary: 'Re-enable a disabled webhook subscription',
        description: 'Sets `active` and resets the consecutive-failure count. Events from while it was disabled are not sent (use replay).',
        errorResponses: withId,
      },
    })
    .input(webhookIdInput)
    .output(webhookView)
    .mutation(({ ctx, input }) => enableWebhook(ctx.svc, ctx.principal.tenantId, input.id)),

  replay: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/replay',
        tags,
        summary: 'Replay recorded events',
        description:
          'Re-sends the recorded events of the subscribed kinds in [`since`, `until`) as new deliveries with the same event ids. At most 7 days back and 10,000 events per call (`has_more`/`next_since` continue). Active subscriptions only.',
        errorResponses: { 400: 'Invalid window', ...withId, 409: 'Subscription disabled' },
      },
      successStatus: 202,
    })
    .input(replayInput)
    .output(replayResult)
    .mutation(({ ctx, input }) => replayEvents(ctx.svc, ctx.principal, input)),

  resend: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend',
        tags,
        summary: 'Resend one delivery',
        description:
          "One more attempt of a finished delivery (succeeded, failed or cancelled): the same message (same event id in `webhook-id` and the envelope, so receivers deduplicate), numbered after its last attempt, made by the delivery queue at once and not retried. The delivery is `pending` until it is made; it counts once in the statistics, by its latest outcome. Refused (409) while the delivery is pending, for test sends (send a new test), past the event's retention, and while the subscription is disabled.",
        errorResponses: {
          404: 'No such webhook or delivery',
          409: 'Delivery pending, a test send, event past retention, subscription disabled, or a poll subscription',
        },
      },
      successStatus: 202,
    })
    .input(deliveryIdInput)
    .output(deliveryView)
    .mutation(({ ctx, input }) => resendDelivery(ctx.svc, ctx.principal, input.id, input.delivery_id)),

  recover: manageWebhooks
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/recover',
        tags,
        summary: 'Recover events the receiver did not get',
        description:
          'Re-sends, as new deliveries (kind `recover`) with the same event ids, the events of the subscribed kinds in [`since`, `until`) that have no succeeded and no pending delivery to this subscription: their deliveries failed or were cancelled, or none was made because the subscription was disabled. Events from before the subscription was created are left out (replay sends those). At most 7 days back and 10,000 events per call (`has_more`/`next_since` continue). Active subscriptions only.',
        errorResponses: { 400: 'Invalid window', ...withId, 409: 'Subscription disabled, or a poll subscription' },
      },
      successStatus: 202,
    })
    .input(recoverInput)
    .output(recoverResult)
    .mutation(({ ctx, input }) => recoverEvents(ctx.svc, ctx.principal.tenantId, input)),
});
