import { describe, expect, it } from 'vitest';
import { FairQueue, halfShare, type Lease } from './fair-queue';

describe('FairQueue', () => {
  it('grants at once while a worker is free, then hands freed workers round-robin across tenants', async () => {
    const q = new FairQueue(1);
    const first = (await q.admit('a', 0))!;
    expect(first).toBeDefined();
    const order: string[] = [];
    const granted = new Map<string, Lease>();
    const wait = (tenant: string, label: string) =>
      q.admit(tenant, 60_000).then((lease) => {
        order.push(label);
        granted.set(label, lease!);
      });
    // Tenant a floods first; b and c arrive after it.
    const pending = [wait('a', 'a1'), wait('a', 'a2'), wait('a', 'a3'), wait('b', 'b1'), wait('c', 'c1'), wait('b', 'b2')];
    expect(q.waitingCount).toBe(6);
    first.release();
    for (let i = 0; i < pending.length; i++) {
      await new Promise((r) => setImmediate(r));
      expect(order).toHaveLength(i + 1); // one worker: one grant per release
      granted.get(order.at(-1)!)!.release();
    }
    await Promise.all(pending);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(q.inUse).toBe(0);
    expect(q.waitingCount).toBe(0);
  });

  it('refuses after the bounded wait, takes nothing, and keeps serving the others', async () => {
    const q = new FairQueue(1);
    const held = (await q.admit('a', 0))!;
    expect(await q.admit('b', 0)).toBeUndefined();
    expect(await q.admit('b', 20)).toBeUndefined();
    expect(q.waitingCount).toBe(0);
    const later = q.admit('c', 60_000);
    held.release();
    held.release(); // harmless twice
    const lease = await later;
    expect(lease).toBeDefined();
    expect(q.inUse).toBe(1);
    lease!.release();
    expect(q.inUse).toBe(0);
  });

  it('never grants more leases than its capacity', async () => {
    const q = new FairQueue(3);
    const leases = await Promise.all(['a', 'a', 'b'].map((t) => q.admit(t, 0)));
    expect(leases.every(Boolean)).toBe(true);
    expect(await q.admit('c', 0)).toBeUndefined();
    const waiting = q.admit('c', 60_000);
    leases[0]!.release();
    expect(await waiting).toBeDefined();
    expect(q.inUse).toBe(3);
  });

  describe('with a tenant share', () => {
    const shared = (capacity: number) => new FairQueue(capacity, { perTenant: halfShare(capacity), withinShareWaitMs: 60_000 });

    it('is half the workers, rounded up, at least one', () => {
      expect([1, 2, 3, 4].map(halfShare)).toEqual([1, 1, 2, 2]);
    });

    it("keeps a tenant's long tasks to its share while a worker is free, and refuses its excess after the admission wait", async () => {
      const q = shared(2);
      const b1 = (await q.admit('b', 50, 30_000))!;
      expect(b1).toBeDefined();
      // The second worker stays free: b's next long task waits for its own, and is refused after the admission wait.
      expect(await q.admit('b', 50, 30_000)).toBeUndefined();
      expect(q.inUse).toBe(1);
      // Another tenant takes the free worker at once.
      const a1 = await q.admit('a', 0, 30_000);
      expect(a1).toBeDefined();
      expect(q.heldBy('a')).toBe(1);
      // b's queued excess gets the worker b frees.
      const b2 = q.admit('b', 60_000, 30_000);
      b1.release();
      expect(await b2).toBeDefined();
      expect(q.heldBy('b')).toBe(1);
    });

    it('lets a task whose deadline fits within the admission wait borrow a free worker past the share', async () => {
      const q = shared(2);
      const long = (await q.admit('b', 1000, 30_000))!;
      const short = await q.admit('b', 1000, 500);
      expect(short).toBeDefined();
      expect(q.heldBy('b')).toBe(2);
      long.release();
      short!.release();
    });

    it('serves a tenant within its share first, and does not refuse it after the admission wait', async () => {
      const q = shared(2);
      const b1 = (await q.admit('b', 5, 30_000))!;
      const c1 = (await q.admit('c', 5, 30_000))!;
      const bExcess = q.admit('b', 60_000, 30_000);
      const a = q.admit('a', 5, 30_000); // within its share: waits past the 5 ms admission wait
      await new Promise((r) => setTimeout(r, 50));
      expect(q.waitingCount).toBe(2);
      c1.release(); // the freed worker goes to a (holds none), not to b's excess, though b waited first
      const lease = (await a)!;
      expect(lease).toBeDefined();
      expect(q.heldBy('a')).toBe(1);
      expect(q.waitingCount).toBe(1);
      b1.release();
      expect(await bExcess).toBeDefined();
    });

    it("refuses a tenant's calls beyond its share after the admission wait even when it holds none", async () => {
      const q = shared(2);
      const b = (await q.admit('b', 0, 30_000))!;
      const c = (await q.admit('c', 0, 30_000))!;
      const first = q.admit('a', 5, 30_000); // within a's share
      const second = q.admit('a', 5, 30_000); // beyond it
      expect(await second).toBeUndefined();
      b.release();
      expect(await first).toBeDefined();
      c.release();
    });
  });
});
