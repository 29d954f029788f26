import { and, eq, gte, inArray } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import { webhookDeliveries, webhookSubscriptions } from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import { sendEventsAgain, sendWindow, windowAnswer } from './replay';
import type { RecoverInput } from './schema';

/**
 * POST /api/v1/webhooks/{id}/recover: re-sends, as new deliveries (kind `recover`) with the same
 * event ids, the events of the subscribed kinds (and filter) in [since, until) that this subscription has not
 * received: every event recorded since the subscription was created with no succeeded and no
 * pending delivery to it (its deliveries failed or were cancelled, or it got none because the
 * subscription was disabled then). Oldest first; the window limits of replay (7 days back, 10,000
 * events per call, `next_since` continues).
 *
 * The subscription row is locked for the transaction, so two recovers of one subscription run one
 * after the other and the second finds the first's deliveries pending: an event is not queued twice.
 * `tenantId`: the caller's tenant (another tenant's subscription is 404); null for an operator
 * (POST /api/v1/admin/webhooks/{id}/recover), who reaches any tenant's.
 */
export async function recoverEvents(svc: Services, tenantId: string | null, input: RecoverInput) {
  const { recovered, window } = await unitOfWork(svc, async (tx, out) => {
    const s = webhookSubscriptions;
    const [subscription] = await tx
      .select()
      .from(s)
      .where(and(eq(s.id, input.id), tenantId ? eq(s.tenantId, tenantId) : undefined))
      .for('update');
    if (!subscription) throw notFound('webhook');
    if (subscription.status !== 'active') throw conflict('The subscription is disabled; enable it before recovering events.');
    if (subscription.kind === 'poll' || subscription.url === null) {
      throw conflict(
        'A poll subscription is not sent anything: read its events again with GET …/messages?after= an earlier cursor or event id.',
      );
    }
    const { since, until } = sendWindow(input, 'Recover');
    // Events from before the subscription existed were never meant for it (replay sends those).
    const from = since > subscription.createdAt ? since : subscription.createdAt;
    const d = webhookDeliveries;
    // A delivery is created after its event, so those of the window's events were created since `from`.
    const received = tx
      .select({ eventId: d.eventId })
      .from(d)
      .where(and(eq(d.subscriptionId, subscription.id), gte(d.createdAt, from), inArray(d.status, ['succeeded', 'pending'])));
    const { sent, nextSince } = await sendEventsAgain(svc, tx, out, subscription, { from, until, except: received }, 'recover');
    await recordAudit(tx, subscription.tenantId, {
      action: 'webhook.recovered',
      target: { type: 'webhook', id: subscription.id },
      changes: { since: since.toISOString(), until: until.toISOString(), recovered: sent },
    });
    return { recovered: sent, window: windowAnswer(since, until, nextSince) };
  });
  return { subscription_id: input.id, recovered, ...window };
}
