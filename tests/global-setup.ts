/**
 * One migrated database per backend (with pg-boss's schema and the built-in modules' catalog
 * rows), so every test server starts from a copy instead of running initdb, every migration and
 * the catalog's sync again: a PGlite data directory
 * (AMP_TEST_PGLITE_TEMPLATE, copied by each server; its dump as a tar file in
 * AMP_TEST_PGLITE_DUMP), kept between runs while what it is made from is unchanged, and on
 * TEST_DATABASE_URL's server a template database, made once per run, that
 * `createTestDatabase()` clones with `CREATE DATABASE … TEMPLATE`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { syncBuiltinModules } from '../src/catalog/sync';
import { openDatabase } from '../src/db';
import { startBoss } from '../src/jobs/boss';
import { hashFiles } from '../src/lib/hash-files';
import { createLogger } from '../src/logger';
import { useMemoryTmpdir } from './memory-tmpdir';
import { skippedLine, TEST_DATABASE_URL } from './needs';

export default async function setup() {
  // Once per run: why the tests needing PostgreSQL, Redis or Chromium are reported as skipped.
  const skipped = skippedLine();
  if (skipped) console.log(skipped);
  const removeTmpdir = useMemoryTmpdir();
  // Side by side: PGlite's is CPU in this process, PostgreSQL's mostly the server's.
  const postgresTemplate = TEST_DATABASE_URL ? createPostgresTemplate(TEST_DATABASE_URL) : Promise.resolve(undefined);
  postgresTemplate.catch(() => {}); // its failure is thrown where it is awaited, below
  const template = await pgliteTemplate().catch(async (err: unknown) => {
    // A failed run leaves no PostgreSQL template behind either.
    const drop = await postgresTemplate.catch(() => undefined);
    await drop?.();
    throw err;
  });
  const dropTemplate = await postgresTemplate;
  process.env.AMP_TEST_PGLITE_DUMP = template.dump;
  process.env.AMP_TEST_PGLITE_TEMPLATE = template.dir;
  return async () => {
    await dropTemplate?.();
    removeTmpdir();
  };
}

const ROOT = path.resolve(import.meta.dirname, '..');
const CACHE_DIR = path.join(ROOT, '.amp', 'cache');
const PREFIX = 'pglite-template-';

/**
 * The migrated PGlite database, kept in `.amp/cache/` between runs (making it is initdb, every
 * migration and pg-boss's schema: 15–60 s on the reference machine, which a one-file run would pay
 * each time). Named by a digest of what it is made from: the migrations, the database and job
 * code, the built-in modules and their sync, the lock file (PGlite's and pg-boss's versions) and
 * Node's version. `dir` is the data directory, which servers copy (src/db/client.ts); `dump` the
 * same as PGlite's tar dump, for the tests of loading one. Written under a temporary name and
 * renamed, so concurrent runs never read half of one.
 */
export async function pgliteTemplate(): Promise<{ dir: string; dump: string }> {
  const hash = createHash('sha256').update(process.version).update('\0');
  for (const source of ['drizzle', 'src/db', 'src/jobs/boss.ts', 'src/catalog/sync.ts', 'src/modules', 'package-lock.json'])
    hashFiles(hash, ROOT, path.join(ROOT, source));
  const cached = path.join(CACHE_DIR, `${PREFIX}${hash.digest('hex').slice(0, 16)}`);
  const ready = { dir: path.join(cached, 'pglite'), dump: path.join(cached, 'dump.tar') };
  if (existsSync(ready.dump)) return ready;

  const building = `${cached}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  const work = mkdtempSync(path.join(tmpdir(), 'amp-template-'));
  try {
    const database = await openDatabase({ dataDir: work });
    const boss = await startBoss(database, createLogger('silent'));
    await boss.stop({ graceful: false });
    await syncBuiltinModules(database.db);
    const dump = await database.pglite!.dumpDataDir('none');
    await database.close();
    mkdirSync(path.join(building, 'pglite'), { recursive: true });
    writeFileSync(path.join(building, 'dump.tar'), Buffer.from(await dump.arrayBuffer()));
    // The dump's member names start with '/', which tar strips (and says so on stderr).
    execFileSync('tar', ['-xf', path.join(building, 'dump.tar'), '-C', path.join(building, 'pglite')], { stdio: 'ignore' });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  try {
    renameSync(building, cached);
  } catch {
    // Another run finished the same template first: theirs is the same.
    rmSync(building, { recursive: true, force: true });
  }
  for (const entry of readdirSync(CACHE_DIR))
    if (entry.startsWith(PREFIX) && path.join(CACHE_DIR, entry) !== cached && !entry.endsWith('.tmp'))
      rmSync(path.join(CACHE_DIR, entry), { recursive: true, force: true });
  return ready;
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
  const boss = await startBoss(database, createLogger('silent'));
  await boss.stop({ graceful: false });
  await syncBuiltinModules(database.db);
  await database.close();
  process.env.AMP_TEST_PG_TEMPLATE = name;
  return () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
