/**
 * GET /api/v1/events/stream: the tenant's events as Server-Sent Events, as they are recorded
 * (docs/webhooks.md, Event stream).
 *
 * Order: method (405) -> admission as every tenant operation (src/server/admission.ts:
 * authenticate 401, the tenant's request pool 429, scope `*` and a webhook plan 403) -> query
 * and Last-Event-ID (400) -> the tenant's open streams (429 beyond STREAMS_PER_TENANT; across
 * instances with Redis, else on this instance). Refusals use the API's error format; then the stream starts (200,
 * text/event-stream) and carries `id: <event id>`, `event: <kind>`, `data: <envelope>` per event.
 *
 * The database is the source of truth: each stream reads the log from its position (the feed's
 * (xid, seq) order below the snapshot's xmin, src/events/feed.ts) every POLL_MS, and at once when
 * this instance commits one of the tenant's events; events written by other instances are seen at
 * the next read. A comment line every HEARTBEAT_MS keeps proxies from closing an idle stream.
 * When the instance begins to shut down, streams end (the client reconnects elsewhere with
 * Last-Event-ID).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_TYPES } from '../../contract/events';
import { feedEnvelope, readFeed, resolveFeedPosition, type FeedPosition } from '../../events/feed';
import { isDraining } from '../../health/probes';
import type { Services } from '../../services';
import { admitTenant, assertAllowed, header, reportedPool } from '../admission';
import type { Requirements } from '../openapi-parts';
import type { Context } from '../context';
import { AppError, invalidRequest } from '../errors';
import { sendError } from './respond';
import { searchParamsOf } from './target';

export const EVENT_STREAM_PATH = '/api/v1/events/stream';
/** Streams one tenant may hold open at once (across instances with Redis, else per instance). */
export const STREAMS_PER_TENANT = 5;
/** What opening a stream requires, as the webhook endpoints do (its OpenAPI 403 says so). */
export const STREAM_REQUIRES = { scope: '*', feature: 'webhooks', roleScope: 'webhooks:read' } as const satisfies Requirements;
/** How often a stream reads the log when nothing woke it. */
const POLL_MS = 1_000;
/** A comment line after this long without writing. */
const HEARTBEAT_MS = 15_000;
/** Events read (and written) per read of the log. */
const READ_BATCH = 100;
/** What EventSource clients wait before reconnecting (the `retry:` field). */
const RETRY_MS = 2_000;

/** A stream's claim on one of its tenant's STREAMS_PER_TENANT places. */
interface StreamSlot {
  /** Keeps a shared claim alive (called about every second; writes at most every SLOT_REFRESH_MS). */
  refresh(): void;
  release(): void;
}

/** Open streams per tenant, per Services (instance): the count without Redis. */
const localStreams = new WeakMap<Services, Map<string, number>>();

/** With Redis the claims are shared by every instance: a sorted set per tenant, member = stream, score = expiry. */
const SLOT_TTL_MS = 30_000;
const SLOT_REFRESH_MS = 10_000;
const CLAIM_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
const REFRESH_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;
const RELEASE_SCRIPT = `return redis.call('ZREM', KEYS[1], ARGV[1])`;

/**
 * One of the tenant's places, or undefined when all STREAMS_PER_TENANT are taken: across
 * instances with Redis (a claim lapses SLOT_TTL_MS after its instance stopped refreshing it, e.g.
 * a crash), else on this instance. Redis unreachable: counted on this instance meanwhile.
 */
async function claimSlot(svc: Services, tenantId: string): Promise<StreamSlot | undefined> {
  const { redis } = svc;
  if (redis) {
    const key = `amp:streams:${tenantId}`;
    const id = randomUUID();
    let claimed: unknown;
    try {
      claimed = await redis.eval(CLAIM_SCRIPT, [key], [STREAMS_PER_TENANT, SLOT_TTL_MS, id], 'sequence');
    } catch (err) {
      svc.logger.warn({ err, tenantId }, 'event stream slot: Redis unreachable, counted on this instance');
    }
    if (claimed !== undefined) {
      if (Number(claimed) !== 1) return undefined;
      let refreshed = Date.now();
      const failed = (err: unknown) => svc.logger.warn({ err, tenantId }, 'event stream slot: Redis call failed');
      return {
        refresh() {
          if (Date.now() - refreshed < SLOT_REFRESH_MS) return;
          refreshed = Date.now();
          redis.eval(REFRESH_SCRIPT, [key], [SLOT_TTL_MS, id], 'sequence').catch(failed);
        },
        release: () => void redis.eval(RELEASE_SCRIPT, [key], [id], 'sequence').catch(failed),
      };
    }
  }
  let open = localStreams.get(svc);
  if (!open) localStreams.set(svc, (open = new Map()));
  const n = open.get(tenantId) ?? 0;
  if (n >= STREAMS_PER_TENANT) return undefined;
  open.set(tenantId, n + 1);
  const counts = open;
  return {
    refresh() {},
    release() {
      const left = (counts.get(tenantId) ?? 1) - 1;
      if (left > 0) counts.set(tenantId, left);
      else counts.delete(tenantId);
    },
  };
}

interface StreamQuery {
  kinds?: string[];
  after?: string;
  field: string;
}

function parseQuery(target: string, lastEventId: string | undefined): StreamQuery {
  const params = searchParamsOf(target);
  for (const name of new Set(params.keys())) {
    if (name !== 'events' && name !== 'after')
      throw invalidRequest(`Unknown query parameter '${name}'.`, [{ path: name, message: 'Unknown parameter' }]);
    if (params.getAll(name).length > 1) throw invalidRequest(`Give '${name}' once.`, [{ path: name, message: 'Given more than once' }]);
  }
  let kinds: string[] | undefined;
  const events = params.get('events');
  if (events !== null) {
    kinds = [...new Set(events.split(',').map((k) => k.trim()))];
    const unknown = kinds.find((k) => k !== '*' && !(EVENT_TYPES as readonly string[]).includes(k));
    if (unknown !== undefined || kinds.length === 0)
      throw invalidRequest(`Unknown event kind '${unknown ?? ''}'. Use "*" or one of: ${EVENT_TYPES.join(', ')}.`, [
        { path: 'events', message: 'Unknown event kind' },
      ]);
    if (kinds.includes('*')) kinds = undefined;
  }
  // A reconnecting EventSource sends the last id it got: that wins over the URL's starting point.
  const resume = lastEventId?.trim();
  if (resume) return { kinds, after: resume, field: 'Last-Event-ID' };
  return { kinds, after: params.get('after') ?? undefined, field: 'after' };
}

export async function handleEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  ctx: Context,
  base: Record<string, string>,
): Promise<void> {
  const { svc, requestId } = ctx;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const err = new AppError('method_not_allowed', 'Use GET on this path.', { allowed_methods: ['GET'] });
    return sendError(res, err, requestId, { ...base, ...(await reportedPool(ctx)), Allow: 'GET, OPTIONS' }, svc.config.publicBaseUrl);
  }
  let tenantId: string;
  let query: StreamQuery;
  let position: FeedPosition;
  let slot: StreamSlot | undefined;
  try {
    const { principal } = await admitTenant(ctx, false, false);
    try {
      assertAllowed(principal, STREAM_REQUIRES.scope, STREAM_REQUIRES.feature, STREAM_REQUIRES.roleScope);
    } catch (err) {
      svc.metrics.refused(err);
      throw err;
    }
    tenantId = principal.tenantId;
    query = parseQuery(target, header(req.headers, 'last-event-id'));
    position = await resolveFeedPosition(svc.db, tenantId, query.after ?? 'now', query.field);
    slot = await claimSlot(svc, tenantId);
    if (!slot) {
      const err = new AppError(
        'concurrency_limit_exceeded',
        `At most ${STREAMS_PER_TENANT} event streams of a tenant are open at once; close one first.`,
        { limit: STREAMS_PER_TENANT, retry_after: 5 },
        { 'Retry-After': '5' },
      );
      svc.metrics.refused(err);
      throw err;
    }
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return sendError(res, err, requestId, { ...base, ...ctx.res.headers }, svc.config.publicBaseUrl);
  }
  res.writeHead(200, {
    ...base,
    ...ctx.res.headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
  });
  const claimed = slot;
  if (req.method === 'HEAD') {
    claimed.release();
    return void res.end();
  }
  await runStream(svc, res, tenantId, query.kinds, position, claimed).finally(() => claimed.release());
}

async function runStream(
  svc: Services,
  res: ServerResponse,
  tenantId: string,
  kinds: string[] | undefined,
  from: FeedPosition,
  slot: StreamSlot,
) {
  let position = from;
  let closed = false;
  let wake: (() => void) | undefined;
  /** Set by a wake-up that came while no sleep was waiting (during a read): the next sleep is skipped. */
  let woken = false;
  const wakeUp = () => {
    woken = true;
    wake?.();
  };
  res.once('close', () => {
    closed = true;
    wakeUp();
  });
  // This instance's commits of the tenant's events wake the stream at once (others' are read at the next poll).
  const unsubscribe = svc.outbox.afterCommit(({ events }) => {
    if (events.some((e) => e.tenantId === tenantId)) wakeUp();
  });
  let lastWrite = Date.now();
  const write = async (chunk: string) => {
    lastWrite = Date.now();
    if (!res.write(chunk))
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
  };
  try {
    await write(`retry: ${RETRY_MS}\n: connected\n\n`);
    while (!closed && !isDraining(svc)) {
      slot.refresh();
      let more = false;
      try {
        const page = await readFeed(svc.db, tenantId, position, kinds, READ_BATCH);
        for (const event of page.events) {
          if (closed) break;
          await write(`id: ${event.id}\nevent: ${event.type}\ndata: ${feedEnvelope(event, svc.config.publicBaseUrl)}\n\n`);
          position = event.position;
        }
        more = page.hasMore;
      } catch (err) {
        // The database is unreachable for now: the stream stays open and reads again at the next poll.
        svc.logger.warn({ err, tenantId }, 'event stream read failed');
      }
      if (more || closed) continue;
      if (woken) {
        woken = false;
        continue;
      }
      if (Date.now() - lastWrite >= HEARTBEAT_MS) await write(': heartbeat\n\n');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(POLL_MS, Math.max(0, HEARTBEAT_MS - (Date.now() - lastWrite))));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      woken = false;
    }
  } finally {
    unsubscribe();
    if (!res.writableEnded) res.end();
  }
}
