/**
 * One migrated database per backend (with pg-boss's schema and the built-in modules' catalog
 * rows), so every test server starts from a copy instead of running initdb, every migration and
 * the catalog's sync again: a PGlite data directory
 * (AMP_TEST_PGLITE_TEMPLATE, copied by each server; its dump as a tar file in
 * AMP_TEST_PGLITE_DUMP), kept between runs while what it is made from is unchanged, and on
 * TEST_DATABASE_URL's server a template database, made once per run, that
 * `createTestDatabase()` clones with `CREATE DATABASE … TEMPLATE`.
 */
import pg from 'pg';
import { openDatabase } from '../src/db';
import { useMemoryTmpdir } from './memory-tmpdir';
import { skippedLine, TEST_DATABASE_URL } from './needs';
import { fillTemplate, pgliteTemplate } from './pglite-template';

export default async function setup() {
  // Once per run: why the tests needing PostgreSQL, Redis or Chromium are reported as skipped.
  const skipped = skippedLine();
  if (skipped) console.log(skipped);
  const removeTmpdir = useMemoryTmpdir();
  // Side by side: PGlite's is CPU in this process, PostgreSQL's mostly the server's.
  const [pglite, postgres] = await Promise.allSettled([
    pgliteTemplate(),
    TEST_DATABASE_URL ? createPostgresTemplate(TEST_DATABASE_URL) : undefined,
  ]);
  if (pglite.status === 'rejected') {
    // A failed set-up leaves no PostgreSQL template behind.
    if (postgres.status === 'fulfilled') await postgres.value?.();
    throw pglite.reason;
  }
  if (postgres.status === 'rejected') throw postgres.reason;
  const dropTemplate = postgres.value;
  process.env.AMP_TEST_PGLITE_DUMP = pglite.value.dump;
  process.env.AMP_TEST_PGLITE_TEMPLATE = pglite.value.dir;
  return async () => {
    await dropTemplate?.();
    removeTmpdir();
  };
}

/** A migrated database with pg-boss's schema and the built-ins' catalog rows, no connection left open (a template must have none). */
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
  await fillTemplate(database);
  await database.close();
  process.env.AMP_TEST_PG_TEMPLATE = name;
  return () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
