import { describe, expect, it } from 'vitest';
import { Reloadable } from './reloadable';

/** A load that resolves when told to, counting how often it ran. */
function controlledLoad() {
  const pending: ((value: number) => void)[] = [];
  let runs = 0;
  return {
    load: () =>
      new Promise<number>((resolve) => {
        runs++;
        pending.push(resolve);
      }),
    finish: (value: number) => pending.shift()!(value),
    get runs() {
      return runs;
    },
  };
}

describe('Reloadable', () => {
  it('concurrent readers of a missing value share one load', async () => {
    const source = controlledLoad();
    const value = new Reloadable(source.load, () => 60_000);
    const readers = Array.from({ length: 20 }, () => value.get());
    expect(source.runs).toBe(1);
    source.finish(7);
    expect(await Promise.all(readers)).toEqual(Array(20).fill(7));
    expect(await value.get()).toBe(7);
    expect(source.runs).toBe(1);
  });

  it('a load that began before an invalidation is not kept', async () => {
    const source = controlledLoad();
    const value = new Reloadable(source.load, () => 60_000);
    const early = value.get();
    value.invalidate();
    source.finish(1); // read before the change
    expect(await early).toBe(1);
    expect(value.peek()).toBeUndefined();
    const late = value.get();
    expect(source.runs).toBe(2);
    source.finish(2);
    expect(await late).toBe(2);
    expect(value.peek()).toBe(2);
  });

  it('past its age, the old value is served while one reload runs', async () => {
    const source = controlledLoad();
    let maxAge = 60_000;
    const value = new Reloadable(source.load, () => maxAge);
    const first = value.get();
    source.finish(1);
    await first;
    maxAge = 0;
    expect(await value.get()).toBe(1);
    expect(await value.get()).toBe(1);
    expect(source.runs).toBe(2);
    source.finish(2);
    await new Promise((r) => setImmediate(r));
    maxAge = 60_000;
    expect(await value.get()).toBe(2);
  });

  it('a failed load is reported to its readers and retried by the next', async () => {
    let fail = true;
    const value = new Reloadable(
      async () => {
        if (fail) throw new Error('database down');
        return 3;
      },
      () => 60_000,
    );
    await expect(value.get()).rejects.toThrow('database down');
    fail = false;
    expect(await value.get()).toBe(3);
  });
});
