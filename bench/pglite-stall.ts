/**
 * Embedded mode (PGlite) and the main thread: `npx tsx bench/pglite-stall.ts`.
 *  1. Stall: on a bare PGlite (on this thread) and on the service's own embedded database (its own
 *     thread, src/db/embedded.ts), queues N transactions (default 500; each an insert and a
 *     select, as an execution's admission does) and measures how late a 0 ms timer fires
 *     meanwhile, and the event-loop delay (perf_hooks.monitorEventLoopDelay) over the whole run.
 *  2. Parser copy: the mean time of a trivial query with and without a per-query `parsers`
 *     option (drizzle's PGlite driver passes one on every query; PGlite then copies its whole
 *     parser map for each result).
 *
 *   BENCH_PGLITE_TX   transactions to queue (default 500)
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { openDatabase } from '../src/db/client';

const TX = Number(process.env.BENCH_PGLITE_TX ?? 500);
const QUERIES = 2_000;

// Both on disk, as the service runs.
const bareDir = mkdtempSync(path.join(tmpdir(), 'amp-stall-bare-'));
const db = await PGlite.create({ dataDir: bareDir, relaxedDurability: true });
await db.exec('create table t (id serial primary key, tenant int not null, at timestamptz not null default now())');
// The service's own embedded database (src/db/embedded.ts): the same queries, on its thread.
const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-stall-'));
const service = await openDatabase({ dataDir });
await service.pglite!.exec('create table t (id serial primary key, tenant int not null, at timestamptz not null default now())');

// 1. Stall.
async function stall(label: string, client: Pick<PGlite, 'transaction'>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const queuedAt = performance.now();
  let timerDelay = -1;
  setTimeout(() => (timerDelay = performance.now() - queuedAt), 0);
  // A 1 ms interval: the longest gap between its callbacks is the longest stall.
  let lastTick = queuedAt;
  let longestGap = 0;
  let ticks = 0;
  const interval = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - lastTick);
    lastTick = now;
    ticks++;
  }, 1);
  const replyAt: number[] = [];
  await Promise.all(
    Array.from({ length: TX }, (_, i) =>
      client
        .transaction(async (tx) => {
          await tx.query('insert into t (tenant) values ($1)', [i % 10]);
          await tx.query('select count(*) from t where tenant = $1', [i % 10]);
        })
        .then(() => replyAt.push(performance.now() - queuedAt)),
    ),
  );
  const totalMs = performance.now() - queuedAt;
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(interval);
  histogram.disable();
  replyAt.sort((a, b) => a - b);
  const pct = (p: number) => replyAt[Math.min(replyAt.length - 1, Math.ceil((p / 100) * replyAt.length) - 1)]!;
  console.log(`stall (${label}): ${TX} transactions queued at once, all done in ${totalMs.toFixed(0)} ms`);
  console.log(
    `  a 0 ms timer fired after ${timerDelay.toFixed(0)} ms; a 1 ms interval ran ${ticks} times, longest gap ${longestGap.toFixed(0)} ms`,
  );
  console.log(`  monitorEventLoopDelay: max ${(histogram.max / 1e6).toFixed(0)} ms, ${histogram.count} samples`);
  console.log(`  reply after queueing: p50 ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms`);
}
await stall('bare PGlite', db);
await stall("the service's embedded database, on its own thread", service.pglite!);
await stall('bare PGlite, again', db);
await stall("the service's embedded database, again", service.pglite!);
await service.close();
rmSync(dataDir, { recursive: true, force: true });
process.on('exit', () => rmSync(bareDir, { recursive: true, force: true }));

// 2. Parser copy (the same identity parsers drizzle-orm/pglite passes).
const identity = (v: string) => v;
const drizzleParsers = {
  [types.TIMESTAMP]: identity,
  [types.TIMESTAMPTZ]: identity,
  [types.INTERVAL]: identity,
  [types.DATE]: identity,
  1231: identity,
  1115: identity,
  1185: identity,
  1187: identity,
  1182: identity,
};
async function meanMicros(options?: { parsers: Record<number, (v: string) => unknown> }) {
  for (let i = 0; i < 200; i++) await db.query('select id, at from t where id = $1', [1], options);
  const start = performance.now();
  for (let i = 0; i < QUERIES; i++) await db.query('select id, at from t where id = $1', [1], options);
  return ((performance.now() - start) * 1000) / QUERIES;
}
const without = await meanMicros();
const withParsers = await meanMicros({ parsers: drizzleParsers });
const again = await meanMicros();
console.log(
  `parser copy: trivial query ${Math.min(without, again).toFixed(0)} µs without a per-query parsers option, ${withParsers.toFixed(0)} µs with drizzle's (parser map of ${Object.keys(db.parsers).length} entries)`,
);
await db.close();
