import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { webhookAttempts, webhookDeliveries } from '../db/schema';
import { TEST_EVENT_TYPE } from '../contract/events';
import { newId, newTimeOrderedId } from '../lib/ids';
import { decryptSecret } from '../lib/secrets';
import type { Services } from '../services';
import { deliveryHeaders, envelopeBody } from './envelope';
import { postToReceiver } from './send';
import { findSubscription } from './subscriptions';
import { invalidRequest } from '../lib/errors';

/**
 * POST /api/v1/webhooks/{id}/test: one synchronous, signed attempt of a `webhook.test` event
 * (also to a disabled subscription, to check a receiver before enabling it). It shows in the
 * history but never counts toward statistics or auto-disable, and is not retried.
 */
export async function sendTestEvent(svc: Services, principal: Principal, id: string) {
  const subscription = await findSubscription(svc, principal.tenantId, id);
  if (subscription.url === null) throw invalidRequest('A poll subscription has no receiver to send a test to.');
  const eventId = newTimeOrderedId('evt');
  const deliveryId = newId('dlv');
  const body = envelopeBody(
    {
      id: eventId,
      event: TEST_EVENT_TYPE,
      timestamp: new Date().toISOString(),
      data: { subscription_id: subscription.id, tenant_id: principal.tenantId, message: 'A test event from the Agent Module Platform.' },
    },
    svc.config.publicBaseUrl,
  );
  const secret = decryptSecret(svc.config.encryptionKey, subscription.secretEncrypted);
  await svc.db.insert(webhookDeliveries).values({
    id: deliveryId,
    tenantId: principal.tenantId,
    subscriptionId: subscription.id,
    eventId,
    eventType: TEST_EVENT_TYPE,
    kind: 'test',
  });
  const outcome = await postToReceiver(
    svc,
    subscription.url,
    body,
    deliveryHeaders(secret, body, { eventId, eventType: TEST_EVENT_TYPE, deliveryId, attempt: 1 }),
  );
  await svc.db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({ deliveryId, attempt: 1, ...outcome });
    await tx
      .update(webhookDeliveries)
      .set({ attempts: 1, status: outcome.success ? 'succeeded' : 'failed', completedAt: new Date() })
      .where(eq(webhookDeliveries.id, deliveryId));
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
