import { and, asc, eq, gte, inArray, lt, notInArray, type SQLWrapper } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Tx } from '../db';
import { events, type DeliveryKind, type WebhookSubscriptionRow } from '../db/schema';
import { conflict, invalidRequest } from '../lib/errors';
import { unitOfWork, type Outbox } from '../outbox';
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
  const { since, until } = sendWindow(input, 'Replay');
  const { sent, nextSince } = await unitOfWork(svc, async (tx, out) => {
    const done = await sendEventsAgain(svc, tx, out, subscription, { from: since, until }, 'replay');
    await recordAudit(tx, principal.tenantId, {
      action: 'webhook.replayed',
      target: { type: 'webhook', id: subscription.id },
      changes: { since: since.toISOString(), until: until.toISOString(), replayed: done.sent },
    });
    return done;
  });
  return { subscription_id: subscription.id, replayed: sent, ...windowAnswer(since, until, nextSince) };
}

/** A replay or recover window, checked: at most 7 days back, `until` (default now) after `since`. */
export function sendWindow(input: { since: string; until?: string }, what: 'Replay' | 'Recover'): { since: Date; until: Date } {
  const now = Date.now();
  const since = new Date(input.since);
  const until = input.until ? new Date(input.until) : new Date(now);
  if (since.getTime() < now - REPLAY_WINDOW_MS) {
    throw invalidRequest(`${what} reaches back at most 7 days.`, [{ path: 'since', message: 'More than 7 days ago' }]);
  }
  if (until.getTime() <= since.getTime()) {
    throw invalidRequest('`until` must be after `since`.', [{ path: 'until', message: 'Not after since' }]);
  }
  return { since, until };
}

export function windowAnswer(since: Date, until: Date, nextSince: Date | null) {
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    has_more: nextSince !== null,
    next_since: nextSince?.toISOString() ?? null,
  };
}

/**
 * Sends the subscription's events again as new deliveries of `kind` with their own ids: those of
 * its kinds created in [from, until), but `except` (a subquery of event ids), oldest first, at
 * most REPLAY_MAX_EVENTS examined; with a filter only the matching ones (the 10,000 count the
 * events examined); to a paced subscription in turn (pace.ts), so a long window keeps its order.
 */
export async function sendEventsAgain(
  svc: Services,
  tx: Tx,
  out: Outbox,
  subscription: WebhookSubscriptionRow,
  window: { from: Date; until: Date; except?: SQLWrapper },
  kind: DeliveryKind,
): Promise<{ sent: number; nextSince: Date | null }> {
  const kinds = subscription.events.includes('*') ? undefined : subscription.events;
  const rows = await tx
    .select({ id: events.id, type: events.type, createdAt: events.createdAt })
    .from(events)
    .where(
      and(
        eq(events.tenantId, subscription.tenantId),
        gte(events.createdAt, window.from),
        lt(events.createdAt, window.until),
        kinds ? inArray(events.type, kinds) : undefined,
        window.except ? notInArray(events.id, window.except) : undefined,
      ),
    )
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(REPLAY_MAX_EVENTS + 1);
  const batch = await matchingEvents(tx, subscription, rows.slice(0, REPLAY_MAX_EVENTS));
  await deliverInTurn(
    svc,
    tx,
    out,
    subscription,
    batch.map((e) => ({ subscriptionId: subscription.id, tenantId: subscription.tenantId, eventId: e.id, eventType: e.type })),
    kind,
  );
  return { sent: batch.length, nextSince: rows[REPLAY_MAX_EVENTS]?.createdAt ?? null };
}
