import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './client';

describe('the embedded database as openDatabase starts it', () => {
  let dir: string;
  let database: Database;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'amp-client-'));
    database = await openDatabase({ dataDir: dir, pgliteTemplate: process.env.AMP_TEST_PGLITE_TEMPLATE });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs with its own PostgreSQL settings (a small buffer cache, WAL segments not zero-filled)', async () => {
    const setting = async (name: string) =>
      (
        await database.pglite!.query<{ setting: string; unit: string | null }>('select setting, unit from pg_settings where name = $1', [
          name,
        ])
      ).rows[0];
    expect(await setting('shared_buffers')).toEqual({ setting: '4096', unit: '8kB' });
    expect(await setting('wal_init_zero')).toEqual({ setting: 'off', unit: null });
  });
});
