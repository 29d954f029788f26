/**
 * Builds one migrated database per backend (with pg-boss's schema) once per run, so every test
 * server starts from a copy instead of running initdb and every migration again: a PGlite data
 * directory dumped to a tar file, and on TEST_DATABASE_URL's server a template database that
 * `createTestDatabase()` clones with `CREATE DATABASE … TEMPLATE`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db';
import { startBoss } from '../src/jobs/boss';
import { createLogger } from '../src/logger';
import { skippedLine, TEST_DATABASE_URL } from './needs';

export default async function setup() {
  // Once per run: why the tests needing PostgreSQL, Redis or Chromium are reported as skipped.
  const skipped = skippedLine();
  if (skipped) console.log(skipped);
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-template-'));
  const database = await openDatabase({ dataDir: dir });
  const boss = await startBoss(database, createLogger('silent'));
  await boss.stop({ graceful: false });
  const dump = await database.pglite!.dumpDataDir('none');
  const out = path.resolve('.test-data');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `pglite-template-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  rmSync(dir, { recursive: true, force: true });
  process.env.AMP_TEST_PGLITE_TEMPLATE = file;
  const dropTemplate = TEST_DATABASE_URL ? await createPostgresTemplate(TEST_DATABASE_URL) : undefined;
  return async () => {
    rmSync(file, { force: true });
    await dropTemplate?.();
  };
}

/** A migrated database with pg-boss's schema, no connection left open (a template must have none). */
async function createPostgresTemplate(serverUrl: string): Promise<() => Promise<void>> {
  const name = `amp_template_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 2 });
  const boss = await startBoss(database, createLogger('silent'));
  await boss.stop({ graceful: false });
  await database.close();
  process.env.AMP_TEST_PG_TEMPLATE = name;
  return () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
