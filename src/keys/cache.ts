import type { Logger } from '../logger';
import type { RedisLike } from '../metering/redis';
import type { Plan } from '../tenants/plans';
import type { KeyPolicy } from './policy-rules';

export interface CachedKey {
  keyId: string;
  tenantId: string;
  plan: Plan;
  /** The tenant's per-tenant terms (null = the plan's value), carried into the principal. */
  requestsPerMinute: number | null;
  executionsPerMonth: number | null;
  overageUnitMicroUsd: number | null;
  monthlyFeeMicroUsd: number | null;
  /** Set while a downgrade put the key beyond the plan's allowance of keys: refused until restored. */
  suspended: boolean;
  scopes: string[];
  /** Epoch ms after which this secret stops working (the old secret of a rotation), else null. */
  expiresAt: number | null;
  lastUsedWriteAt: number;
  /** The key's policy, compiled once per load. */
  policy?: KeyPolicy;
}

interface Entry {
  key: CachedKey;
  version: string;
  storedAt: number;
}

/** The shared auth version in Redis (also checked inside the rate limiter's script). */
export const VERSION_KEY = 'amp:auth:version';
const MAX_ENTRIES = 50_000;
/** Upper bound on staleness should a version bump ever be missed (e.g. a Redis flap). */
const MAX_AGE_MS = 60_000;

/**
 * In-process cache of authenticated keys, keyed by secret hash. Every entry remembers the
 * "auth version" current when it was loaded; revocation, rotation and plan changes (which also
 * suspend and restore keys and change per-tenant terms) bump that
 * version (in Redis when configured, so every instance sees it on its very next request) and
 * entries of an older version are ignored. Modes:
 * - local: one process owns the data (embedded PGlite), the version is a local counter;
 * - redis: shared version in Redis, checked on every request: inside the rate limiter's script on
 *   the API's hot path (peek, then Limiter.limitIfCurrent: one round trip for both), else one GET;
 * - off: PostgreSQL without Redis: several instances could not learn of a revocation, so no cache.
 */
export class KeyCache {
  private entries = new Map<string, Entry>();
  private localVersion = 0;
  private redisDown = false;

  constructor(
    readonly mode: 'local' | 'redis' | 'off',
    private readonly redis?: RedisLike,
    private readonly logger?: Logger,
  ) {}

  /** The current version, or null when it cannot be known (then nothing is cached). */
  async currentVersion(): Promise<string | null> {
    if (this.mode === 'off') return null;
    if (this.mode === 'local') return String(this.localVersion);
    try {
      const version = String((await this.redis!.eval("return redis.call('GET', KEYS[1]) or '0'", [VERSION_KEY], [], 'identical')) ?? '0');
      this.redisDown = false;
      return version;
    } catch (err) {
      if (!this.redisDown) this.logger?.warn({ err: String(err) }, 'key cache: Redis unavailable, reading keys from the database');
      this.redisDown = true;
      return null;
    }
  }

  get(hash: string, version: string | null): CachedKey | undefined {
    if (version === null) return undefined;
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.version !== version || Date.now() - entry.storedAt > MAX_AGE_MS) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.key;
  }

  /** Whether `peek` can answer at all (redis mode, Redis reachable): callers skip hashing otherwise. */
  get peeks(): boolean {
    return this.mode === 'redis' && !this.redisDown;
  }

  /**
   * The entry for `hash` whatever its version (not older than MAX_AGE_MS), for a caller that
   * checks the version itself in the same round trip as its next Redis call (redis mode only).
   */
  peek(hash: string): { key: CachedKey; version: string } | undefined {
    if (!this.peeks) return undefined;
    const entry = this.entries.get(hash);
    if (!entry || Date.now() - entry.storedAt > MAX_AGE_MS) return undefined;
    return entry;
  }

  /** Forgets one entry (found stale by a version check). */
  drop(hash: string): void {
    this.entries.delete(hash);
  }

  set(hash: string, key: CachedKey, version: string | null): void {
    if (version === null) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { key, version, storedAt: Date.now() });
  }

  /** Makes every cached key on every instance stale. Awaited before a revoke call returns. */
  async invalidate(): Promise<void> {
    this.entries.clear();
    this.localVersion++;
    if (this.mode !== 'redis') return;
    try {
      await this.redis!.eval("return redis.call('INCR', KEYS[1])", [VERSION_KEY], []);
    } catch (err) {
      // Other instances' reads fail the same way and bypass their caches; MAX_AGE_MS bounds a flap.
      this.logger?.error({ err: String(err) }, 'key cache: could not publish invalidation to Redis');
    }
  }
}
