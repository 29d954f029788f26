import { and, asc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { events } from '../db/schema';
import { conflict, invalidRequest } from '../lib/errors';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import type { ReplayInput } from './schema';
import { matchingEvents } from './filter';
import { deliverInTurn } from './pace';
import { findSubscription } from './subscriptions';

export const REPLAY_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const REPLAY_MAX_EVENTS = 10_000;

/**
 * POST /api/v1/webhooks/{id}/replay: re-sends the tenant's recorded events of the subscribed
 * kinds in [since, until) as new deliveries of the same event ids (receivers dedupe on id).
 * At most 7 days back and 10,000 events per call; `next_since` continues a longer window.
 */
export async function replayEvents(svc: Services, principal: Principal, input: ReplayInput) {
  const subscription = await findSubscription(svc, principal.tenantId, input.id);
  if (subscription.kind === 'poll')
    throw conflict(
      'A poll subscription is not sent anything: read its events again with GET …/messages?after= an earlier cursor or event id.',
    );
  if (subscription.status !== 'active') throw conflict('The subscription is disabled; enable it before replaying events.');
  const now = Date.now();
  const since = new Date(input.since);
  const until = input.until ? new Date(input.until) : new Date(now);
  if (since.getTime() < now - REPLAY_WINDOW_MS) {
    throw invalidRequest('Replay reaches back at most 7 days.', [{ path: 'since', message: 'More than 7 days ago' }]);
  }
  if (until.getTime() <= since.getTime()) {
    throw invalidRequest('`until` must be after `since`.', [{ path: 'until', message: 'Not after since' }]);
  }
  const kinds = subscription.events.includes('*') ? undefined : subscription.events;
  const { replayed, nextSince } = await unitOfWork(svc, async (tx, out) => {
    const rows = await tx
      .select({ id: events.id, type: events.type, createdAt: events.createdAt })
      .from(events)
      .where(
        and(
          eq(events.tenantId, principal.tenantId),
          gte(events.createdAt, since),
          lt(events.createdAt, until),
          kinds ? inArray(events.type, kinds) : undefined,
        ),
      )
      .orderBy(asc(events.createdAt), asc(events.id))
      .limit(REPLAY_MAX_EVENTS + 1);
    // With a filter: only the matching ones (the 10,000 count the events examined).
    const batch = await matchingEvents(tx, subscription, rows.slice(0, REPLAY_MAX_EVENTS));
    // To a paced subscription, in turn (pace.ts): a long replay keeps the events' order.
    await deliverInTurn(
      svc,
      tx,
      out,
      subscription,
      batch.map((e) => ({ subscriptionId: subscription.id, tenantId: principal.tenantId, eventId: e.id, eventType: e.type })),
      'replay',
    );
    return { replayed: batch.length, nextSince: rows[REPLAY_MAX_EVENTS]?.createdAt ?? null };
  });
  return {
    subscription_id: subscription.id,
    replayed,
    since: since.toISOString(),
    until: until.toISOString(),
    has_more: nextSince !== null,
    next_since: nextSince?.toISOString() ?? null,
  };
}
