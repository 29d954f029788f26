import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { queryRows, type Database, type Executor } from './client';
import type { EmbeddedClient } from './embedded';

/**
 * Runs a statement with `$n` parameters: on PostgreSQL as a named (prepared once per
 * connection) statement; on the embedded database as a statement prepared once
 * (embeddedStatement), on its session or in the transaction `db`. `db` is `database.db` or one of its
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
  if (database.pglite) {
    if (db === database.db) return embeddedStatement<T>(database.pglite, name, text, values, embeddedSession(database.pglite));
    return embeddedStatement<T>(database.pglite, `${name}_in_tx`, text, values, inTransaction(db));
  }
  return queryRows<T>(db, withParams(text, values));
}

/** How an embedded statement is prepared and executed: on the session, or in a transaction. */
interface EmbeddedRunner {
  prepare(statement: string): Promise<unknown>;
  execute<T>(statement: string): Promise<T[]>;
}

const embeddedSession = (embedded: EmbeddedClient): EmbeddedRunner => ({
  prepare: (statement) => embedded.exec(statement),
  execute: async <T>(statement: string) => (await embedded.query<T>(statement)).rows,
});

/**
 * In an open transaction, through it: the session's other callers wait for the transaction's end,
 * and so would a statement sent past it. PREPARE is not undone by a rollback. The name differs from
 * the session's, so that neither ever waits for the other's preparation.
 */
const inTransaction = (tx: Executor): EmbeddedRunner => ({
  prepare: (statement) => queryRows(tx, sql.raw(statement)),
  execute: <T>(statement: string) => queryRows<T>(tx, sql.raw(statement)),
});

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
  runner: EmbeddedRunner,
): Promise<T[]> {
  let prepared = preparedStatements.get(embedded);
  if (!prepared) preparedStatements.set(embedded, (prepared = new Map()));
  let ready = prepared.get(name);
  if (!ready) {
    ready = runner.prepare(`prepare ${name} as ${text}`);
    prepared.set(name, ready);
    ready.catch(() => prepared.delete(name));
  }
  await ready;
  const literals = values.map((v) => (v === null ? 'null' : `'${String(v).replaceAll("'", "''")}'`));
  return runner.execute<T>(`execute ${name}(${literals.join(', ')})`);
}

function withParams(text: string, values: (string | number | null)[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1]}`)));
}
