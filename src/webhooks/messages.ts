import type { Principal } from '../auth/principal';
import { encodeFeedCursor, FEED_START, feedEnvelope, readFeed, resolveFeedPosition } from '../events/feed';
import { conflict } from '../lib/errors';
import type { Services } from '../services';
import type { Envelope } from './envelope';
import type { MessagesInput } from './schema';
import { findSubscription } from './subscriptions';

/**
 * GET /api/v1/webhooks/{id}/messages: the tenant's events of the poll subscription's kinds after
 * `after` (a cursor, an event id or `now`; absent: the oldest retained), oldest first. Every
 * event once across pages, also while new ones are recorded (src/events/feed.ts). A push
 * subscription is 409: its events are POSTed, not kept for polling.
 */
export async function listMessages(svc: Services, principal: Principal, input: MessagesInput) {
  const subscription = await findSubscription(svc, principal.tenantId, input.id);
  if (subscription.kind !== 'poll')
    throw conflict('Only a poll subscription (kind "poll") is read with GET …/messages; this one pushes to its URL.');
  const after = input.after === undefined ? FEED_START : await resolveFeedPosition(svc.db, principal.tenantId, input.after);
  const kinds = subscription.events.includes('*') ? undefined : subscription.events;
  const { events, hasMore } = await readFeed(svc.db, principal.tenantId, after, kinds, input.limit);
  const last = events.at(-1)?.position ?? after;
  return {
    data: events.map((e) => JSON.parse(feedEnvelope(e, svc.config.publicBaseUrl)) as Envelope),
    next_cursor: encodeFeedCursor(last),
    has_more: hasMore,
  };
}
