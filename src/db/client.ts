import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PGlite, types, type Transaction as PgliteTransaction } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Present in embedded mode: pg-boss and raw SQL use the same single connection. */
  pglite?: PGlite;
  /** Present on PostgreSQL. */
  pool?: pg.Pool;
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
  /** A PGlite data-dir dump to start from when the data dir is empty (tests: skips initdb). */
  pgliteTemplate?: string;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 20) : openPglite(opts.dataDir, opts.pgliteTemplate);
}

/**
 * PostgreSQL settings for the embedded database, after PGlite's own start parameters. Its buffer
 * cache lives in the WASM memory, and PostgreSQL's default (128 MB) made that memory grow from
 * 128 to 188 MB and stay resident; 32 MB fits in the initial memory, and the operating system's
 * page cache still holds the data files (docs/performance.md, Memory).
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=32MB'];

async function openPglite(dataDir: string, template?: string): Promise<Database> {
  const dir = path.join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  const loadDataDir = template && fresh ? new Blob([readFileSync(template)]) : undefined;
  // fsync is off: the embedded default is for one machine and development (README says so).
  const engine = await PGlite.create({ dataDir: dir, relaxedDurability: true, loadDataDir, startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  if (fresh && !loadDataDir) releaseInitdbMemory();
  const { forDrizzle, forOthers } = withoutPerQueryParsers(engine);
  const db = drizzlePglite({ client: forDrizzle, schema }) as unknown as Db;
  await migratePglite(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
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

/**
 * On an empty data directory PGlite runs initdb in a second, temporary instance and leaves it to
 * the garbage collector: about 390 MB of WASM memory (RSS 770 MB after start instead of 380)
 * that V8 frees only at its next full collection, which under steady load can be minutes away.
 * One full collection now, once per data directory's life (docs/performance.md, Memory).
 */
function releaseInitdbMemory(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Contexts made from now on (the JavaScript sandbox's included) get no `gc`.
  v8.setFlagsFromString('--no-expose-gc');
  gc();
}

/** The types drizzle-orm/pglite reads as raw text (it converts them itself): its per-query `parsers`. */
const DRIZZLE_RAW_TYPES = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182];
type QueryOptions = Parameters<PGlite['query']>[2];
type Parsers = NonNullable<NonNullable<QueryOptions>['parsers']>;

/**
 * drizzle-orm/pglite passes a `parsers` option on every query, and PGlite then copies its whole
 * parser map (318 entries) for each result: a trivial query took about twice as long. Instead the
 * instance's own map reads those types as raw text, drizzle's queries go without the option
 * (`forDrizzle`), and every other user (pg-boss, raw queries) gets PGlite's usual parsers for
 * them back per query (`forOthers`), so what they receive is unchanged.
 */
function withoutPerQueryParsers(engine: PGlite): { forDrizzle: PGlite; forOthers: PGlite } {
  const usual: Parsers = {};
  for (const oid of DRIZZLE_RAW_TYPES) {
    usual[oid] = engine.parsers[oid]!;
    engine.parsers[oid] = (value: string) => value;
  }
  const stripped = (options: QueryOptions) => {
    if (!options?.parsers) return options;
    const { parsers: _drizzleParsers, ...rest } = options;
    return rest;
  };
  const restored = (options: QueryOptions) => ({ ...options, parsers: { ...usual, ...options?.parsers } });
  const wrap = <C extends PGlite | PgliteTransaction>(client: C, adjust: (o: QueryOptions) => QueryOptions): C =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'query') {
          return async (text: string, params?: unknown[], options?: QueryOptions) => {
            await letTheLoopRun();
            return target.query(text, params, adjust(options));
          };
        }
        if (prop === 'exec') {
          return async (text: string, options?: QueryOptions) => {
            await letTheLoopRun();
            return target.exec(text, adjust(options));
          };
        }
        if (prop === 'transaction' && 'transaction' in target) {
          return async <T>(fn: (tx: PgliteTransaction) => Promise<T>) => {
            await letTheLoopRun();
            return (target as PGlite).transaction((tx) => fn(wrap(tx, adjust)));
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { forDrizzle: wrap(engine, stripped), forOthers: wrap(engine, restored) };
}

/** The longest the embedded database runs queries back to back before the event loop gets a turn. */
const EMBEDDED_SLICE_MS = 4;
/** When the current uninterrupted run of queries began, and whether the loop has turned since. */
let runStartedAt = 0;
let runOpen = false;
const endRun = () => {
  runOpen = false;
};

/**
 * PGlite runs each query synchronously on this thread, and queued queries follow one another
 * through promise continuations alone, so under load timers, sockets and replies waited behind
 * hundreds of queries (500 queued transactions delayed a 0 ms timer by 1.3 s; bench/pglite-stall.ts).
 * A run of queries starts with the first query after the event loop last turned; once it has
 * lasted EMBEDDED_SLICE_MS, the next query first yields (setImmediate, after pending I/O). The loop
 * is never held for much longer than a slice, and a query under light load never waits.
 */
function letTheLoopRun(): Promise<void> | undefined {
  if (!runOpen) {
    runOpen = true;
    runStartedAt = performance.now();
    setImmediate(endRun);
    return undefined;
  }
  if (performance.now() - runStartedAt < EMBEDDED_SLICE_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  const lockClient = await pool.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
    lockClient.release();
  }
  return {
    db,
    kind: 'postgres',
    pool,
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
