/**
 * Backups of either backend, as one file, and their restore into an empty database.
 *
 * - Embedded (PGlite in DATA_DIR): a gzip tarball of the database's data directory, taken with
 *   PGlite's own dump (a consistent copy: the database thread runs one statement at a time), and
 *   loaded back by PGlite into an empty DATA_DIR. The database is opened here, so the service
 *   must be stopped first (the embedded database admits one process).
 * - PostgreSQL (DATABASE_URL): `pg_dump --format=custom` and `pg_restore` into an empty database,
 *   run from the PATH; the service can keep running while the dump is taken.
 *
 * docs/operations.md, Backups.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { open, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from './client';

export class BackupError extends Error {}

export interface BackupTarget {
  databaseUrl?: string;
  dataDir: string;
}

/** The embedded database's files inside DATA_DIR (src/db/client.ts opens the same folder). */
const pgliteDir = (dataDir: string) => path.join(dataDir, 'pglite');

export async function backupDatabase(target: BackupTarget, file: string): Promise<{ bytes: number }> {
  const partial = `${file}.partial`;
  if (target.databaseUrl) {
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${partial}`, `--dbname=${target.databaseUrl}`]);
  } else {
    if (!existsSync(path.join(pgliteDir(target.dataDir), 'PG_VERSION')))
      throw new BackupError(`DATA_DIR ${target.dataDir} holds no embedded database to back up.`);
    const database = await openDatabase({ dataDir: target.dataDir });
    try {
      const dump = await database.pglite!.dumpDataDir('gzip');
      await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    } finally {
      await database.close();
    }
  }
  // Complete or absent: a backup cut short never looks like a good one.
  await rename(partial, file);
  return { bytes: (await stat(file)).size };
}

export async function restoreDatabase(target: BackupTarget, file: string): Promise<void> {
  if (!existsSync(file)) throw new BackupError(`No backup file at ${file}.`);
  if (target.databaseUrl) {
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${target.databaseUrl}`, file]);
    await rebaseEventXids(target.databaseUrl);
    return;
  }
  const dir = pgliteDir(target.dataDir);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new BackupError(`DATA_DIR ${target.dataDir} already holds a database: restore into an empty DATA_DIR.`);
  if (!(await isGzip(file))) throw new BackupError(`${file} is not an embedded-database backup (a gzip tarball made by db:backup).`);
  // Loaded as the template of a new data directory, then migrated to this version's schema.
  const database = await openDatabase({ dataDir: target.dataDir, pgliteTemplate: file });
  await database.close();
}

/**
 * Restored events keep the transaction ids (`events.xid`) of the cluster that wrote them, which
 * may lie far above this cluster's: new events would sort before them, and a reader's cursor
 * (src/events/feed.ts orders by (xid, seq)) taken at a restored event would skip every new one
 * until this cluster's ids caught up. So the restored events are renumbered in their (xid, seq)
 * order and given xid 0: they keep their order among themselves, by seq alone now, and sort
 * before every event this cluster writes. (An embedded restore loads the data directory itself,
 * transaction counter included: nothing to rebase.)
 */
export const REBASE_EVENT_XIDS_SQL = `update events e set xid = '0'::xid8, seq = r.n
from (select id, row_number() over (order by xid, seq) as n from events) r
where r.id = e.id and (e.xid <> '0'::xid8 or e.seq <> r.n)`;

async function rebaseEventXids(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(REBASE_EVENT_XIDS_SQL);
  } finally {
    await client.end();
  }
}

async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new BackupError(err.code === 'ENOENT' ? `${command} is not installed (it comes with PostgreSQL's client tools).` : err.message),
      ),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new BackupError(`${command} failed (${signal ?? `exit code ${code}`}): ${redact(stderr.trim())}`));
    });
  });
}

/** pg_dump and pg_restore may echo the connection string, password included. */
const redact = (text: string) => text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]+:)[^@\s]+@/g, '$1***@');
