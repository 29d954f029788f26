import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { createLogger } from '../logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_MS, evaluateWindow, MemoryLimiter, RedisLimiter, type Buckets } from './limiter';
import { connectRedis, type RedisLike } from './redis';

const W = 60_000;

/** A MemoryLimiter on a clock the test moves. */
function fakeLimiter(start = 0) {
  const clock = { now: start };
  return { clock, limiter: new MemoryLimiter(() => clock.now) };
}

/** The largest number of timestamps (sorted) inside any half-open span [t, t + W). */
function busiestSpan(ts: number[], span = W): number {
  let worst = 0;
  let j = 0;
  for (let i = 0; i < ts.length; i++) {
    j = Math.max(j, i);
    while (j < ts.length && ts[j]! - ts[i]! < span) j++;
    worst = Math.max(worst, j - i);
  }
  return worst;
}

/** Admits greedily (as many as fit) every `step` ms in [from, to); returns the admission times. */
function admitGreedily(
  l: MemoryLimiter,
  clock: { now: number },
  key: string,
  limit: number,
  from: number,
  to: number,
  step: number,
): number[] {
  const ts: number[] = [];
  for (clock.now = from; clock.now < to; clock.now += step) {
    while (l.limitSync(key, limit, W).allowed) ts.push(clock.now);
  }
  return ts;
}

describe('evaluateWindow', () => {
  /** [bucket, count, last]; `last` defaults to the bucket's first millisecond. */
  const at = (entries: [number, number, number?][]): Buckets =>
    new Map(entries.map(([b, count, last]) => [b, { count, last: last ?? b * BUCKET_MS }]));

  it('admits up to the limit, then refuses with retryAfterSeconds >= 1', () => {
    const now = 5 * W + 12_345;
    const bucket = Math.floor(now / BUCKET_MS);
    for (let used = 0; used < 10; used++) {
      const r = evaluateWindow(now, W, 10, 1, at(used ? [[bucket, used]] : []));
      expect(r).toMatchObject({ allowed: true, admitted: true, limit: 10, remaining: 10 - used - 1, retryAfterSeconds: 0 });
    }
    // The worst case: the whole pool was spent this very millisecond. Retry-After is the window, never 61.
    const refused = evaluateWindow(now, W, 10, 1, at([[bucket, 10, now]]));
    expect(refused).toMatchObject({ allowed: false, admitted: false, remaining: 0 });
    expect(refused.retryAfterSeconds).toBe(60);
    expect(refused.resetAt).toBe(now + W);
  });

  it('Retry-After never exceeds the window, and waiting it is enough', () => {
    for (let offset = 0; offset < 2 * BUCKET_MS; offset += 37) {
      const spentAt = 7 * W + offset;
      for (const wait of [0, 1, 499, 999, 30_000, 59_999]) {
        const now = spentAt + wait;
        const r = evaluateWindow(now, W, 5, 1, at([[Math.floor(spentAt / BUCKET_MS), 5, spentAt]]));
        expect(r.allowed).toBe(false);
        expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(r.retryAfterSeconds).toBeLessThanOrEqual(W / 1000);
        const later = evaluateWindow(now + r.retryAfterSeconds * 1000, W, 5, 1, at([[Math.floor(spentAt / BUCKET_MS), 5, spentAt]]));
        expect(later.allowed).toBe(true);
      }
    }
  });

  it('counts a bucket in full until the window has passed since its latest request', () => {
    // 60 requests in the last second of window 0, the latest at W - 1: they count until 2W - 1.
    const burst = at([[Math.floor((W - 1) / BUCKET_MS), 60, W - 1]]);
    expect(evaluateWindow(W + 1, W, 60, 1, burst).allowed).toBe(false);
    expect(evaluateWindow(2 * W - 2, W, 60, 1, burst).allowed).toBe(false);
    // Once its latest request is a window old, all 60 are available again.
    expect(evaluateWindow(2 * W - 1, W, 60, 1, burst)).toMatchObject({ allowed: true, remaining: 59 });
  });

  it('cost 0 only reports', () => {
    const free = evaluateWindow(W / 2, W, 10, 0, at([[10, 3]]));
    expect(free).toMatchObject({ allowed: true, admitted: false, remaining: 7 });
    const full = evaluateWindow(W / 2, W, 10, 0, at([[10, 10]]));
    expect(full).toMatchObject({ allowed: false, admitted: false, remaining: 0 });
    expect(full.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('refuses a cost that does not fit even when a single request would', () => {
    const r = evaluateWindow(W / 2, W, 10, 3, at([[10, 8]]));
    expect(r.allowed).toBe(false);
    expect(r.admitted).toBe(false);
  });
});

describe('MemoryLimiter', () => {
  it('admits the first `limit` requests and refuses the next', async () => {
    const { limiter, clock } = fakeLimiter(10 * W + 500);
    for (let i = 0; i < 5; i++) {
      const r = await limiter.limit('a', 5, W);
      expect(r).toMatchObject({ allowed: true, limit: 5, remaining: 4 - i });
    }
    const refused = await limiter.limit('a', 5, W);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.resetAt).toBe(11 * W + 500);
    expect(refused.retryAfterSeconds).toBe(60);
    clock.now += 1000;
    expect((await limiter.limit('a', 5, W)).allowed).toBe(false);
  });

  it('never admits a 61st request within 60 s, even after a burst at the very end of a window', () => {
    const { limiter, clock } = fakeLimiter(W - 1);
    const ts = Array<number>(60).fill(W - 1);
    for (let i = 0; i < 60; i++) expect(limiter.limitSync('k', 60, W).allowed).toBe(true);
    expect(limiter.limitSync('k', 60, W).allowed).toBe(false);
    ts.push(...admitGreedily(limiter, clock, 'k', 60, W, 4 * W, 10));
    expect(busiestSpan(ts)).toBeLessThanOrEqual(60);
    // Nothing during the 60 s after the burst.
    expect(ts.filter((t) => t > W - 1 && t < 2 * W - 1)).toHaveLength(0);
  });

  it('never admits more than the limit within any 60 s span for steady or front-loaded traffic', () => {
    // Evenly spread previous window, then greedy.
    {
      const { limiter, clock } = fakeLimiter(0);
      const ts: number[] = [];
      for (let k = 0; k < 60; k++) {
        clock.now = k * 1000;
        if (limiter.limitSync('k', 60, W).allowed) ts.push(clock.now);
      }
      ts.push(...admitGreedily(limiter, clock, 'k', 60, W, 4 * W, 10));
      expect(ts.length).toBeGreaterThan(200);
      expect(busiestSpan(ts)).toBeLessThanOrEqual(60);
    }
    // Greedy from the start of a window.
    {
      const { limiter, clock } = fakeLimiter(0);
      const ts = admitGreedily(limiter, clock, 'k', 60, 0, 4 * W, 10);
      expect(ts.length).toBeGreaterThan(200);
      expect(busiestSpan(ts)).toBeLessThanOrEqual(60);
    }
  });

  it('slides: requests become available again as old ones age out', () => {
    const { limiter, clock } = fakeLimiter(0);
    for (let i = 0; i < 5; i++) expect(limiter.limitSync('s', 10, W).allowed).toBe(true);
    clock.now = 20_000;
    for (let i = 0; i < 5; i++) expect(limiter.limitSync('s', 10, W).allowed).toBe(true);
    clock.now = 40_000;
    expect(limiter.limitSync('s', 10, W).allowed).toBe(false);
    // The first five leave the window 60 s after the latest of them; the next five stay.
    clock.now = 61_000;
    for (let i = 0; i < 5; i++) expect(limiter.limitSync('s', 10, W).allowed).toBe(true);
    expect(limiter.limitSync('s', 10, W).allowed).toBe(false);
    clock.now = 81_000;
    for (let i = 0; i < 5; i++) expect(limiter.limitSync('s', 10, W).allowed).toBe(true);
    expect(limiter.limitSync('s', 10, W).allowed).toBe(false);
  });

  it('does not forget longer windows when shorter ones are swept', () => {
    const { limiter, clock } = fakeLimiter(1_000_000);
    limiter.limitSync('warm', 1, W);
    limiter.limitSync('r', 2, 3_600_000);
    limiter.limitSync('r', 2, 3_600_000);
    clock.now += 61_000;
    limiter.limitSync('t', 60, W);
    expect(limiter.limitSync('r', 2, 3_600_000).allowed).toBe(false);
  });

  it('a refused caller that waits Retry-After seconds is admitted', () => {
    for (const burstAt of [0, 1, 17_000, 30_000, 59_000, 59_999]) {
      for (const limit of [1, 5, 60]) {
        const { limiter, clock } = fakeLimiter(burstAt);
        for (let i = 0; i < limit; i++) limiter.limitSync('r', limit, W);
        for (const probe of [burstAt, burstAt + 500, W + 1, W + 20_000, W + 59_999]) {
          clock.now = probe;
          const r = limiter.limitSync('r', limit, W, 0);
          if (r.allowed) continue;
          expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          const { limiter: copy, clock: c2 } = fakeLimiter(burstAt);
          for (let i = 0; i < limit; i++) copy.limitSync('r', limit, W);
          c2.now = probe + r.retryAfterSeconds * 1000;
          expect(copy.limitSync('r', limit, W).allowed, `burst ${burstAt} limit ${limit} probe ${probe}`).toBe(true);
        }
      }
    }
  });

  it('decides the calls of a turn in arrival order: a report after a count sees it, identical reports in between share one reading', async () => {
    const { limiter } = fakeLimiter(9 * W);
    const answers = await Promise.all([
      limiter.limit('t', 3, W, 0),
      limiter.limit('t', 3, W, 0),
      limiter.limit('t', 3, W),
      limiter.limit('t', 3, W, 0),
      limiter.limit('t', 3, W),
      limiter.limit('t', 3, W),
      limiter.limit('t', 3, W),
      limiter.limit('t', 3, W, 0),
      limiter.limit('u', 3, W, 0),
    ]);
    expect(answers.map((r) => r.remaining)).toEqual([3, 3, 2, 2, 1, 0, 0, 0, 3]);
    expect(answers.map((r) => r.allowed)).toEqual([true, true, true, true, true, true, false, false, true]);
    expect(answers[0]).toBe(answers[1]);
  });

  it('cost 0 reports the pool and never consumes', async () => {
    const { limiter } = fakeLimiter(7 * W);
    for (let i = 0; i < 50; i++) {
      const r = await limiter.limit('z', 3, W, 0);
      expect(r).toMatchObject({ allowed: true, remaining: 3 });
    }
    for (let i = 0; i < 3; i++) expect((await limiter.limit('z', 3, W)).allowed).toBe(true);
    const report = await limiter.limit('z', 3, W, 0);
    expect(report).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect(report.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps separate keys (and window lengths) independent', () => {
    const { limiter } = fakeLimiter(3 * W + 10);
    for (let i = 0; i < 2; i++) expect(limiter.limitSync('tenant:a', 2, W).allowed).toBe(true);
    expect(limiter.limitSync('tenant:a', 2, W).allowed).toBe(false);
    expect(limiter.limitSync('tenant:b', 2, W).allowed).toBe(true);
    expect(limiter.limitSync('tenant:b', 2, W).allowed).toBe(true);
    expect(limiter.limitSync('tenant:b', 2, W).allowed).toBe(false);
    // The same key under another window length is another pool.
    expect(limiter.limitSync('tenant:a', 2, 3_600_000).allowed).toBe(true);
    expect(limiter.limitSync('tenant:a', 2, W).allowed).toBe(false);
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;

/**
 * Redis's MONITOR on a plain socket, each command's arguments to `seen`. ioredis's own monitor
 * can fail with "Command queue state error" when a command of another client is logged in the
 * same read as MONITOR's +OK (another test file's connection starting, in CI). The feed arrives
 * on its own connection, behind the replies and among every other connection's commands:
 * `caughtUp` resolves once a marker sent after the commands of interest has been logged (Redis
 * logs commands in the order it runs them), so by then all of those have been seen.
 */
async function watchCommands(url: string, seen: (args: string[]) => void) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let pending = '';
  let ready: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  let marker: { text: string; logged: () => void } | undefined;
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\r\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === '+OK') ready();
      else if (line.startsWith('+')) {
        const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
        if (marker && /^echo$/i.test(args[0] ?? '') && args[1] === marker.text) marker.logged();
        else seen(args);
      }
    }
  });
  socket.write('MONITOR\r\n');
  await started;
  return {
    /** Resolves once every command `redis` (or any connection) had answered before the call has gone through `seen`. */
    async caughtUp(redis: Redis): Promise<void> {
      const text = `caught-up:${randomBytes(6).toString('hex')}`;
      const logged = new Promise<void>((resolve) => (marker = { text, logged: resolve }));
      await redis.echo(text);
      await logged;
    },
    close: () => socket.destroy(),
  };
}

describe.skipIf(!REDIS_URL)('RedisLimiter', () => {
  let a: RedisLike;
  let b: RedisLike;
  const prefix = `amp:test:rl:${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    a = await connectRedis(REDIS_URL!, createLogger('silent'));
    b = await connectRedis(REDIS_URL!, createLogger('silent'));
  });
  afterAll(async () => {
    await a.eval("for _, k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 0", [], [`${prefix}:*`]);
    a.close();
    b.close();
  });

  it('admits the first 5 requests and refuses the 6th', async () => {
    const l = new RedisLimiter(a, prefix);
    for (let i = 0; i < 5; i++) {
      const r = await l.limit('k1', 5, W);
      expect(r).toMatchObject({ allowed: true, limit: 5, remaining: 4 - i });
      expect(r.resetAt).toBeGreaterThan(Date.now() - 5_000);
    }
    const refused = await l.limit('k1', 5, W);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('cost 0 only reports, and separate keys are independent', async () => {
    const l = new RedisLimiter(a, prefix);
    for (let i = 0; i < 20; i++) expect(await l.limit('k2', 5, W, 0)).toMatchObject({ allowed: true, remaining: 5 });
    for (let i = 0; i < 5; i++) expect((await l.limit('k2', 5, W)).allowed).toBe(true);
    expect((await l.limit('k2', 5, W, 0)).allowed).toBe(false);
    expect((await l.limit('k3', 5, W)).allowed).toBe(true);
  });

  it('reads a full window (60 buckets, one in the old bare-count format) as evaluateWindow does', async () => {
    const l = new RedisLimiter(a, prefix);
    const now = Number((await a.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)", [], [])) as number);
    const key = `${prefix}:${W}:full`;
    const buckets: Buckets = new Map();
    for (let s = 59; s >= 1; s--) {
      const at = now - s * 1000;
      const bucket = Math.floor(at / 1000);
      buckets.set(bucket, { count: 2, last: at });
      await a.eval("return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])", [key], [bucket, `2:${at}`]);
    }
    const current = Math.floor(now / 1000);
    buckets.set(current, { count: 3, last: (current + 1) * 1000 - 1 });
    await a.eval("return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])", [key], [current, '3']);
    const reported = await l.limit('full', 1000, W, 0);
    const expected = evaluateWindow(now, W, 1000, 0, buckets);
    expect(reported).toMatchObject({ allowed: true, limit: 1000, remaining: 1000 - 59 * 2 - 3 });
    expect(reported.remaining).toBe(expected.remaining);
    expect(reported.resetAt).toBe(expected.resetAt);
    // Full: refused, with the moment enough old buckets have left the window, as evaluateWindow finds it.
    const full = 59 * 2 + 3;
    const refused = await l.limit('full', full, W, 2);
    const expectedRefusal = evaluateWindow(now, W, full, 2, buckets);
    expect(refused).toMatchObject({ allowed: false, limit: full, remaining: 0 });
    expect(refused.resetAt).toBe(expectedRefusal.resetAt);
    expect(Math.abs(refused.retryAfterSeconds - expectedRefusal.retryAfterSeconds)).toBeLessThanOrEqual(1);
    // One more fits: admitted, counted, and the window still frees from its earliest bucket.
    const admitted = await l.limit('full', full + 1, W, 1);
    expect(admitted).toMatchObject({ allowed: true, remaining: 0, resetAt: expected.resetAt, retryAfterSeconds: 0 });
  });

  it('keeps a running sum: old buckets leave in order, and a short window slides as evaluateWindow says', async () => {
    const l = new RedisLimiter(a, prefix);
    const window = 1500;
    const first = await l.limit('slide', 3, window);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a later bucket
    expect((await l.limit('slide', 3, window)).remaining).toBe(1);
    expect((await l.limit('slide', 3, window)).remaining).toBe(0);
    const refused = await l.limit('slide', 3, window);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetAt: first.resetAt });
    // The first bucket leaves the window: one request fits again, then none.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, first.resetAt - Date.now()) + 100));
    const again = await l.limit('slide', 3, window);
    expect(again).toMatchObject({ allowed: true, remaining: 0 });
    expect((await l.limit('slide', 3, window)).allowed).toBe(false);
    // Everything leaves: the pool is whole again (the stored sum is not carried over).
    await new Promise((resolve) => setTimeout(resolve, window + 100));
    expect(await l.limit('slide', 3, window, 0)).toMatchObject({ allowed: true, remaining: 3 });
    expect((await l.limit('slide', 3, window)).remaining).toBe(2);
  });

  it('counts the buckets afresh when its earliest-bucket mark lies ahead of the clock', async () => {
    const l = new RedisLimiter(a, prefix);
    const now = Number((await a.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)", [], [])) as number);
    const bucket = Math.floor(now / 1000);
    // As if Redis's clock had stepped back: the mark says the earliest live bucket is in the future.
    await a.eval(
      "return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], 's', '3', 'f', ARGV[3])",
      [`${prefix}:${W}:ahead`],
      [bucket, `3:${now}`, bucket + 5],
    );
    expect(await l.limit('ahead', 10, W, 0)).toMatchObject({ allowed: true, remaining: 7 });
    expect((await l.limit('ahead', 10, W)).remaining).toBe(6);
  });

  it('identical shared calls of one event-loop turn run once; unshared calls and later turns run each time', async () => {
    const key = `${prefix}:runs`;
    const bump = "return redis.call('INCR', KEYS[1])";
    const shared = await Promise.all([1, 2, 3, 4, 5].map(() => a.eval(bump, [key], [], 'identical')));
    expect(shared).toEqual([1, 1, 1, 1, 1]);
    expect(await a.eval(bump, [key], [], 'identical')).toBe(2); // a later turn: its own call
    const unshared = await Promise.all([1, 2, 3].map(() => a.eval(bump, [key], [])));
    expect(unshared.sort()).toEqual([3, 4, 5]);
    // Different arguments are different calls, and so are the same strings split otherwise between keys and arguments.
    expect(await Promise.all([a.eval(bump, [key], [1], 'identical'), a.eval(bump, [key], [2], 'identical')])).toEqual([6, 7]);
    expect(await Promise.all([a.eval(bump, [key, 'x'], ['y'], 'identical'), a.eval(bump, [key], ['x', 'y'], 'identical')])).toEqual([8, 9]);
  });

  it('concat calls of one turn run once with all their arguments; other keys and later turns are their own calls', async () => {
    const key = `${prefix}:set`;
    const other = `${prefix}:other-set`;
    const add = "redis.call('SADD', KEYS[1], unpack(ARGV)) return redis.call('INCR', KEYS[1] .. ':runs')";
    const runs = await Promise.all([
      a.eval(add, [key], ['a', 'b'], 'concat'),
      a.eval(add, [key], ['c'], 'concat'),
      a.eval(add, [other], ['x'], 'concat'),
    ]);
    expect(runs).toEqual([1, 1, 1]);
    expect(await a.eval("return redis.call('SCARD', KEYS[1])", [key], [])).toBe(3);
    expect(await a.eval(add, [key], ['d'], 'concat')).toBe(2);
    // Past the argument cap, a turn's calls split into several.
    const many = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        a.eval(
          add,
          [key],
          Array.from({ length: 600 }, (_, j) => `m${i}-${j}`),
          'concat',
        ),
      ),
    );
    expect(new Set(many).size).toBe(3);
    expect(await a.eval("return redis.call('SCARD', KEYS[1])", [key], [])).toBe(4 + 1800);
  });

  it("keeps a window's key for the window after its latest request, setting its expiry once per bucket", async () => {
    const l = new RedisLimiter(a, prefix);
    const key = `${prefix}:${W}:ttl`;
    const pttl = async () => Number(await a.eval("return redis.call('PTTL', KEYS[1])", [key], []));
    await l.limit('ttl', 100, W);
    const first = await pttl();
    expect(first).toBeGreaterThan(W);
    expect(first).toBeLessThanOrEqual(W + BUCKET_MS);
    await new Promise((r) => setTimeout(r, 1100));
    await l.limit('ttl', 100, W); // a new bucket: the expiry moves with it
    expect(await pttl()).toBeGreaterThan(W);
    expect((await l.limit('ttl', 100, W)).remaining).toBe(97);
  });

  it('sequence calls of one turn run one after another in one script call, each answered with its own reply', async () => {
    const key = `${prefix}:sequence`;
    const push =
      "redis.call('RPUSH', KEYS[1], ARGV[1]) if ARGV[2] == 'nil' then return nil end return { ARGV[1], redis.call('LLEN', KEYS[1]) }";
    const admin = new Redis(REDIS_URL!);
    const sent: string[][] = [];
    const monitor = await watchCommands(REDIS_URL!, (args) => {
      if (/^eval/i.test(args[0] ?? '') && args.includes(key)) sent.push(args);
    });
    try {
      // Redis no longer holds the scripts (as after a restart): the first call of each sends it whole.
      await admin.script('FLUSH');
      const replies = await Promise.all(['a', 'b', 'c'].map((v) => a.eval(push, [key], [v, 'x'], 'sequence')));
      expect(replies).toEqual([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]);
      // A nil answer stays that caller's; another argument count is another call; a lone call runs the script itself.
      const more = await Promise.all([
        a.eval(push, [key], ['d', 'nil'], 'sequence'),
        a.eval(push, [key], ['e', 'x'], 'sequence'),
        a.eval(push, [key], ['f'], 'sequence'),
      ]);
      expect(more).toEqual([null, ['e', 5], ['f', 6]]);
      expect(await a.eval(push, [key], ['g', 'x'], 'sequence')).toEqual(['g', 7]);
      // Past the argument cap, a turn's calls split into several, still in order.
      const many = await Promise.all(Array.from({ length: 600 }, (_, i) => a.eval(push, [key], [`m${i}`, 'x'], 'sequence')));
      expect(many.map((r) => (r as [string, number])[1])).toEqual(Array.from({ length: 600 }, (_, i) => 8 + i));
      await monitor.caughtUp(admin);
      expect(sent.filter((args) => args.includes('g'))).toHaveLength(1);
      const carrying = (v: string) => sent.filter((args) => args.includes(v));
      expect(carrying('b').length).toBeGreaterThan(0);
      expect(carrying('b').every((args) => args.includes('a') && args.includes('c'))).toBe(true);
      expect(carrying('e').every((args) => args.includes('d') && !args.includes('f'))).toBe(true);
      expect(sent.filter((args) => args.includes('m0') || args.includes('m599')).length).toBeLessThanOrEqual(4);
    } finally {
      monitor.close();
      admin.disconnect();
    }
  });

  it('concurrent reports share a read while concurrent counts each count', async () => {
    const l = new RedisLimiter(a, prefix);
    const counted = await Promise.all([1, 2, 3, 4, 5].map(() => l.limit('turn', 5, W)));
    expect(counted.map((r) => r.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
    const reports = await Promise.all([1, 2, 3].map(() => l.limit('turn', 5, W, 0)));
    expect(reports.map((r) => [r.allowed, r.remaining])).toEqual([
      [false, 0],
      [false, 0],
      [false, 0],
    ]);
    expect((await l.limit('turn', 5, W)).allowed).toBe(false);
  });

  it('two connections (two instances) share one pool', async () => {
    const la = new RedisLimiter(a, prefix);
    const lb = new RedisLimiter(b, prefix);
    const results = [];
    for (let i = 0; i < 6; i++) results.push((await (i % 2 ? lb : la).limit('shared', 5, W)).allowed);
    expect(results).toEqual([true, true, true, true, true, false]);
    expect((await la.limit('shared', 5, W)).allowed).toBe(false);
  });
});
