import { afterAll, describe, expect, it } from 'vitest';
import { ActionPool } from './pool';

describe('ActionPool', () => {
  const pool = new ActionPool(1);
  afterAll(() => pool.close());
  const leased = async (task: Parameters<ActionPool['run']>[0]) => {
    const lease = (await pool.queue.admit('t', 60_000))!;
    try {
      return await pool.run(task, lease);
    } finally {
      lease.release();
    }
  };

  it("starts an action's deadline when its worker picks it up, not while the worker starts", async () => {
    // The pool is cold: its worker first starts and loads the text pack, far longer than this deadline.
    const outcome = await leased({
      module: 'text',
      action: 'slugify',
      input: { text: 'Hello World' },
      timeoutMs: 50,
      allowPrivateNetwork: false,
    });
    // That set-up is reported apart, so the execution's latency leaves it out (execute.ts timedRun).
    expect(outcome).toEqual({ ok: true, output: expect.objectContaining({ slug: 'hello-world' }), setupMs: expect.any(Number) });
    expect(outcome.setupMs).toBeGreaterThan(0);
  }, 60_000);

  it('still kills an action that runs past its own deadline', async () => {
    const outcome = await leased({
      module: 'json',
      action: 'query_jsonata',
      input: { data: {}, expression: '($f := function($n) { $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(40))' },
      timeoutMs: 100,
      allowPrivateNetwork: false,
    });
    expect(outcome).toMatchObject({ ok: false, code: 'timeout' });
  }, 60_000);

  it('reports a worker that fails while it holds no task, instead of throwing it at the process', async () => {
    const stray: Error[] = [];
    const own = new ActionPool(1, (err) => stray.push(err));
    try {
      for (const text of ['a', 'b', 'c']) {
        const lease = (await own.queue.admit('t', 60_000))!;
        await own.run({ module: 'text', action: 'slugify', input: { text }, timeoutMs: 1000, allowPrivateNetwork: false }, lease);
        lease.release();
      }
      // What piscina does when a worker aborted at its deadline runs out of memory before it is terminated.
      const piscina = (own as unknown as { pool: NodeJS.EventEmitter }).pool;
      expect(() => piscina.emit('error', Object.assign(new Error('out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }))).not.toThrow();
      // Reported once, however many calls the pool has run.
      expect(stray.map((err) => err.message)).toEqual(['out of memory']);
    } finally {
      await own.close();
    }
  }, 60_000);
});
