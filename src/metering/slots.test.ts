import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import type { Services } from '../services';
import { MemorySlots, RedisSlots, type SlotStore } from './concurrency';
import { connectRedis, type RedisLike } from './redis';
import { acquireExecutionSlot, heldSlots, takeSlots } from './slots';

const REDIS_URL = process.env.TEST_REDIS_URL;

const logger = createLogger('silent');
const stores: [string, () => SlotStore][] = [
  ['memory', () => new MemorySlots()],
  ['redis', () => new RedisSlots(redis!, `amp:test:slots:${randomBytes(6).toString('hex')}`)],
];
let redis: RedisLike | undefined;

beforeAll(async () => {
  if (REDIS_URL) redis = await connectRedis(REDIS_URL, logger);
});
afterAll(() => redis?.close());

for (const [name, makeStore] of stores)
  describe.skipIf(name === 'redis' && !REDIS_URL)(`execution slots (${name})`, () => {
    const svcWith = (slots: SlotStore) => ({ slots, logger }) as unknown as Services;
    const tenant = () => ({ tenantId: randomBytes(8).toString('hex'), plan: 'free' as const });

    it('holds the plan limit (free: 5) and refuses the 6th with Retry-After: 1', async () => {
      const svc = svcWith(makeStore());
      const t = tenant();
      const releases = await Promise.all(Array.from({ length: 5 }, () => acquireExecutionSlot(svc, t)));
      const err = await acquireExecutionSlot(svc, t).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'concurrency_limit_exceeded',
        status: 429,
        headers: { 'Retry-After': '1' },
        details: { limit: 5 },
      });
      // Another tenant is unaffected.
      const other = await acquireExecutionSlot(svc, tenant());
      await other();
      // Releasing one frees one; releasing twice frees only one.
      await releases[0]!();
      await releases[0]!();
      const again = await acquireExecutionSlot(svc, t);
      await expect(acquireExecutionSlot(svc, t)).rejects.toMatchObject({ code: 'concurrency_limit_exceeded' });
      await Promise.all([again(), ...releases.slice(1).map((r) => r())]);
      expect(await svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
    });

    it('under 50 concurrent acquisitions grants exactly the limit', async () => {
      const svc = svcWith(makeStore());
      const t = { ...tenant(), plan: 'pro' as const };
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => acquireExecutionSlot(svc, t)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
      for (const r of results) if (r.status === 'fulfilled') await r.value();
      expect(await svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
    });

    it('takes up to a count of slots at once, as many as are free, and gives them back at once', async () => {
      const svc = svcWith(makeStore());
      const t = tenant();
      const key = `tenant:${t.tenantId}`;
      const first = await takeSlots(svc, t, 3);
      expect(first.held).toBe(3);
      const held = await acquireExecutionSlot(svc, t);
      // 4 of 5 held: a request for 3 gets 1, the next gets none.
      const second = await takeSlots(svc, t, 3);
      expect(second.held).toBe(1);
      expect((await takeSlots(svc, t, 2)).held).toBe(0);
      expect(await svc.slots.inFlight(key)).toBe(5);
      first.giveBack();
      first.giveBack();
      second.giveBack();
      await held();
      await expect.poll(() => svc.slots.inFlight(key)).toBe(0);
    });

    it('grants exactly the limit when many requests take slots at once', async () => {
      const svc = svcWith(makeStore());
      const t = { ...tenant(), plan: 'pro' as const };
      const taken = await Promise.all(Array.from({ length: 12 }, () => takeSlots(svc, t, 4)));
      expect(taken.reduce((n, s) => n + s.held, 0)).toBe(25);
      for (const s of taken) s.giveBack();
      await expect.poll(() => svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
    });

    it("a crashed holder's slot expires on its own", async () => {
      const store = makeStore();
      const key = `tenant:${randomBytes(6).toString('hex')}`;
      expect(await store.acquire(key, 1, 150)).toBeTruthy();
      expect(await store.acquire(key, 1, 150)).toBeNull();
      await new Promise((r) => setTimeout(r, 250));
      expect(await store.acquire(key, 1, 150)).toBeTruthy();
    });

    it('a renewed slot outlives its TTL; a released one is not brought back by a renewal', async () => {
      const store = makeStore();
      const key = `tenant:${randomBytes(6).toString('hex')}`;
      const kept = await store.acquire(key, 2, 200);
      const released = await store.acquire(key, 2, 200);
      await store.releaseAll(key, [released!]);
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 120));
        await store.renew(key, [kept!, released!], 200);
      }
      // 360 ms after the claim, past its 200 ms TTL: still held, and only it.
      expect(await store.inFlight(key)).toBe(1);
      expect(await store.acquire(key, 1, 200)).toBeNull();
      // No renewal (its holder crashed): it expires.
      await new Promise((r) => setTimeout(r, 300));
      expect(await store.inFlight(key)).toBe(0);
    });

    it('renews what the instance holds (acquired or taken), and stops with the release', async () => {
      const svc = svcWith(makeStore());
      const t = tenant();
      const key = `tenant:${t.tenantId}`;
      const release = await acquireExecutionSlot(svc, t);
      const taken = await takeSlots(svc, t, 2);
      const renewed: string[][] = [];
      const renew = svc.slots.renew.bind(svc.slots);
      svc.slots.renew = async (k, ids, ttl) => {
        renewed.push(ids);
        return renew(k, ids, ttl);
      };
      await heldSlots(svc).renew();
      expect(renewed).toHaveLength(1);
      expect(renewed[0]).toHaveLength(3);
      taken.giveBack();
      await release();
      await heldSlots(svc).renew();
      expect(renewed).toHaveLength(1);
      await expect.poll(() => svc.slots.inFlight(key)).toBe(0);
    });

    it("a crashed holder's slots stop counting for a take of several once expired", async () => {
      const store = makeStore();
      const key = `tenant:${randomBytes(6).toString('hex')}`;
      expect(await store.acquireUpTo(key, 3, 2, 150)).toHaveLength(2);
      expect(await store.acquireUpTo(key, 3, 2, 150)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 250));
      expect(await store.acquireUpTo(key, 3, 4, 60_000)).toHaveLength(3);
      expect(await store.inFlight(key)).toBe(3);
    });
  });
