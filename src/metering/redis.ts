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
  /**
   * `shared`: the script only reads (or makes changes a repeat would not add to), so identical
   * calls issued in the same event-loop turn may share one execution and its answer.
   */
  eval(script: string, keys: string[], args: (string | number)[], shared?: boolean): Promise<unknown>;
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
    // Batched by turnPipeline instead: ioredis's auto-pipelining keeps one pipeline in flight at
    // a time, so under load each command also waited for the previous batch's round trip.
    enableAutoPipelining: false,
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
      turnPipeline(redis),
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

type Run = (scriptOrSha: string, keys: string[], args: (string | number)[], shared?: boolean) => Promise<unknown>;

/**
 * EVALSHA through one pipeline per event-loop turn: the scripts many requests issue in the same
 * turn go out in one write (one syscall instead of one per request under load), and each turn's
 * pipeline is sent at once, whatever earlier pipelines still await (replies come back in order
 * on the connection). Identical `shared` calls of one turn go out once: every caller issued its
 * call before the pipeline is sent, so the one answer is as fresh for each of them as its own
 * would be (the exempt endpoints' pool reports: one read per tenant per turn instead of one per request).
 */
function turnPipeline(redis: Redis): Run {
  let calls: { sha: string; keys: string[]; args: (string | number)[]; resolve(value: unknown): void; reject(err: unknown): void }[] = [];
  let sharedCalls = new Map<string, Promise<unknown>>();
  const send = () => {
    const batch = calls;
    calls = [];
    sharedCalls = new Map();
    const pipeline = redis.pipeline();
    for (const c of batch) pipeline.evalsha(c.sha, c.keys.length, ...c.keys, ...c.args);
    pipeline.exec().then(
      (results) => {
        for (const [i, c] of batch.entries()) {
          const [err, value] = results?.[i] ?? [new Error('Redis pipeline answered no result'), null];
          if (err) c.reject(err);
          else c.resolve(value);
        }
      },
      (err: unknown) => {
        for (const c of batch) c.reject(err);
      },
    );
  };
  const enqueue: Run = (sha, keys, args) =>
    new Promise((resolve, reject) => {
      if (calls.length === 0) setImmediate(send);
      calls.push({ sha, keys, args, resolve, reject });
    });
  return (sha, keys, args, shared) => {
    if (!shared) return enqueue(sha, keys, args);
    const id = `${sha}\n${keys.join('\n')}\n${args.join('\n')}`;
    let reply = sharedCalls.get(id);
    if (!reply) sharedCalls.set(id, (reply = enqueue(sha, keys, args)));
    return reply;
  };
}

/** EVALSHA first (the script is not resent on every call); EVAL once when Redis lacks it. */
function cachedScripts(evalsha: Run, evalScript: Run): RedisLike['eval'] {
  const shas = new Map<string, string>();
  return async (script, keys, args, shared) => {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return await evalsha(sha, keys, args, shared);
    } catch (err) {
      if (!/NOSCRIPT/i.test(String((err as Error).message))) throw err;
      return evalScript(script, keys, args);
    }
  };
}
