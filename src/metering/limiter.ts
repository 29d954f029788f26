import type { Redis } from 'ioredis';

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when the current window ends. */
  resetAt: number;
  /** Whole seconds (≥ 1) until a request would be admitted; meaningful when !allowed. */
  retryAfterSeconds: number;
}

export interface Limiter {
  readonly backend: 'memory' | 'redis';
  /** Counts `cost` requests (0 = only report) against `key`'s sliding window. */
  limit(key: string, limit: number, windowMs: number, cost?: number): Promise<LimitResult>;
}

/**
 * The two-window sliding approximation (as Upstash and Cloudflare use), with the previous
 * window's weight rounded UP, so it never admits more than `limit` within any window length.
 */
export function slidingWindow(
  now: number,
  windowMs: number,
  limit: number,
  previous: number,
  current: number,
  cost: number,
): LimitResult & { admitted: boolean } {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const elapsed = (now - windowStart) / windowMs;
  const estimate = Math.ceil(previous * (1 - elapsed)) + current;
  const admitted = estimate + cost <= limit;
  const used = admitted ? estimate + cost : estimate;
  const allowed = cost === 0 ? estimate < limit : admitted;
  return {
    admitted: admitted && cost > 0,
    allowed,
    limit,
    remaining: Math.max(0, limit - used),
    resetAt: windowStart + windowMs,
    retryAfterSeconds: allowed ? 0 : retryAfter(now, windowStart, windowMs, limit, previous, current),
  };
}

/** Seconds until one more request fits, from the window arithmetic above. */
function retryAfter(now: number, windowStart: number, windowMs: number, limit: number, previous: number, current: number): number {
  const room = limit - current - 1;
  let at: number;
  if (room >= 0 && previous > 0) {
    at = windowStart + windowMs * (1 - room / previous);
  } else {
    const nextStart = windowStart + windowMs;
    at = current > 0 ? nextStart + windowMs * Math.max(0, 1 - (limit - 1) / current) : nextStart;
  }
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/** In-process store: the embedded default, and the fallback while Redis is unreachable. */
export class MemoryLimiter implements Limiter {
  readonly backend = 'memory' as const;
  private counts = new Map<string, { window: number; previous: number; current: number }>();
  private lastSweep = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async limit(key: string, limit: number, windowMs: number, cost = 1): Promise<LimitResult> {
    return this.limitSync(key, limit, windowMs, cost);
  }

  limitSync(key: string, limit: number, windowMs: number, cost = 1): LimitResult {
    const now = this.clock();
    this.sweep(now, windowMs);
    const window = Math.floor(now / windowMs);
    const mapKey = `${windowMs}:${key}`;
    let entry = this.counts.get(mapKey);
    if (!entry || entry.window < window - 1) entry = { window, previous: 0, current: 0 };
    else if (entry.window === window - 1) entry = { window, previous: entry.current, current: 0 };
    const result = slidingWindow(now, windowMs, limit, entry.previous, entry.current, cost);
    if (result.admitted) entry.current += cost;
    this.counts.set(mapKey, entry);
    return result;
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    const window = Math.floor(now / windowMs);
    for (const [k, v] of this.counts) if (v.window < window - 1) this.counts.delete(k);
  }
}

/**
 * Redis store: the same arithmetic in one Lua script, on Redis's clock, so all instances share
 * one pool per key.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local window = math.floor(now / windowMs)
local curKey = KEYS[1] .. ':' .. window
local prevKey = KEYS[1] .. ':' .. (window - 1)
local current = tonumber(redis.call('GET', curKey) or '0')
local previous = tonumber(redis.call('GET', prevKey) or '0')
local elapsed = (now - window * windowMs) / windowMs
local estimate = math.ceil(previous * (1 - elapsed)) + current
if cost > 0 and estimate + cost <= limit then
  redis.call('INCRBY', curKey, cost)
  redis.call('PEXPIRE', curKey, windowMs * 2 + 1000)
  current = current + cost
end
return { now, previous, current - ((cost > 0 and estimate + cost <= limit) and cost or 0) }
`;

export class RedisLimiter implements Limiter {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'amp:rl',
  ) {}

  async limit(key: string, limit: number, windowMs: number, cost = 1): Promise<LimitResult> {
    const [now, previous, current] = (await this.redis.eval(SCRIPT, 1, `${this.prefix}:${windowMs}:${key}`, windowMs, limit, cost)) as [
      number,
      number,
      number,
    ];
    return slidingWindow(now, windowMs, limit, previous, current, cost);
  }
}
