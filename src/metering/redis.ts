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
  /** `share`: how calls issued in the same event-loop turn may be merged (Sharing). */
  eval(script: string, keys: string[], args: (string | number)[], share?: Sharing): Promise<unknown>;
  ping(): Promise<void>;
  close(): void;
}

/**
 * Calls of one event-loop turn that may go out as one, all callers getting its answer:
 * - `identical`: the script only reads (or makes changes a repeat would not add to), so identical
 *   calls share one execution;
 * - `concat`: the script applies to each of its arguments alike (a release of slot ids), so calls
 *   with the same script and keys run once with all their arguments.
 */
export type Sharing = 'identical' | 'concat';

/** Arguments one `concat` call carries at most (Lua's unpack takes a few thousand). */
const MAX_CONCAT_ARGS = 1000;

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

type Run = (scriptOrSha: string, keys: string[], args: (string | number)[], share?: Sharing) => Promise<unknown>;

/**
 * EVALSHA through one pipeline per event-loop turn: the scripts many requests issue in the same
 * turn go out in one write (one syscall instead of one per request under load), and each turn's
 * pipeline is sent at once, whatever earlier pipelines still await (replies come back in order
 * on the connection). Calls of one turn that may share (Sharing) go out once: every caller
 * issued its call before the pipeline is sent, so the one answer is as fresh for each of them as
 * its own would be (the exempt endpoints' pool reports: one read per tenant per turn instead of
 * one per request; the slot releases of a tenant's finished executions: one call).
 */
function turnPipeline(redis: Redis): Run {
  let calls: { sha: string; keys: string[]; args: (string | number)[]; resolve(value: unknown): void; reject(err: unknown): void }[] = [];
  let sharedCalls = new Map<string, { args: (string | number)[]; reply: Promise<unknown> }>();
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
  return (sha, keys, args, share) => {
    if (!share) return enqueue(sha, keys, args);
    // The key count first: the same script with its keys and arguments split otherwise is another call.
    const on = `${sha}\n${keys.length}\n${keys.join('\n')}`;
    const id = share === 'identical' ? `${on}\n${args.join('\n')}` : on;
    const held = sharedCalls.get(id);
    if (held && share === 'identical') return held.reply;
    if (held && held.args.length + args.length <= MAX_CONCAT_ARGS) {
      held.args.push(...args); // the queued call's own array: it is read when the pipeline is sent
      return held.reply;
    }
    const merged = [...args];
    const call = { args: merged, reply: enqueue(sha, keys, merged) };
    sharedCalls.set(id, call);
    return call.reply;
  };
}

/** EVALSHA first (the script is not resent on every call); EVAL once when Redis lacks it. */
function cachedScripts(evalsha: Run, evalScript: Run): RedisLike['eval'] {
  const shas = new Map<string, string>();
  return async (script, keys, args, share) => {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return await evalsha(sha, keys, args, share);
    } catch (err) {
      if (!/NOSCRIPT/i.test(String((err as Error).message))) throw err;
      return evalScript(script, keys, args);
    }
  };
}
