import { eq } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import { webhookAttempts, webhookDeliveries } from '../db/schema';
import { EVENT_EXAMPLES } from '../contract/event-examples';
import { TEST_EVENT_TYPE, type EventType } from '../contract/events';
import { newId, newTimeOrderedId } from '../lib/ids';
import type { Services } from '../services';
import { deliveryHeaders, envelopeBody } from './envelope';
import type { TestInput } from './schema';
import { postToReceiver } from './send';
import { clearExpiredPreviousSecrets, signingSecrets } from './signing';
import { invalidRequest } from '../lib/errors';
import { findSubscription } from './subscriptions';

/**
 * POST /api/v1/webhooks/{id}/test: one synchronous, signed attempt of a test event (also to a
 * disabled subscription, to check a receiver before enabling it): `webhook.test` by default, or
 * any event kind with its catalog example as `data`. Marked as a test twice: `"test": true` in the
 * envelope and the `X-Webhook-Test: 1` header. It carries the subscription's custom headers and
 * signatures as every delivery does. It shows in the history but never counts toward statistics
 * or auto-disable, and is not retried. `tenantId` null: an operator's test of any tenant's
 * subscription (the Admin page's, before re-enabling one), recorded on that tenant.
 */
export async function sendTestEvent(svc: Services, tenantId: string | null, input: TestInput) {
  const subscription = await findSubscription(svc, tenantId, input.id);
  if (subscription.url === null) throw invalidRequest('A poll subscription has no receiver to send a test to.');
  const eventType = input.event_type ?? TEST_EVENT_TYPE;
  const eventId = newTimeOrderedId('evt');
  const deliveryId = newId('dlv');
  const data =
    eventType === TEST_EVENT_TYPE
      ? { subscription_id: subscription.id, tenant_id: subscription.tenantId, message: 'A test event from the Agent Module Platform.' }
      : (EVENT_EXAMPLES[eventType as EventType] as Record<string, unknown>);
  const body = envelopeBody(
    { id: eventId, event: eventType, timestamp: new Date().toISOString(), data, test: true },
    svc.config.publicBaseUrl,
  );
  const secrets = signingSecrets(svc.config.encryptionKey, subscription);
  if (secrets.previousExpired) await clearExpiredPreviousSecrets(svc.db, [subscription.id]);
  await svc.db.insert(webhookDeliveries).values({
    id: deliveryId,
    tenantId: subscription.tenantId,
    subscriptionId: subscription.id,
    eventId,
    eventType,
    kind: 'test',
  });
  const outcome = await postToReceiver(
    svc,
    subscription.url,
    body,
    deliveryHeaders(secrets.secret, body, { eventId, eventType, deliveryId, attempt: 1 }, Date.now(), {
      previousSecret: secrets.previousSecret,
      headers: subscription.headers,
      test: true,
    }),
  );
  await svc.db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({ deliveryId, attempt: 1, ...outcome });
    await tx
      .update(webhookDeliveries)
      .set({ attempts: 1, status: outcome.success ? 'succeeded' : 'failed', completedAt: new Date() })
      .where(eq(webhookDeliveries.id, deliveryId));
    await recordAudit(tx, subscription.tenantId, {
      action: 'webhook.tested',
      target: { type: 'webhook', id: subscription.id },
      changes: { event_type: eventType, delivery_id: deliveryId, delivered: outcome.success, status_code: outcome.statusCode },
    });
  });
  return {
    delivered: outcome.success,
    status_code: outcome.statusCode,
    latency_ms: outcome.latencyMs,
    error: outcome.error,
    event_id: eventId,
    delivery_id: deliveryId,
  };
}
