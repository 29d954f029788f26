import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { queryRows, type Database, type Executor } from './client';
import type { EmbeddedClient } from './embedded';

/**
 * Runs a statement with `$n` parameters: on PostgreSQL as a named (prepared once per
 * connection) statement; on the embedded database, outside a transaction, as a statement
 * prepared once (embeddedStatement); else through Drizzle. `db` is `database.db` or one of its
 * open transactions.
 */
export async function statementRows<T>(
  database: Database,
  db: Executor,
  name: string,
  text: string,
  values: (string | number | null)[],
): Promise<T[]> {
  if (database.kind === 'postgres') {
    // In a transaction, its connection; else any of the pool's.
    const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
    if (client instanceof pg.Client || client instanceof pg.Pool)
      return (await client.query<T & pg.QueryResultRow>({ name, text, values })).rows;
  }
  if (database.pglite && db === database.db) return embeddedStatement<T>(database.pglite, name, text, values);
  return queryRows<T>(db, withParams(text, values));
}

/** Per embedded database: the statements prepared in its session (by name), or being prepared. */
const preparedStatements = new WeakMap<EmbeddedClient, Map<string, Promise<unknown>>>();

/**
 * PREPARE once, then EXECUTE with the values as literals (PGlite has no named statements in its
 * protocol API, and EXECUTE takes no bind parameters). Parsing and planning a flush statement
 * took ~1.2 ms of the database thread each time, as much as writing 20 rows.
 */
async function embeddedStatement<T>(
  embedded: EmbeddedClient,
  name: string,
  text: string,
  values: (string | number | null)[],
): Promise<T[]> {
  let prepared = preparedStatements.get(embedded);
  if (!prepared) preparedStatements.set(embedded, (prepared = new Map()));
  let ready = prepared.get(name);
  if (!ready) {
    ready = embedded.exec(`prepare ${name} as ${text}`);
    prepared.set(name, ready);
    ready.catch(() => prepared.delete(name));
  }
  await ready;
  const literals = values.map((v) => (v === null ? 'null' : `'${String(v).replaceAll("'", "''")}'`));
  return (await embedded.query<T>(`execute ${name}(${literals.join(', ')})`)).rows;
}

function withParams(text: string, values: (string | number | null)[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1]}`)));
}
