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
 * Calls of one event-loop turn with the same script and keys that may go out as one:
 * - `identical`: the script only reads (or makes changes a repeat would not add to), so identical
 *   calls share one execution and its answer;
 * - `concat`: the script applies to each of its arguments alike (a release of slot ids), so calls
 *   run once with all their arguments and share its answer;
 * - `sequence`: each call needs its own execution and answer (a count, a slot claim), so calls
 *   with as many arguments run one after another inside one execution of the script (`sequenced`),
 *   in arrival order, each answered with its own reply: what a pipeline of the separate calls
 *   would do, less Redis's cost of starting a script per call and the client's per command.
 */
export type Sharing = 'identical' | 'concat' | 'sequence';

/** Arguments one merged (`concat`, `sequence`) call carries at most (Lua's unpack takes a few thousand). */
const MAX_MERGED_ARGS = 1000;

/**
 * `script` run ARGV[2] times, each run seeing as its ARGV only its own ARGV[1] arguments (those
 * after the first two, in order); the answer is the array of the runs' answers (nil as false, so
 * the array keeps its length). A run's `return` ends that run only.
 */
function sequenced(script: string): string {
  return `local function run(KEYS, ARGV)
${script}
end
local n = tonumber(ARGV[1])
local out = {}
for i = 0, tonumber(ARGV[2]) - 1 do
  local reply = run(KEYS, { unpack(ARGV, 3 + i * n, 2 + (i + 1) * n) })
  if reply == nil then reply = false end
  out[i + 1] = reply
end
return out
`;
}

/**
 * `redis` with `prefix` put before every key a script is given (REDIS_KEY_PREFIX), so that
 * deployments sharing one Redis never count in each other's pools. Every script of the service
 * names its keys in KEYS, never builds one, so this reaches them all.
 */
export function withKeyPrefix(redis: RedisLike, prefix: string): RedisLike {
  if (!prefix) return redis;
  return {
    ...redis,
    eval: (script, keys, args, share) =>
      redis.eval(
        script,
        keys.map((key) => prefix + key),
        args,
        share,
      ),
  };
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
    eval: turnPipeline(redis),
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

type Run = (script: string, keys: string[], args: (string | number)[], share?: Sharing) => Promise<unknown>;

/** One script call of a turn's pipeline; `settle` receives its reply or error; `seal`, when set, completes it just before it is sent. */
interface PipelineCall {
  script: string;
  keys: string[];
  args: (string | number)[];
  settle(err: Error | null, value?: unknown): void;
  seal?(): void;
}

/** A turn's `sequence` calls of one script, keys and argument count: one pipeline call, sealed at send (sealSequence). */
interface Sequence {
  call: PipelineCall;
  argCount: number;
  callers: { args: (string | number)[]; resolve(value: unknown): void; reject(err: unknown): void }[];
}

/**
 * EVALSHA through one pipeline per event-loop turn: the scripts many requests issue in the same
 * turn go out in one write (one syscall instead of one per request under load), and each turn's
 * pipeline is sent at once, whatever earlier pipelines still await (replies come back in order
 * on the connection). Calls of one turn that may share (Sharing) go out as one: every caller
 * issued its call before the pipeline is sent, so a shared answer is as fresh for each of them
 * as its own would be (the exempt endpoints' pool reports: one read per tenant per turn instead
 * of one per request; the slot releases of a tenant's finished executions: one call; its
 * admissions: one script run in turn for each). A script Redis does not hold (NOSCRIPT: first
 * use, or after a restart or SCRIPT FLUSH) is sent whole once.
 */
function turnPipeline(redis: Redis): Run {
  let calls: PipelineCall[] = [];
  // `identical` and `concat` calls of the turn by identity, and `sequence` ones.
  let merged = new Map<string, { args: (string | number)[]; reply: Promise<unknown> }>();
  let sequences = new Map<string, Sequence>();
  const evalWhole = (c: PipelineCall) =>
    redis.eval(c.script, c.keys.length, ...c.keys, ...c.args).then(
      (value) => c.settle(null, value),
      (err: Error) => c.settle(err),
    );
  const send = () => {
    const batch = calls;
    calls = [];
    merged = new Map();
    sequences = new Map();
    const pipeline = redis.pipeline();
    for (const c of batch) {
      c.seal?.();
      pipeline.evalsha(scriptSha(c.script), c.keys.length, ...c.keys, ...c.args);
    }
    pipeline.exec().then(
      (results) => {
        for (const [i, c] of batch.entries()) {
          const [err, value] = results?.[i] ?? [new Error('Redis pipeline answered no result'), null];
          if (err && isNoScript(err)) void evalWhole(c);
          else c.settle(err, value);
        }
      },
      (err: Error) => {
        for (const c of batch) c.settle(err);
      },
    );
  };
  const enqueue = (call: PipelineCall) => {
    if (calls.length === 0) setImmediate(send);
    calls.push(call);
  };
  const single = (script: string, keys: string[], args: (string | number)[]) =>
    new Promise<unknown>((resolve, reject) =>
      enqueue({ script, keys, args, settle: (err, value) => (err ? reject(err) : resolve(value)) }),
    );
  return (script, keys, args, share) => {
    if (!share) return single(script, keys, args);
    // The key count first: the same script with its keys and arguments split otherwise is another call.
    const on = `${share}\n${scriptSha(script)}\n${keys.length}\n${keys.join('\n')}`;
    if (share === 'sequence') {
      const id = `${on}\n${args.length}`;
      const held = sequences.get(id);
      if (held && (held.callers.length + 1) * args.length <= MAX_MERGED_ARGS) {
        return new Promise((resolve, reject) => held.callers.push({ args, resolve, reject }));
      }
      return new Promise((resolve, reject) => {
        const call: PipelineCall = { script, keys, args, settle: () => {} };
        const sequence: Sequence = { call, argCount: args.length, callers: [{ args, resolve, reject }] };
        call.seal = () => sealSequence(sequence);
        sequences.set(id, sequence);
        enqueue(call);
      });
    }
    const id = share === 'identical' ? `${on}\n${args.join('\n')}` : on;
    const held = merged.get(id);
    if (held && share === 'identical') return held.reply;
    if (held && held.args.length + args.length <= MAX_MERGED_ARGS) {
      held.args.push(...args); // the queued call's own array: it is read when the pipeline is sent
      return held.reply;
    }
    const mergedArgs = [...args];
    const entry = { args: mergedArgs, reply: single(script, keys, mergedArgs) };
    merged.set(id, entry);
    return entry.reply;
  };
}

/** A turn's sequence as the call the pipeline sends: the script itself for one caller, `sequenced` for several. */
function sealSequence({ call, argCount, callers }: Sequence): void {
  if (callers.length === 1) {
    const [only] = callers;
    call.settle = (err, value) => (err ? only!.reject(err) : only!.resolve(value));
    return;
  }
  call.script = sequencedScript(call.script);
  call.args = [argCount, callers.length, ...callers.flatMap((c) => c.args)];
  call.settle = (err, value) => {
    const replies = Array.isArray(value) && value.length === callers.length ? value : undefined;
    const failure = err ?? (replies ? null : new Error('Redis answered a sequenced call without one reply per call'));
    for (const [i, c] of callers.entries()) {
      if (failure) c.reject(failure);
      else c.resolve(replies![i]);
    }
  };
}

const isNoScript = (err: Error) => /NOSCRIPT/i.test(String(err?.message));

const shas = new Map<string, string>();
const sequencedScripts = new Map<string, string>();

function scriptSha(script: string): string {
  let sha = shas.get(script);
  if (!sha) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
}

function sequencedScript(script: string): string {
  let text = sequencedScripts.get(script);
  if (!text) sequencedScripts.set(script, (text = sequenced(script)));
  return text;
}

/** EVALSHA first (the script is not resent on every call); EVAL once when Redis lacks it. */
function cachedScripts(evalsha: Run, evalScript: Run): RedisLike['eval'] {
  return async (script, keys, args) => {
    try {
      return await evalsha(scriptSha(script), keys, args);
    } catch (err) {
      if (!isNoScript(err as Error)) throw err;
      return evalScript(script, keys, args);
    }
  };
}
