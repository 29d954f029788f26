import { Redis } from 'ioredis';
import { RedisLimiter } from './src/metering/limiter';
import { connectRedis } from './src/metering/redis';
import { createLogger } from './src/logger';
const r = new Redis('redis://127.0.0.1:6379');
const a = await connectRedis('redis://127.0.0.1:6379', createLogger('silent'));
const l = new RedisLimiter(a, 'amp:luabench');
async function run(label: string, fn: (i: number) => Promise<unknown>, n = 4000) {
  await r.config('RESETSTAT');
  const t = performance.now();
  for (let i = 0; i < n; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => fn(i + j)));
  const ms = performance.now() - t;
  const stats = String(await r.info('commandstats'));
  const ev = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats)!;
  console.log(label.padEnd(24), 'evalsha calls', ev[1], 'redis µs per op', (Number(ev[2]) / n).toFixed(1), 'client ms', ms.toFixed(0));
}
await run('limit cost1', () => l.limit('t1', 1e9, 60000, 1));
await run('limit cost0', () => l.limit('t1', 1e9, 60000, 0));
await run('guarded+slot', (i) => l.limitIfCurrent('t2', 1e9, 60000, 1, { key: 'amp:luabench:v', version: '0' }, { key: 't2', limit: 100000, ttlMs: 60000, id: `s${i}` }));
await run('guarded', () => l.limitIfCurrent('t3', 1e9, 60000, 1, { key: 'amp:luabench:v', version: '0' }));
await run('trivial', () => a.eval("return 1", ['amp:luabench:x'], [1], 'sequence'));
await run('trivial unshared', () => a.eval("return 1", ['amp:luabench:x'], [1]));
const keys = await r.keys('amp:luabench*'); if (keys.length) await r.del(...keys);
r.disconnect(); a.close();
