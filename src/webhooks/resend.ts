import { and, eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import { events, webhookAttempts, webhookDeliveries, webhookStats } from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import { presentDelivery } from './present';
import { findSubscription } from './subscriptions';

/**
 * POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend: one more attempt of a finished
 * delivery (succeeded, failed or cancelled), the same message (same event id, so the same
 * `webhook-id` and envelope id: receivers deduplicate it). The delivery goes back to `pending` and
 * its next attempt (numbered after the last) is a pg-boss job committed with that change; it is the
 * delivery's last attempt whatever its outcome (no retries follow a resend).
 *
 * Only a finished delivery can be resent, and the change from finished to pending is one guarded
 * update: an attempt still running (its delivery is pending) or a second resend racing this one
 * finds nothing to change and answers 409, so nothing is sent twice. The statistics count the
 * delivery once, by its latest outcome: its previous outcome is taken off the counters here, and
 * the resend's outcome is added when it is recorded.
 *
 * Refused (409): a pending delivery, a test send (not stored: send a new test instead), an event
 * past retention, a subscription that is not active or is a poll subscription. Another tenant's delivery is 404.
 */
export async function resendDelivery(svc: Services, principal: Principal, webhookId: string, deliveryId: string) {
  return unitOfWork(svc, async (tx, out) => {
    const subscription = await findSubscription(svc, principal.tenantId, webhookId, tx);
    const d = webhookDeliveries;
    const [row] = await tx
      .select({ delivery: d, eventAt: events.createdAt })
      .from(d)
      .leftJoin(events, eq(events.id, d.eventId))
      .where(and(eq(d.id, deliveryId), eq(d.subscriptionId, webhookId), eq(d.tenantId, principal.tenantId)));
    if (!row) throw notFound('delivery');
    const { delivery } = row;
    if (delivery.kind === 'test') throw conflict('A test send is not stored and cannot be resent; send a new test event instead.');
    if (subscription.status !== 'active') throw conflict('The subscription is disabled; enable it before resending a delivery.');
    if (subscription.suspendedAt !== null) throw conflict('The subscription is suspended by your plan; upgrade before resending.');
    if (subscription.kind === 'poll' || subscription.url === null) throw conflict('A poll subscription is not sent anything.');
    if (delivery.status === 'pending') throw conflict('The delivery is still pending: its next attempt is already scheduled.');
    if (!row.eventAt) throw conflict('The event is past its 30-day retention and cannot be resent.');
    // Guarded on the state read above: a concurrent resend changes it first, and this one changes nothing.
    const [updated] = await tx
      .update(d)
      .set({ status: 'pending', completedAt: null, nextAttemptAt: sql`now()` })
      .where(and(eq(d.id, delivery.id), eq(d.status, delivery.status), eq(d.attempts, delivery.attempts)))
      .returning();
    if (!updated) throw conflict('The delivery is being resent already.');
    if (delivery.status === 'succeeded' || delivery.status === 'failed') {
      const st = webhookStats;
      await tx
        .insert(st)
        .values({
          subscriptionId: subscription.id,
          shard: 0,
          deliveriesSucceeded: delivery.status === 'succeeded' ? -1 : 0,
          deliveriesFailed: delivery.status === 'failed' ? -1 : 0,
        })
        .onConflictDoUpdate({
          target: [st.subscriptionId, st.shard],
          set: {
            deliveriesSucceeded: sql`${st.deliveriesSucceeded} + excluded.deliveries_succeeded`,
            deliveriesFailed: sql`${st.deliveriesFailed} + excluded.deliveries_failed`,
          },
        });
    }
    await out.retry([
      { deliveryId: delivery.id, attempt: delivery.attempts + 1, delayMs: 0, subscriptionId: subscription.id, final: true },
    ]);
    await recordAudit(tx, principal.tenantId, {
      action: 'webhook.delivery_resent',
      target: { type: 'webhook_delivery', id: delivery.id },
      changes: { webhook_id: subscription.id, event_id: delivery.eventId, previous_status: delivery.status },
    });
    const attempts = await tx
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, delivery.id))
      .orderBy(webhookAttempts.attempt);
    return presentDelivery(updated, attempts);
  });
}
