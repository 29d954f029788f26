import { createHash } from 'node:crypto';
import { Redis as UpstashRedis } from '@upstash/redis';
import { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * What the service needs from Redis: run a Lua script atomically, and a health ping. Both
 * ioredis (REDIS_URL) and Upstash's REST client (UPSTASH_REDIS_REST_URL/_TOKEN) provide it, so the
 * limiter, concurrency slots and key-revocation versions run unchanged on either.
 */
export interface RedisLike {
  readonly kind: 'redis' | 'upstash';
  eval(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  ping(): Promise<void>;
  close(): void;
}

/**
 * Redis must never stall a request: no offline queue, one retry, short timeouts. Callers treat
 * a failed command as "Redis unavailable" and degrade.
 */
export async function connectRedis(url: string, logger: Logger): Promise<RedisLike> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    // Commands issued in the same event-loop turn (many requests' limiter scripts) go out in one
    // write: one syscall instead of one per request under load.
    enableAutoPipelining: true,
  });
  let warned = false;
  redis.on('error', (err) => {
    if (!warned) logger.warn({ err: String(err) }, 'Redis error; degrading to local behaviour until it returns');
    warned = true;
  });
  redis.on('ready', () => (warned = false));
  await redis.connect().catch((err: unknown) => logger.warn({ err: String(err) }, 'Redis not reachable at start-up'));
  return {
    kind: 'redis',
    eval: cachedScripts(
      (sha, keys, args) => redis.evalsha(sha, keys.length, ...keys, ...args),
      (script, keys, args) => redis.eval(script, keys.length, ...keys, ...args),
    ),
    ping: async () => {
      await redis.ping();
    },
    close: () => redis.disconnect(),
  };
}

export function connectUpstash(url: string, token: string): RedisLike {
  const redis = new UpstashRedis({ url, token, automaticDeserialization: false, retry: { retries: 1, backoff: () => 100 } });
  return {
    kind: 'upstash',
    eval: cachedScripts(
      (sha, keys, args) => redis.evalsha(sha, keys, args.map(String)),
      (script, keys, args) => redis.eval(script, keys, args.map(String)),
    ),
    ping: async () => {
      await redis.ping();
    },
    close: () => {},
  };
}

type Run = (scriptOrSha: string, keys: string[], args: (string | number)[]) => Promise<unknown>;

/** EVALSHA first (the script is not resent on every call); EVAL once when Redis lacks it. */
function cachedScripts(evalsha: Run, evalScript: Run): RedisLike['eval'] {
  const shas = new Map<string, string>();
  return async (script, keys, args) => {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return await evalsha(sha, keys, args);
    } catch (err) {
      if (!/NOSCRIPT/i.test(String((err as Error).message))) throw err;
      return evalScript(script, keys, args);
    }
  };
}
