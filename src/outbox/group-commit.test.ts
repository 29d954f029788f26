import { describe, expect, it } from 'vitest';
import { GroupCommit, type Pending } from './group-commit';

/** A flush the test completes by hand: records each batch and settles nothing until told. */
function manualFlush() {
  const batches: { items: number[]; done: () => void }[] = [];
  const flush = (batch: Pending<number, number>[]) =>
    new Promise<void>((resolve) => {
      batches.push({
        items: batch.map((p) => p.item),
        done: () => {
          for (const p of batch) p.resolve(p.item * 10);
          resolve();
        },
      });
    });
  return { batches, flush };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('writes what one turn submits as one flush, and what queues during a flush as the next one', async () => {
    const { batches, flush } = manualFlush();
    const gc = new GroupCommit(flush, { maxBatch: 100, maxInFlight: 1 });
    const first = [1, 2, 3].map((n) => gc.submit(n));
    await turn();
    expect(batches.map((b) => b.items)).toEqual([[1, 2, 3]]);
    const second = [4, 5].map((n) => gc.submit(n));
    await turn();
    // One flush in flight at most: 4 and 5 wait for it.
    expect(batches).toHaveLength(1);
    expect(gc.waiting).toBe(2);
    batches[0]!.done();
    expect(await Promise.all(first)).toEqual([10, 20, 30]);
    await turn();
    expect(batches.map((b) => b.items)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    batches[1]!.done();
    expect(await Promise.all(second)).toEqual([40, 50]);
  });

  it('flushes at once when a batch fills, and never more than maxBatch items or maxInFlight flushes', async () => {
    const { batches, flush } = manualFlush();
    const gc = new GroupCommit(flush, { maxBatch: 2, maxInFlight: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => gc.submit(n));
    expect(batches.map((b) => b.items)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    await turn();
    expect(batches).toHaveLength(2);
    batches[0]!.done();
    await turn();
    expect(batches.map((b) => b.items)).toEqual([[1, 2], [3, 4], [5]]);
    batches[1]!.done();
    batches[2]!.done();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
  });

  it('rejects what a failed flush left unsettled with its error, and goes on with the next', async () => {
    let calls = 0;
    const gc = new GroupCommit<number, number>(
      async (batch) => {
        calls++;
        if (calls === 1) {
          batch[0]!.resolve(1);
          throw new Error('flush failed');
        }
        for (const p of batch) p.resolve(p.item);
      },
      { maxBatch: 10, maxInFlight: 1 },
    );
    const results = await Promise.allSettled([gc.submit(1), gc.submit(2)]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: 'flush failed' } });
    expect(await gc.submit(3)).toBe(3);
  });
});
