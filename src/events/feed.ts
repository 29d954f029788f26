/**
 * The tenant's event log read in order from a position: what polling subscriptions
 * (GET /api/v1/webhooks/{id}/messages) and the event stream (GET /api/v1/events/stream) return.
 *
 * Order is (xid, seq): the writing transaction's id, then the insertion order. A read returns only
 * rows whose xid is below its snapshot's xmin, so every transaction that could still add a row
 * before the position returned has ended: a transaction that commits late can never slip in
 * behind a cursor, and every event is read exactly once by a reader that resumes from the
 * positions it was given. The price: an event shows once the transactions that began before its
 * own have ended (a transaction held open delays the feed until it ends).
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db';
import { events } from '../db/schema';
import { invalidRequest } from '../lib/errors';
import { envelopeBody } from '../webhooks/envelope';

/** A place in the feed: after the event at (xid, seq). (0, 0) is the beginning. */
export interface FeedPosition {
  xid: string;
  seq: number;
}

export const FEED_START: FeedPosition = { xid: '0', seq: 0 };

const DIGITS = /^\d{1,20}$/;

/** The opaque cursor of a position: base64url of `xid.seq`. */
export function encodeFeedCursor(position: FeedPosition): string {
  return Buffer.from(`${position.xid}.${position.seq}`).toString('base64url');
}

function decodeFeedCursor(cursor: string): FeedPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const [xid, seq, extra] = Buffer.from(cursor, 'base64url').toString('latin1').split('.');
  if (extra !== undefined || !xid || !seq || !DIGITS.test(xid) || !DIGITS.test(seq)) return undefined;
  const n = Number(seq);
  if (!Number.isSafeInteger(n) || BigInt(xid) >= 2n ** 64n) return undefined;
  return { xid: BigInt(xid).toString(), seq: n };
}

/**
 * The position `after` names: a cursor (`next_cursor` of a page), an event id (`evt_...`, e.g. an
 * SSE Last-Event-ID: the position of that event of the tenant), or `now` (every event recorded
 * from here on, including those of transactions still open). 400 when it names none.
 */
export async function resolveFeedPosition(db: Executor, tenantId: string, after: string, field = 'after'): Promise<FeedPosition> {
  if (after === 'now') {
    const [row] = await queryRows<{ xid: string }>(db, sql`select pg_snapshot_xmin(pg_current_snapshot())::text as xid`);
    // (xmin, 0) sorts before every row of a transaction not yet ended, after every ended one.
    return { xid: row!.xid, seq: 0 };
  }
  if (after.startsWith('evt_')) {
    const [row] = await queryRows<{ xid: string; seq: string | number }>(
      db,
      sql`select ${events.xid}::text as xid, ${events.seq} as seq from ${events} where ${events.id} = ${after} and ${events.tenantId} = ${tenantId}`,
    );
    if (!row)
      throw invalidRequest(`No event ${after} of this tenant (past its retention, or never).`, [
        { path: field, message: 'Unknown event id' },
      ]);
    return { xid: row.xid, seq: Number(row.seq) };
  }
  const position = decodeFeedCursor(after);
  if (!position)
    throw invalidRequest('`after` takes a cursor from a previous page, an event id (evt_...) or `now`.', [
      { path: field, message: 'Not a cursor, event id or now' },
    ]);
  return position;
}

export interface FeedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
  position: FeedPosition;
}

/**
 * Up to `limit` of the tenant's events after `after`, of the kinds `kinds` lists (all when
 * undefined), oldest first, and whether more are readable now.
 */
export async function readFeed(
  db: Executor,
  tenantId: string,
  after: FeedPosition,
  kinds: readonly string[] | undefined,
  limit: number,
): Promise<{ events: FeedEvent[]; hasMore: boolean }> {
  const e = events;
  const kindFilter = kinds
    ? sql`and ${e.type} in (${sql.join(
        kinds.map((k) => sql`${k}`),
        sql`, `,
      )})`
    : sql``;
  const rows = await queryRows<{
    id: string;
    type: string;
    data: Record<string, unknown>;
    created_at: string | Date;
    xid: string;
    seq: string | number;
  }>(
    db,
    sql`select ${e.id} as id, ${e.type} as type, ${e.data} as data, ${e.createdAt} as created_at, ${e.xid}::text as xid, ${e.seq} as seq
      from ${e}
      where ${e.tenantId} = ${tenantId}
        and (${e.xid}, ${e.seq}) > (${after.xid}::xid8, ${after.seq}::bigint)
        and ${e.xid} < pg_snapshot_xmin(pg_current_snapshot())
        ${kindFilter}
      order by ${e.xid}, ${e.seq}
      limit ${limit + 1}`,
  );
  return {
    events: rows.slice(0, limit).map((r) => ({
      id: r.id,
      type: r.type,
      data: typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, unknown>) : r.data,
      createdAt: new Date(r.created_at),
      position: { xid: r.xid, seq: Number(r.seq) },
    })),
    hasMore: rows.length > limit,
  };
}

/** The envelope `{id, event, timestamp, data}` of an event, exactly as a push delivery sends it (as JSON text). */
export function feedEnvelope(event: FeedEvent, baseUrl: string): string {
  return envelopeBody({ id: event.id, event: event.type, timestamp: event.createdAt.toISOString(), data: event.data }, baseUrl);
}
