import type { Principal } from '../auth/principal';
import { encodeFeedCursor, FEED_START, feedEnvelope, readFeed, resolveFeedPosition, type FeedEvent } from '../events/feed';
import { matchesFilter } from '../lib/event-filter';
import { conflict } from '../lib/errors';
import type { Services } from '../services';
import type { Envelope } from './envelope';
import type { MessagesInput } from './schema';
import { findSubscription } from './subscriptions';

/** Reads of the log one page makes at most when a filter leaves events out (then `has_more` says to go on). */
const MAX_READS_PER_PAGE = 10;

/**
 * GET /api/v1/webhooks/{id}/messages: the tenant's events of the poll subscription's kinds (and
 * its filter) after `after` (a cursor, an event id or `now`; absent: the oldest retained), oldest
 * first. Every event once across pages, also while new ones are recorded (src/events/feed.ts).
 * A push subscription is 409: its events are POSTed, not kept for polling.
 */
export async function listMessages(svc: Services, principal: Principal, input: MessagesInput) {
  const subscription = await findSubscription(svc, principal.tenantId, input.id);
  if (subscription.kind !== 'poll')
    throw conflict('Only a poll subscription (kind "poll") is read with GET …/messages; this one pushes to its URL.');
  let position = input.after === undefined ? FEED_START : await resolveFeedPosition(svc.db, principal.tenantId, input.after);
  const kinds = subscription.events.includes('*') ? undefined : subscription.events;
  const kept: FeedEvent[] = [];
  let hasMore = false;
  for (let reads = 0; reads < MAX_READS_PER_PAGE; reads++) {
    const page = await readFeed(svc.db, principal.tenantId, position, kinds, input.limit - kept.length);
    for (const event of page.events) if (matchesFilter(subscription, event)) kept.push(event);
    // The cursor moves past every event examined, kept or left out by the filter.
    position = page.events.at(-1)?.position ?? position;
    hasMore = page.hasMore;
    if (!hasMore || kept.length === input.limit) break;
  }
  return {
    data: kept.map((e) => JSON.parse(feedEnvelope(e, svc.config.publicBaseUrl)) as Envelope),
    next_cursor: encodeFeedCursor(position),
    has_more: hasMore,
  };
}
