import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { connectRedis, type RedisLike } from '../metering/redis';
import { MemoryPaceStore, RedisPaceStore, SendWindow } from './pace';

describe('MemoryPaceStore', () => {
  it('hands out turns 1/rate apart, in the order asked, from now when idle', async () => {
    let now = 1_000_000;
    const store = new MemoryPaceStore(() => now);
    expect(await store.reserve('wh_a', 50, 10)).toBe(0); // turns at +0 … +180 ms
    expect(await store.reserve('wh_a', 50, 1)).toBe(200);
    expect(await store.reserve('wh_b', 50, 1)).toBe(0); // another receiver has its own
    now += 150;
    expect(await store.reserve('wh_a', 50, 1)).toBe(70);
    now += 10_000; // idle: no credit builds up, the next turn is now
    expect(await store.reserve('wh_a', 50, 1)).toBe(0);
    expect(await store.reserve('wh_a', 4, 1)).toBe(20);
    expect(await store.reserve('wh_c', 10, 1, 1000)).toBe(1000);
  });
});

describe('SendWindow', () => {
  it('allows at most perSecond sends in any 1000 ms', () => {
    const w = new SendWindow();
    for (let i = 0; i < 3; i++) {
      expect(w.earliest('k', 3, 100 + i)).toBe(100 + i);
      w.note('k', 3, 100 + i);
    }
    expect(w.earliest('k', 3, 500)).toBe(1100);
    w.note('k', 3, 1100);
    expect(w.earliest('k', 3, 1100)).toBe(1101);
    expect(w.earliest('other', 3, 500)).toBe(500);
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('RedisPaceStore', () => {
  let a: RedisLike;
  let b: RedisLike;
  beforeAll(async () => {
    a = await connectRedis(REDIS_URL!, createLogger('silent'));
    b = await connectRedis(REDIS_URL!, createLogger('silent'));
  });
  afterAll(() => {
    a?.close();
    b?.close();
  });

  it('two instances share one schedule per receiver', async () => {
    const key = `wh_${randomBytes(6).toString('hex')}`;
    const one = new RedisPaceStore(a);
    const two = new RedisPaceStore(b);
    const started = Date.now();
    const first = await one.reserve(key, 50, 10);
    expect(first).toBe(0);
    const second = await two.reserve(key, 50, 5);
    // Ten turns of 20 ms went to the first instance: the second's come after them (200 ms after
    // the first turn, less the time that passed between the two calls).
    const elapsed = Date.now() - started;
    expect(second).toBeLessThanOrEqual(200);
    expect(second).toBeGreaterThanOrEqual(200 - elapsed - 2);
    const third = await one.reserve(key, 50, 1);
    expect(third).toBeLessThanOrEqual(300);
    expect(third).toBeGreaterThanOrEqual(300 - (Date.now() - started) - 2);
    // Turns asked in one event-loop turn are taken one after another, in the order asked.
    const [x, y] = await Promise.all([one.reserve(key, 50, 2), one.reserve(key, 50, 2)]);
    expect(y! - x!).toBeGreaterThan(35);
    expect(y! - x!).toBeLessThanOrEqual(41);
    expect(await one.reserve(`${key}-later`, 10, 1, 1000)).toBeGreaterThan(990);
  });
});
