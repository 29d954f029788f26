import { and, asc, eq, gte, inArray, lt, notInArray } from 'drizzle-orm';
import { events, webhookDeliveries, webhookSubscriptions } from '../db/schema';
import { conflict, invalidRequest, notFound } from '../lib/errors';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import { matchingEvents } from './filter';
import { deliverInTurn } from './pace';
import { REPLAY_MAX_EVENTS, REPLAY_WINDOW_MS } from './replay';
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
  const now = Date.now();
  const since = new Date(input.since);
  const until = input.until ? new Date(input.until) : new Date(now);
  const { recovered, nextSince } = await unitOfWork(svc, async (tx, out) => {
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
    if (since.getTime() < now - REPLAY_WINDOW_MS) {
      throw invalidRequest('Recover reaches back at most 7 days.', [{ path: 'since', message: 'More than 7 days ago' }]);
    }
    if (until.getTime() <= since.getTime()) {
      throw invalidRequest('`until` must be after `since`.', [{ path: 'until', message: 'Not after since' }]);
    }
    // Events from before the subscription existed were never meant for it (replay sends those).
    const from = since > subscription.createdAt ? since : subscription.createdAt;
    const kinds = subscription.events.includes('*') ? undefined : subscription.events;
    const d = webhookDeliveries;
    // A delivery is created after its event, so those of the window's events were created since `from`.
    const received = tx
      .select({ eventId: d.eventId })
      .from(d)
      .where(and(eq(d.subscriptionId, subscription.id), gte(d.createdAt, from), inArray(d.status, ['succeeded', 'pending'])));
    const rows = await tx
      .select({ id: events.id, type: events.type, createdAt: events.createdAt })
      .from(events)
      .where(
        and(
          eq(events.tenantId, subscription.tenantId),
          gte(events.createdAt, from),
          lt(events.createdAt, until),
          kinds ? inArray(events.type, kinds) : undefined,
          notInArray(events.id, received),
        ),
      )
      .orderBy(asc(events.createdAt), asc(events.id))
      .limit(REPLAY_MAX_EVENTS + 1);
    // With a filter: only the matching ones, as replay (the 10,000 count the events examined).
    const batch = await matchingEvents(tx, subscription, rows.slice(0, REPLAY_MAX_EVENTS));
    // To a paced subscription, in turn (pace.ts), as replay: a long recovery keeps the events' order.
    await deliverInTurn(
      svc,
      tx,
      out,
      subscription,
      batch.map((e) => ({ subscriptionId: subscription.id, tenantId: subscription.tenantId, eventId: e.id, eventType: e.type })),
      'recover',
    );
    return { recovered: batch.length, nextSince: rows[REPLAY_MAX_EVENTS]?.createdAt ?? null };
  });
  return {
    subscription_id: input.id,
    recovered,
    since: since.toISOString(),
    until: until.toISOString(),
    has_more: nextSince !== null,
    next_since: nextSince?.toISOString() ?? null,
  };
}
