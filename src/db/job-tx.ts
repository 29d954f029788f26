import type { Db as IDatabase } from 'pg-boss';
import type { Executor } from '../db';

interface RawClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * pg-boss's `db` option over a Drizzle transaction, so a job is created in the same transaction
 * as the rows that need it (committed together or not at all). The session's client is the
 * transaction's own connection: a pg PoolClient on PostgreSQL, PGlite's transaction on PGlite
 * (where any other handle would wait for the open transaction forever).
 */
export function jobsDb(tx: Executor): IDatabase {
  const client = (tx as unknown as { session: { client: RawClient } }).session.client;
  return {
    executeSql: async (text, values) => {
      const result = await client.query(text, values);
      return { rows: result.rows as never[] };
    },
  };
}
