import { sql, type SQL } from 'drizzle-orm';

/** A statement with `$n` parameters as Drizzle SQL (for an executor that is not statementRows'). */
export function sqlWithParams(text: string, values: (string | number | null)[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1]}`)));
}
