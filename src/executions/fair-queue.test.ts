import { describe, expect, it } from 'vitest';
import { FairQueue, type Lease } from './fair-queue';

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
});
