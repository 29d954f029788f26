/**
 * The run's migrated PGlite database, shared by vitest's global set-up (tests/global-setup.ts) and
 * Playwright's (tests/e2e/global-setup.ts): every embedded test server, and the service the
 * browser tests share, starts on a copy of it (tests/pglite-seed.ts, src/db/client.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syncBuiltinModules } from '../src/catalog/sync';
import { openDatabase, type Database } from '../src/db';
import { startBoss } from '../src/jobs/boss';
import { hashFiles } from '../src/lib/hash-files';
import { createLogger } from '../src/logger';

/**
 * What every template database holds, on either backend: the migrations (run by `openDatabase`),
 * pg-boss's schema and the built-in modules' catalog rows, so a server's start-up writes nothing.
 */
export async function fillTemplate(database: Database): Promise<void> {
  const boss = await startBoss(database, createLogger('silent'));
  await boss.stop({ graceful: false });
  await syncBuiltinModules(database.db);
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
    await fillTemplate(database);
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
