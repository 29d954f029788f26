import { acquireSlotLua, SLOT_PREFIX } from './concurrency';
import type { RedisLike } from './redis';

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when capacity next frees up (when refused: when a retry fits). */
  resetAt: number;
  /** Whole seconds (≥ 1) until a request would be admitted; 0 when allowed. */
  retryAfterSeconds: number;
}

/** A version kept in Redis (the key cache's revocation counter) and the value the caller last saw. */
export interface VersionGuard {
  key: string;
  version: string;
}

/**
 * An execution slot to take in the same round trip when the request is admitted (the tenant's
 * in-flight set, src/metering/concurrency.ts): `key` as the slot store names it, at most `limit`
 * held, expiring after `ttlMs` if never released, held under `id`.
 */
export interface SlotRequest {
  key: string;
  limit: number;
  ttlMs: number;
  id: string;
}

export interface Limiter {
  readonly backend: 'memory' | 'redis';
  /** Counts `cost` requests (0 = only report) against `key`'s sliding window. */
  limit(key: string, limit: number, windowMs: number, cost?: number): Promise<LimitResult>;
  /**
   * As `limit`, in the same round trip as a check that `guard.key` still holds `guard.version`:
   * when it does not, nothing is counted and the answer is `stale`. The in-process store cannot
   * check a shared version and always answers `stale` (callers then take their uncached path).
   */
  limitIfCurrent(
    key: string,
    limit: number,
    windowMs: number,
    cost: number,
    guard: VersionGuard,
    slot?: SlotRequest,
  ): Promise<(LimitResult & { slot?: boolean }) | 'stale'>;
}

/** Resolution of the sliding window: counts are kept per second. */
export const BUCKET_MS = 1000;

/** The requests counted in one bucket and when the latest of them was admitted (epoch ms). */
export interface Bucket {
  count: number;
  last: number;
}

/** bucket index (epoch ms / BUCKET_MS) -> its requests */
export type Buckets = Map<number, Bucket>;

/**
 * A sliding window of `windowMs` over one-second buckets. A bucket counts in full until
 * `windowMs` after the latest request it holds, so every request counts for at least
 * `windowMs` and the limiter never admits more than `limit` requests within any window-length
 * span (the two-window approximation, even rounded up, can admit up to twice the limit across
 * a window edge after a burst at the end of a window). And a refused caller never waits more
 * than the window: Retry-After is at most `windowMs` in seconds (60, never 61).
 */
export function evaluateWindow(
  now: number,
  windowMs: number,
  limit: number,
  cost: number,
  buckets: Buckets,
): LimitResult & { admitted: boolean } {
  const live = [...buckets].filter(([, b]) => b.last + windowMs > now).sort((a, b) => a[0] - b[0]);
  const used = live.reduce((sum, [, b]) => sum + b.count, 0);
  const admitted = cost > 0 && used + cost <= limit;
  const counted = admitted ? used + cost : used;
  const allowed = cost === 0 ? used < limit : admitted;
  const need = Math.max(1, cost);
  let resetAt = live.length > 0 ? live[0]![1].last + windowMs : admitted ? now + windowMs : now;
  if (!allowed) {
    // The earliest moment enough old buckets have left the window for `need` more requests.
    let remainingUsed = used;
    for (const [, bucket] of live) {
      remainingUsed -= bucket.count;
      resetAt = bucket.last + windowMs;
      if (remainingUsed + need <= limit) break;
    }
  }
  return {
    admitted,
    allowed,
    limit,
    remaining: Math.max(0, limit - counted),
    resetAt,
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetAt - now) / 1000)),
  };
}

interface QueuedCall {
  key: string;
  limit: number;
  windowMs: number;
  cost: number;
  resolve(result: LimitResult): void;
  reject(err: unknown): void;
}

/**
 * In-process store: the embedded default, and the fallback while Redis is unreachable.
 *
 * `limit` decides once per event-loop turn, in arrival order, as the Redis store's pipeline does
 * (src/metering/redis.ts): a turn's identical reports (cost 0) share one reading of the window,
 * and the turn's requests go on together. Answering each request inside its own socket callback
 * costs about twice the CPU per authenticated read (docs/performance.md, One Redis round trip).
 */
export class MemoryLimiter implements Limiter {
  readonly backend = 'memory' as const;
  private windows = new Map<string, { windowMs: number; buckets: Buckets }>();
  private lastSweep = 0;
  private queued: QueuedCall[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  limit(key: string, limit: number, windowMs: number, cost = 1): Promise<LimitResult> {
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.decideQueued());
      this.queued.push({ key, limit, windowMs, cost, resolve, reject });
    });
  }

  private decideQueued(): void {
    const calls = this.queued;
    this.queued = [];
    // The reports read since the last count of the turn, by pool.
    let reports = new Map<string, LimitResult>();
    for (const call of calls) {
      try {
        if (call.cost > 0) {
          reports = new Map();
          call.resolve(this.limitSync(call.key, call.limit, call.windowMs, call.cost));
          continue;
        }
        const pool = `${call.windowMs}:${call.limit}:${call.key}`;
        let report = reports.get(pool);
        if (!report) reports.set(pool, (report = this.limitSync(call.key, call.limit, call.windowMs, 0)));
        call.resolve(report);
      } catch (err) {
        call.reject(err); // one call's failure is its own, never the turn's
      }
    }
  }

  async limitIfCurrent(): Promise<'stale'> {
    return 'stale';
  }

  limitSync(key: string, limit: number, windowMs: number, cost = 1): LimitResult {
    const now = this.clock();
    this.sweep(now);
    const mapKey = `${windowMs}:${key}`;
    const entry = this.windows.get(mapKey) ?? { windowMs, buckets: new Map() };
    const result = evaluateWindow(now, windowMs, limit, cost, entry.buckets);
    if (result.admitted) {
      const bucket = Math.floor(now / BUCKET_MS);
      entry.buckets.set(bucket, { count: (entry.buckets.get(bucket)?.count ?? 0) + cost, last: now });
      this.windows.set(mapKey, entry);
    }
    return result;
  }

  /** Drops buckets (and keys) that have left their own window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [k, entry] of this.windows) {
      for (const [b, bucket] of entry.buckets) if (bucket.last + entry.windowMs <= now) entry.buckets.delete(b);
      if (entry.buckets.size === 0) this.windows.delete(k);
    }
  }
}

/**
 * Redis store: one hash of buckets per key (field: bucket index, value: `count:last`), read,
 * pruned and (when it fits) incremented in one Lua script on Redis's clock, so every instance
 * shares one pool per key. A bare count (written before `last` was kept) is taken to end with
 * its bucket. The script also decides the answer with evaluateWindow's arithmetic (DECIDE): it
 * returns `now`, allowed (1/0), the count after the call and resetAt, so the client parses four
 * numbers instead of up to 60 buckets on every request.
 *
 * The hash also keeps the live buckets' sum (`s`) and the earliest live bucket (`f`), so an
 * admitted request reads two buckets, not the whole window: buckets leave the window in index
 * order (a later bucket's latest request is later), so pruning walks forward from `f`. A hash
 * without them (written before they were kept) is read whole once. Only a refusal, which needs
 * every live bucket for its reset time, reads the whole window.
 */
const WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local bucketMs = tonumber(ARGV[4])
local current = math.floor(now / bucketMs)
local function bucketOf(field, value)
  local n, last = string.match(value, '^(%d+):(%d+)$')
  if n then return tonumber(n), tonumber(last) end
  return tonumber(value), (field + 1) * bucketMs - 1
end
local used = 0
local first = nil
local firstLast = nil
local pruned = false
-- The whole window, read and pruned: its live buckets in index order.
local function liveBuckets()
  local live = {}
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local b = tonumber(all[i])
    if b then
      local n, last = bucketOf(b, all[i + 1])
      if last + windowMs <= now then
        redis.call('HDEL', KEYS[1], all[i])
      else
        live[#live + 1] = { b = b, n = n, last = last }
      end
    end
  end
  table.sort(live, function(x, y) return x.b < y.b end)
  return live
end
local function scanAll()
  local live = liveBuckets()
  used = 0
  for _, e in ipairs(live) do used = used + e.n end
  first = live[1] and live[1].b
  firstLast = live[1] and live[1].last
  pruned = true
end
local currentField = string.format('%d', current)
-- The current bucket comes with the sums: the walk below and the count read it from here.
local meta = redis.call('HMGET', KEYS[1], 's', 'f', currentField)
local held = meta[3]
if meta[1] then
  used = tonumber(meta[1])
  local b = tonumber(meta[2]) or current + 1
  while b <= current do
    local field = string.format('%d', b)
    local value = held
    if b ~= current then value = redis.call('HGET', KEYS[1], field) end
    if value then
      local n, last = bucketOf(b, value)
      if last + windowMs > now then
        first = b
        firstLast = last
        break
      end
      used = used - n
      redis.call('HDEL', KEYS[1], field)
      pruned = true
    end
    b = b + 1
  end
  -- Nothing live found but buckets left (Redis's clock stepped back): count them afresh.
  if first == nil and redis.call('HLEN', KEYS[1]) > 2 then scanAll() end
else
  scanAll()
end
if first == nil then used = 0 end
local admitted = cost > 0 and used + cost <= limit
if admitted then
  local n = 0
  if held then n = tonumber(string.match(held, '^(%d+)')) end
  redis.call('HSET', KEYS[1], currentField, string.format('%d:%d', n + cost, now), 's', string.format('%d', used + cost), 'f', string.format('%d', math.min(first or current, current)))
  -- Set when a bucket opens: every request it will hold falls within a second of that moment, so
  -- the key outlives the window of each of them.
  if not held then redis.call('PEXPIRE', KEYS[1], windowMs + bucketMs) end
elseif first == nil then
  redis.call('DEL', KEYS[1])
elseif pruned then
  redis.call('HSET', KEYS[1], 's', string.format('%d', used), 'f', string.format('%d', first))
end
`;
/** evaluateWindow in Lua, on the live buckets before this call: `allowed`, `counted`, `resetAt`. */
const DECIDE = `
local allowed = admitted
if cost == 0 then allowed = used < limit end
local counted = used
if admitted then counted = used + cost end
local resetAt = now
if admitted then resetAt = now + windowMs end
if first then resetAt = firstLast + windowMs end
if not allowed then
  local live = liveBuckets()
  local need = math.max(1, cost)
  local remainingUsed = used
  for _, e in ipairs(live) do
    remainingUsed = remainingUsed - e.n
    resetAt = e.last + windowMs
    if remainingUsed + need <= limit then break end
  end
end
local decided = { now, allowed and 1 or 0, counted, resetAt }
`;
const SCRIPT = `${WINDOW}${DECIDE}
return decided
`;
const GUARD = `
local version = redis.call('GET', KEYS[2]) or '0'
if version ~= ARGV[5] then return { 'stale', version } end
`;
/** The window script behind a version check (KEYS[2] must still hold ARGV[5]): one round trip for both. */
const GUARDED_SCRIPT = `${GUARD}${WINDOW}${DECIDE}
return decided
`;
/**
 * GUARDED_SCRIPT that also takes an execution slot (KEYS[3], limit ARGV[6], TTL ARGV[7], id
 * ARGV[8]) when the request was admitted: admission of an execute request in one round trip.
 */
const GUARDED_SLOT_SCRIPT = `${GUARD}${WINDOW}${DECIDE}
local slot = 0
if admitted then
${acquireSlotLua('KEYS[3]', 'ARGV[6]', 'ARGV[7]', 'ARGV[8]')}
end
decided[5] = slot
return decided
`;

/** What the scripts answer: now, allowed (1/0), the count after the call, resetAt (epoch ms), and for GUARDED_SLOT_SCRIPT whether the slot was taken. */
type Decided = [now: number, allowed: number, counted: number, resetAt: number, slot?: number];

export class RedisLimiter implements Limiter {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: RedisLike,
    private readonly prefix = 'amp:rl',
    private readonly slotPrefix = SLOT_PREFIX,
  ) {}

  async limit(key: string, limit: number, windowMs: number, cost = 1): Promise<LimitResult> {
    // A report (cost 0) only prunes what has left the window: identical reports may share a call.
    // Counts of one turn run in sequence in one call, each with its own answer.
    const reply = (await this.redis.eval(
      SCRIPT,
      [`${this.prefix}:${windowMs}:${key}`],
      [windowMs, limit, cost, BUCKET_MS],
      cost === 0 ? 'identical' : 'sequence',
    )) as Decided;
    return this.decide(reply, limit);
  }

  async limitIfCurrent(
    key: string,
    limit: number,
    windowMs: number,
    cost: number,
    guard: VersionGuard,
    slot?: SlotRequest,
  ): Promise<(LimitResult & { slot?: boolean }) | 'stale'> {
    const keys = [`${this.prefix}:${windowMs}:${key}`, guard.key];
    const args: (string | number)[] = [windowMs, limit, cost, BUCKET_MS, guard.version];
    if (slot) {
      keys.push(`${this.slotPrefix}:${slot.key}`);
      args.push(slot.limit, slot.ttlMs, slot.id);
    }
    const reply = (await this.redis.eval(
      slot ? GUARDED_SLOT_SCRIPT : GUARDED_SCRIPT,
      keys,
      args,
      cost === 0 && !slot ? 'identical' : 'sequence',
    )) as Decided | ['stale', string];
    if (reply[0] === 'stale') return 'stale';
    const result = this.decide(reply as Decided, limit);
    return slot ? { ...result, slot: Number(reply[4]) === 1 } : result;
  }

  /** The script's decision (DECIDE) as a LimitResult, with evaluateWindow's remaining and Retry-After. */
  private decide([now, allowed, counted, resetAt]: Decided, limit: number): LimitResult {
    const ok = Number(allowed) === 1;
    return {
      allowed: ok,
      limit,
      remaining: Math.max(0, limit - Number(counted)),
      resetAt: Number(resetAt),
      retryAfterSeconds: ok ? 0 : Math.max(1, Math.ceil((Number(resetAt) - Number(now)) / 1000)),
    };
  }
}
