import { identifierBase62 } from '../lib/ids';
import type { Logger } from '../logger';
import type { RedisLike } from './redis';

/** Counts in-flight executions per tenant. A slot is held for one execution and released after. */
export interface SlotStore {
  readonly backend: 'memory' | 'redis';
  /** A slot id, or null when `limit` slots are already held. */
  acquire(key: string, limit: number, ttlMs: number): Promise<string | null>;
  /** Up to `count` slots at once, as many as are free (possibly none): their ids. */
  acquireUpTo(key: string, limit: number, count: number, ttlMs: number): Promise<string[]>;
  /** Gives the slots `ids` of `key` back, in one round trip. */
  releaseAll(key: string, ids: string[]): Promise<void>;
  /** Moves the expiry of the slots `ids` of `key` that are still held to `ttlMs` from now (a holder still running). */
  renew(key: string, ids: string[], ttlMs: number): Promise<void>;
  inFlight(key: string): Promise<number>;
}

export class MemorySlots implements SlotStore {
  readonly backend = 'memory' as const;
  /** Per key: slot id -> expiry (epoch ms), and no slot expires before `nextExpiry`. */
  private held = new Map<string, { slots: Map<string, number>; nextExpiry: number }>();

  async acquire(key: string, limit: number, ttlMs: number): Promise<string | null> {
    return this.take(key, limit, 1, ttlMs)[0] ?? null;
  }

  async acquireUpTo(key: string, limit: number, count: number, ttlMs: number): Promise<string[]> {
    return this.take(key, limit, count, ttlMs);
  }

  async releaseAll(key: string, ids: string[]): Promise<void> {
    const entry = this.held.get(key);
    if (!entry) return;
    for (const id of ids) entry.slots.delete(id);
    if (entry.slots.size === 0) this.held.delete(key);
  }

  async renew(key: string, ids: string[], ttlMs: number): Promise<void> {
    const entry = this.held.get(key);
    if (!entry) return;
    const expires = Date.now() + ttlMs;
    for (const id of ids) if (entry.slots.has(id)) entry.slots.set(id, expires);
  }

  async inFlight(key: string): Promise<number> {
    return this.live(key)?.slots.size ?? 0;
  }

  private take(key: string, limit: number, count: number, ttlMs: number): string[] {
    const entry = this.live(key) ?? { slots: new Map<string, number>(), nextExpiry: Infinity };
    const expires = Date.now() + ttlMs;
    const taken: string[] = [];
    while (taken.length < count && entry.slots.size < limit) {
      const id = identifierBase62(12);
      entry.slots.set(id, expires);
      taken.push(id);
    }
    if (taken.length === 0) return taken;
    entry.nextExpiry = Math.min(entry.nextExpiry, expires);
    this.held.set(key, entry);
    return taken;
  }

  /** The key's slots without the expired ones: scanned only once the earliest expiry has passed. */
  private live(key: string): { slots: Map<string, number>; nextExpiry: number } | undefined {
    const entry = this.held.get(key);
    const now = Date.now();
    if (!entry || entry.nextExpiry > now) return entry;
    let next = Infinity;
    for (const [id, expires] of entry.slots) {
      if (expires <= now) entry.slots.delete(id);
      else next = Math.min(next, expires);
    }
    entry.nextExpiry = next;
    return entry;
  }
}

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;
/**
 * Takes a slot of the sorted set `key` when fewer than `limit` live ones are held (Lua, needs
 * `now` and a `slot` local, set to 1 on success). Shared with the request limiter's admission
 * script (src/metering/limiter.ts), which takes an execute request's slot in its own round trip.
 */
export const acquireSlotLua = (key: string, limit: string, ttlMs: string, id: string) => `
local taken = redis.call('ZCARD', ${key})
-- Expired slots (of an instance that stopped mid-execution) are pruned when they would refuse.
if taken >= tonumber(${limit}) then
  redis.call('ZREMRANGEBYSCORE', ${key}, '-inf', now)
  taken = redis.call('ZCARD', ${key})
end
if taken < tonumber(${limit}) then
  redis.call('ZADD', ${key}, now + tonumber(${ttlMs}), ${id})
  redis.call('PEXPIRE', ${key}, tonumber(${ttlMs}) + 1000)
  slot = 1
end
`;
const ACQUIRE = `${NOW}
local slot = 0
${acquireSlotLua('KEYS[1]', 'ARGV[1]', 'ARGV[2]', 'ARGV[3]')}
return slot
`;
/** ARGV: limit, TTL, then the ids to take, in order, while slots are free. Returns the ids taken. */
const ACQUIRE_UP_TO = `${NOW}
local free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
if free < #ARGV - 2 then
  -- Fewer free than wanted: expired slots are pruned first (as in acquireSlotLua).
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
end
local taken = {}
local scored = {}
local expires = now + tonumber(ARGV[2])
for i = 3, math.min(#ARGV, 2 + free) do
  taken[#taken + 1] = ARGV[i]
  scored[#scored + 1] = expires
  scored[#scored + 1] = ARGV[i]
end
if #taken > 0 then
  redis.call('ZADD', KEYS[1], unpack(scored))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
end
return taken
`;
const RELEASE = `return redis.call('ZREM', KEYS[1], unpack(ARGV))`;
/** ARGV: TTL, then the ids. Only slots still in the set are moved (XX): a released one stays released. */
const RENEW = `${NOW}
local expires = now + tonumber(ARGV[1])
local scored = {}
for i = 2, #ARGV do
  scored[#scored + 1] = expires
  scored[#scored + 1] = ARGV[i]
end
redis.call('ZADD', KEYS[1], 'XX', unpack(scored))
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) + 1000)
end
return 1
`;
const IN_FLIGHT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

/** The Redis key prefix of the slot sets (RedisSlots and the limiter's admission script share it). */
export const SLOT_PREFIX = 'amp:slots';

/**
 * Shared across instances: a sorted set per tenant, scored by expiry, so the slots of an
 * instance that crashed mid-execution expire on their own.
 */
export class RedisSlots implements SlotStore {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: RedisLike,
    private readonly prefix = SLOT_PREFIX,
  ) {}

  async acquire(key: string, limit: number, ttlMs: number): Promise<string | null> {
    const id = identifierBase62(12);
    const ok = await this.redis.eval(ACQUIRE, [`${this.prefix}:${key}`], [limit, ttlMs, id], 'sequence');
    return Number(ok) === 1 ? id : null;
  }

  async acquireUpTo(key: string, limit: number, count: number, ttlMs: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => identifierBase62(12));
    return (await this.redis.eval(ACQUIRE_UP_TO, [`${this.prefix}:${key}`], [limit, ttlMs, ...ids], 'sequence')) as string[];
  }

  async releaseAll(key: string, ids: string[]): Promise<void> {
    if (ids.length > 0) await this.redis.eval(RELEASE, [`${this.prefix}:${key}`], ids, 'concat');
  }

  async renew(key: string, ids: string[], ttlMs: number): Promise<void> {
    if (ids.length > 0) await this.redis.eval(RENEW, [`${this.prefix}:${key}`], [ttlMs, ...ids]);
  }

  async inFlight(key: string): Promise<number> {
    return Number(await this.redis.eval(IN_FLIGHT, [`${this.prefix}:${key}`], [], 'identical'));
  }
}

/**
 * Redis when it answers; the in-process store while it does not. Each instance then enforces
 * the whole limit on its own (fail open), logs once, and returns to Redis when it is back.
 */
export function withFallback<T extends object>(primary: T, fallback: T, logger: Logger, what: string): T {
  let degraded = false;
  return new Proxy(primary, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          const result = await value.apply(target, args);
          if (degraded) logger.info(`${what}: Redis is back, shared state resumed`);
          degraded = false;
          return result;
        } catch (err) {
          if (!degraded) logger.warn({ err: String(err) }, `${what}: Redis unavailable, using this instance's local state`);
          degraded = true;
          const local = Reflect.get(fallback, prop) as (...a: unknown[]) => unknown;
          return local.apply(fallback, args);
        }
      };
    },
  });
}

/**
 * How long a slot outlives a crashed holder: a live holder renews its slots every SLOT_RENEW_MS
 * (src/metering/slots.ts), so an execution may run longer than this, and an instance killed
 * mid-execution shuts its tenants out of those slots for at most this long.
 */
export const SLOT_TTL_MS = 30_000;
export const SLOT_RENEW_MS = 10_000;
