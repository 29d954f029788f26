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

export interface Limiter {
  readonly backend: 'memory' | 'redis';
  /** Counts `cost` requests (0 = only report) against `key`'s sliding window. */
  limit(key: string, limit: number, windowMs: number, cost?: number): Promise<LimitResult>;
}

/** Resolution of the sliding window: counts are kept per second. */
export const BUCKET_MS = 1000;

/** bucket index (epoch ms / BUCKET_MS) -> requests counted in it */
export type Buckets = Map<number, number>;

/**
 * A sliding window of `windowMs` over one-second buckets. Every bucket that overlaps the last
 * `windowMs` counts in full, so the limiter never admits more than `limit` requests within any
 * window-length span (the two-window approximation, even rounded up, can admit up to twice
 * the limit across a window edge after a burst at the end of a window). The price: a refused
 * caller may wait up to one second longer than an exact log would make it.
 */
export function evaluateWindow(now: number, windowMs: number, limit: number, cost: number, buckets: Buckets): LimitResult & { admitted: boolean } {
  const oldest = Math.floor((now - windowMs) / BUCKET_MS);
  const live = [...buckets].filter(([b]) => b >= oldest).sort((a, b) => a[0] - b[0]);
  const used = live.reduce((sum, [, n]) => sum + n, 0);
  const admitted = cost > 0 && used + cost <= limit;
  const counted = admitted ? used + cost : used;
  const allowed = cost === 0 ? used < limit : admitted;
  const need = Math.max(1, cost);
  const freesAt = (bucket: number) => (bucket + 1) * BUCKET_MS + windowMs;
  let resetAt = live.length > 0 ? freesAt(live[0]![0]) : admitted ? freesAt(Math.floor(now / BUCKET_MS)) : now;
  if (!allowed) {
    // The earliest moment enough old buckets have left the window for `need` more requests.
    let remainingUsed = used;
    for (const [bucket, n] of live) {
      remainingUsed -= n;
      resetAt = freesAt(bucket);
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

/** In-process store: the embedded default, and the fallback while Redis is unreachable. */
export class MemoryLimiter implements Limiter {
  readonly backend = 'memory' as const;
  private windows = new Map<string, { windowMs: number; buckets: Buckets }>();
  private lastSweep = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async limit(key: string, limit: number, windowMs: number, cost = 1): Promise<LimitResult> {
    return this.limitSync(key, limit, windowMs, cost);
  }

  limitSync(key: string, limit: number, windowMs: number, cost = 1): LimitResult {
    const now = this.clock();
    this.sweep(now);
    const mapKey = `${windowMs}:${key}`;
    const entry = this.windows.get(mapKey) ?? { windowMs, buckets: new Map() };
    const result = evaluateWindow(now, windowMs, limit, cost, entry.buckets);
    if (result.admitted) {
      const bucket = Math.floor(now / BUCKET_MS);
      entry.buckets.set(bucket, (entry.buckets.get(bucket) ?? 0) + cost);
      this.windows.set(mapKey, entry);
    }
    return result;
  }

  /** Drops buckets (and keys) that have left their own window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [k, entry] of this.windows) {
      const oldest = Math.floor((now - entry.windowMs) / BUCKET_MS);
      for (const b of entry.buckets.keys()) if (b < oldest) entry.buckets.delete(b);
      if (entry.buckets.size === 0) this.windows.delete(k);
    }
  }
}

/**
 * Redis store: one hash of buckets per key, read, pruned and (when it fits) incremented in one
 * Lua script on Redis's clock, so every instance shares one pool per key.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local bucketMs = tonumber(ARGV[4])
local oldest = math.floor((now - windowMs) / bucketMs)
local all = redis.call('HGETALL', KEYS[1])
local used = 0
local live = {}
for i = 1, #all, 2 do
  local b = tonumber(all[i])
  if b < oldest then
    redis.call('HDEL', KEYS[1], all[i])
  else
    used = used + tonumber(all[i + 1])
    live[#live + 1] = all[i]
    live[#live + 1] = all[i + 1]
  end
end
if cost > 0 and used + cost <= limit then
  redis.call('HINCRBY', KEYS[1], tostring(math.floor(now / bucketMs)), cost)
  redis.call('PEXPIRE', KEYS[1], windowMs + bucketMs)
end
return { now, live }
`;

export class RedisLimiter implements Limiter {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: RedisLike,
    private readonly prefix = 'amp:rl',
  ) {}

  async limit(key: string, limit: number, windowMs: number, cost = 1): Promise<LimitResult> {
    const [now, flat] = (await this.redis.eval(SCRIPT, [`${this.prefix}:${windowMs}:${key}`], [windowMs, limit, cost, BUCKET_MS])) as [number, string[]];
    const buckets: Buckets = new Map();
    for (let i = 0; i < flat.length; i += 2) buckets.set(Number(flat[i]), Number(flat[i + 1]));
    // Same inputs, same arithmetic: this reproduces the script's decision.
    return evaluateWindow(now, windowMs, limit, cost, buckets);
  }
}
