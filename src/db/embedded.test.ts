import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { types } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openEmbedded, type EmbeddedClient } from './embedded';

describe('the embedded database on its own thread', () => {
  let dir: string;
  let drizzleSide: EmbeddedClient;
  let others: EmbeddedClient;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'amp-embedded-'));
    ({ forDrizzle: drizzleSide, forOthers: others } = await openEmbedded({
      dataDir: dir,
      fresh: true,
      startParams: [],
      rawTypes: [types.TIMESTAMPTZ],
    }));
    await others.exec('create table t (id int primary key, at timestamptz not null default now())');
  }, 60_000);
  afterAll(async () => {
    await others?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers queries, raw text for the types drizzle converts, the usual values for everyone else', async () => {
    await others.query('insert into t (id) values ($1)', [1]);
    const raw = await drizzleSide.query<{ at: unknown }>('select at from t where id = $1', [1]);
    const usual = await others.query<{ at: unknown }>('select at from t where id = $1', [1]);
    expect(typeof raw.rows[0]!.at).toBe('string');
    expect(usual.rows[0]!.at).toBeInstanceOf(Date);
    const asArrays = await others.query<unknown[]>('select 1 as a, 2 as b', [], { rowMode: 'array' });
    expect(asArrays.rows).toEqual([[1, 2]]);
  });

  it('commits a transaction, rolls back a failed one, and gives PostgreSQL errors their fields', async () => {
    await others.transaction(async (tx) => {
      await tx.query('insert into t (id) values (10)');
      await tx.query('insert into t (id) values (11)');
    });
    const duplicate = (await others
      .transaction(async (tx) => {
        await tx.query('insert into t (id) values (12)');
        await tx.query('insert into t (id) values (10)');
      })
      .catch((err: unknown) => err)) as Error & { code?: string; constraint?: string };
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate.code).toBe('23505');
    expect(duplicate.constraint).toBe('t_pkey');
    const thrown = new Error('changed my mind');
    await expect(
      others.transaction(async (tx) => {
        await tx.query('insert into t (id) values (13)');
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    const ids = await others.query<{ id: number }>('select id from t where id >= 10 order by id');
    expect(ids.rows.map((r) => r.id)).toEqual([10, 11]);
  });

  it('runs other calls after an open transaction ends, as PGlite does', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = others.transaction(async (t) => {
      await t.query('insert into t (id) values (20)');
      await held;
    });
    const outside = others.query<{ n: number }>('select count(*)::int as n from t where id = 20');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await tx;
    expect((await outside).rows[0]!.n).toBe(1);
  });

  it('delivers notifications to listeners until they stop listening', async () => {
    const got: string[] = [];
    const unlisten = await others.listen('amp_test', (payload) => got.push(payload));
    await others.query("select pg_notify('amp_test', 'one')");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await unlisten();
    await others.query("select pg_notify('amp_test', 'two')");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(got).toEqual(['one']);
  });

  it('dumps the data directory', async () => {
    const dump = await others.dumpDataDir('none');
    expect(dump.size).toBeGreaterThan(1_000_000);
  });
});

describe('creating the embedded database', () => {
  it('runs initdb in a child process, and a start on the directory it made opens the same database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-initdb-'));
    try {
      const first = await openEmbedded({ dataDir: dir, fresh: true, startParams: [], rawTypes: [] });
      expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
      await first.forOthers.exec('create table kept (id int)');
      await first.forOthers.close();
      const again = await openEmbedded({ dataDir: dir, fresh: false, startParams: [], rawTypes: [] });
      const tables = await again.forOthers.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = 'kept'");
      expect(tables.rows[0]!.n).toBe(1);
      await again.forOthers.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('reports a data directory it cannot create the database in', async () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'amp-initdb-'));
    const notADirectory = path.join(parent, 'file');
    writeFileSync(notADirectory, 'not a directory');
    try {
      await expect(openEmbedded({ dataDir: notADirectory, fresh: true, startParams: [], rawTypes: [] })).rejects.toThrow(
        /Creating the embedded database in .* failed/,
      );
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('checkpoints on the database thread (PGlite never starts one itself)', () => {
  it('checkpoints once enough WAL was written since the last, and not before', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-checkpoint-'));
    const template = process.env.AMP_TEST_PGLITE_DUMP;
    const { forOthers: db } = await openEmbedded({
      dataDir: dir,
      fresh: true,
      loadDataDir: template,
      startParams: [],
      rawTypes: [],
      checkpoints: { checkEveryMs: 50, walBytes: 4 * 1024 * 1024 },
    });
    try {
      const state = async () =>
        (
          await db.query<{ redo: string; written: number }>(
            'select redo_lsn::text as redo, (pg_current_wal_insert_lsn() - redo_lsn)::float8 as written from pg_control_checkpoint()',
          )
        ).rows[0]!;
      await db.exec('create table w (v text); checkpoint');
      const before = (await state()).redo;
      // Under the threshold: no checkpoint.
      await db.exec("insert into w select repeat('x', 500) from generate_series(1, 1000)");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await state()).redo).toBe(before);
      // Past it (~8 MB of WAL): the next check checkpoints, and the WAL since starts again from there.
      await db.exec("insert into w select repeat('x', 1000) from generate_series(1, 8000)");
      await vi.waitFor(async () => expect((await state()).redo).not.toBe(before), { timeout: 10_000, interval: 50 });
      expect((await state()).written).toBeLessThan(4 * 1024 * 1024);
      expect((await db.query<{ n: number }>('select count(*)::int as n from w')).rows[0]!.n).toBe(9000);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
