import { PGlite } from '@electric-sql/pglite';
import { fromPglite, PgBoss } from 'pg-boss';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workEachJob } from './boss';

let pglite: PGlite;
let boss: PgBoss;

beforeAll(async () => {
  pglite = new PGlite();
  boss = new PgBoss({ db: fromPglite(pglite), backend: 'pglite' });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('mail', { retryLimit: 1, retryDelay: 0 });
}, 60_000);

afterAll(async () => {
  await boss?.stop({ graceful: false });
  await pglite?.close();
});

it('workEachJob: a backlog is handled a batch at a time, and only the job that failed is tried again', async () => {
  const ids = Array.from({ length: 25 }, (_, n) => n);
  await boss.insert(
    'mail',
    ids.map((n) => ({ data: { n } })),
  );
  const handled: number[] = [];
  let failedOnce = false;
  const allHandled = new Promise<void>((resolve) => {
    void workEachJob<{ n: number }>(boss, 'mail', 30, async ({ n }) => {
      handled.push(n);
      if (n === 7 && !failedOnce) {
        failedOnce = true;
        throw new Error('SMTP refused');
      }
      if (handled.length === ids.length + 1) resolve();
    });
  });
  // 25 jobs at 10 a fetch, with a 30 s poll: only fetching again at once while fetches come back
  // full drains them within the test's time.
  await allHandled;
  expect(handled.filter((n) => n === 7)).toHaveLength(2);
  expect([...new Set(handled)].sort((a, b) => a - b)).toEqual(ids);
  expect(handled.filter((n) => n !== 7)).toHaveLength(ids.length - 1);
}, 25_000);
