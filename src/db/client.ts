import { constants, cpSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { types, type PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock';
import { openEmbedded, type EmbeddedClient } from './embedded';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Present in embedded mode: pg-boss and raw SQL use the same single connection (on its own thread). */
  pglite?: EmbeddedClient;
  /** Present on PostgreSQL. */
  pool?: pg.Pool;
  /** Present on PostgreSQL: the deadlines its connections carry. */
  deadlines?: DatabaseDeadlines;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');
/** Any constant works; it only has to be the same on every instance. */
const MIGRATION_LOCK_ID = 7_310_042_001;

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  /**
   * What an empty embedded data dir starts from instead of initdb: a PGlite data-dir dump (a tar
   * file: a backup being restored), or a PGlite data directory, copied (the tests' migrated
   * template: copying its files is faster than unpacking a dump inside PGlite).
   */
  pgliteTemplate?: string;
  /** PostgreSQL only; DEFAULT_DEADLINES when absent. */
  deadlines?: DatabaseDeadlines;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize ?? 20, opts.deadlines ?? DEFAULT_DEADLINES)
    : openPglite(opts.dataDir, opts.pgliteTemplate);
}

/**
 * PostgreSQL settings for the embedded database, after PGlite's own start parameters. Its buffer
 * cache lives in the WASM memory, and PostgreSQL's default (128 MB) would grow that memory past its
 * initial 128 MB and keep it resident; 32 MB fits in the initial memory, and the operating system's
 * page cache still holds the data files (docs/performance.md, Memory). New WAL segments are not
 * zero-filled (`wal_init_zero`): PGlite writes its files from the thread that runs every query, and
 * filling each 16 MB segment would hold that thread for tens of milliseconds; PostgreSQL only
 * needs the file's size.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=32MB', '-c', 'wal_init_zero=off'];

/** The data directory is locked first: a second process opening the same PGlite files would ruin them (src/db/data-dir-lock.ts). */
async function openPglite(dataDir: string, template?: string): Promise<Database> {
  const lock = lockDataDir(dataDir);
  try {
    const database = await openLockedPglite(dataDir, template);
    return { ...database, close: once(() => database.close().then(lock.release)) };
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function openLockedPglite(dataDir: string, template?: string): Promise<Database> {
  const dir = path.join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  let fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  let dump: string | undefined;
  if (template && fresh) {
    if (statSync(template).isDirectory()) {
      // Copy-on-write where the file system can; a plain copy elsewhere.
      cpSync(template, dir, { recursive: true, mode: constants.COPYFILE_FICLONE });
      fresh = false;
    } else dump = template;
  }
  const { forDrizzle, forOthers } = await openEmbedded({
    dataDir: dir,
    fresh,
    loadDataDir: dump,
    startParams: PGLITE_SETTINGS,
    rawTypes: DRIZZLE_RAW_TYPES,
  });
  const db = drizzlePglite({ client: forDrizzle as unknown as PGlite, schema }) as unknown as Db;
  try {
    await migratePglite(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } catch (err) {
    await forOthers.close();
    throw err;
  }
  const pglite = forOthers;
  return {
    db,
    kind: 'pglite',
    pglite,
    ping: async () => {
      try {
        await pglite.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
    close: once(() => pglite.close()),
  };
}

/** The types drizzle-orm/pglite reads as raw text (it converts them itself): src/db/embedded.ts. */
const DRIZZLE_RAW_TYPES = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182];

/**
 * How long a PostgreSQL session may wait (docs/operations.md, Database deadlines): one statement,
 * one lock, and a transaction idle between its statements (its holder frozen, or its connection
 * silently gone), past which PostgreSQL ends the session and releases its locks. 0 turns one off.
 */
export interface DatabaseDeadlines {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_DEADLINES: DatabaseDeadlines = { statementTimeoutMs: 5000, lockTimeoutMs: 2000, idleInTransactionTimeoutMs: 10_000 };

/** The client stops waiting for an answer this long after the server's statement_timeout would have ended the statement. */
const QUERY_TIMEOUT_MARGIN_MS = 1000;
/** TCP keepalive probes start after this much silence (the operating system's settings then decide when a dead peer is dropped). */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * The pg.Pool settings of every PostgreSQL connection the service opens (its own pool's and
 * pg-boss's): the deadlines as session settings, a client-side query timeout just above the
 * statement timeout (a connection that stopped answering is abandoned instead of awaited), TCP
 * keepalive, and a client that closes a connection whose query went unanswered.
 */
export function postgresSessionOptions(deadlines: DatabaseDeadlines): pg.PoolConfig {
  const { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs } = deadlines;
  return {
    statement_timeout: statementTimeoutMs,
    lock_timeout: lockTimeoutMs,
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    query_timeout: statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : undefined,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    Client: DeadlineClient,
  };
}

/**
 * A client that closes its connection when a query outlives `query_timeout`. node-postgres only
 * stops waiting: the unanswered query stays in flight on the connection, so the ROLLBACK after it,
 * and every query of the client's next user, would queue behind it. Closed, they fail at once and
 * the pool replaces the client; PostgreSQL ends the session's transaction when it sees the
 * connection gone, or at its idle-in-transaction timeout.
 */
class DeadlineClient extends pg.Client {
  override query(...args: unknown[]): never {
    const run = super.query as unknown as (...a: unknown[]) => unknown;
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => {
        this.dropOnReadTimeout(err);
        (last as (e: unknown, r: unknown) => void)(err, res);
      };
      return run.apply(this, args) as never;
    }
    const result = run.apply(this, args);
    if (result instanceof Promise) result.catch((err: unknown) => this.dropOnReadTimeout(err));
    return result as never;
  }

  private dropOnReadTimeout(err: unknown): void {
    if (err instanceof Error && err.message === QUERY_READ_TIMEOUT) {
      (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  }
}

/** node-postgres' error when `query_timeout` passes without an answer. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

async function openPostgres(url: string, max: number, deadlines: DatabaseDeadlines): Promise<Database> {
  await migratePostgres(url);
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000, ...postgresSessionOptions(deadlines) });
  // A client losing its connection must not crash the process: idle ones report to the pool,
  // checked-out ones (between a transaction's statements) to themselves. Their query fails, and
  // the pool drops a client that is no longer queryable when it is released.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    pool,
    deadlines,
    ping: async (timeoutMs = 2000) => {
      try {
        await withTimeout(pool.query('select 1'), timeoutMs);
        return true;
      } catch {
        return false;
      }
    },
    close: once(() => pool.end()),
  };
}

/**
 * Applies the migrations on a connection of its own, without the deadlines: a migration may
 * rewrite a large table, and an instance starting while another migrates waits for its lock.
 */
async function migratePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, keepAlive: true });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(drizzlePg({ client, schema }) as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end().catch(() => {});
  }
}

/** Closing twice (e.g. a test closes the database, then the server) is harmless. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/**
 * Runs raw SQL and returns its rows, on either driver (node-postgres and PGlite both answer
 * `{ rows }`; this hides the difference in Drizzle's typing).
 */
export async function queryRows<T>(db: Executor, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}

/** True when the error is a PostgreSQL unique violation (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
