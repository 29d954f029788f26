import { and, count, eq, gt, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db';
import { memoryEntries, type MemoryEntryRow } from '../db/schema';

const m = memoryEntries;

/**
 * Not expired, by the database's clock (one clock for every instance). Expired rows may still
 * exist until the purge removes them; every read goes through this filter.
 */
export const live: SQL = or(isNull(m.expiresAt), gt(m.expiresAt, sql`now()`))!;

/** The searchable text of an entry; the same expression as the GIN index `memory_entries_search_idx`. */
export const searchDocument = sql`to_tsvector('simple', ${m.key} || ' ' || (${m.value})::text)`;

/** A JSON value as jsonb (JSON `null` included, which drizzle would send as SQL NULL). */
export const jsonb = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

/** `now() + ttl seconds`, or null (never expires). */
export const expiryOf = (ttlSeconds: number | undefined) =>
  ttlSeconds === undefined ? null : sql`now() + (${ttlSeconds}::int * interval '1 second')`;

export function entryWhere(tenantId: string, agentId: string, key: string): SQL {
  return and(eq(m.tenantId, tenantId), eq(m.agentId, agentId), eq(m.key, key))!;
}

export async function findLiveEntry(db: Executor, tenantId: string, agentId: string, key: string): Promise<MemoryEntryRow | undefined> {
  const [row] = await db
    .select()
    .from(m)
    .where(and(entryWhere(tenantId, agentId, key), live))
    .limit(1);
  return row;
}

/** Live entries of the tenant, all agents together (what the plan limit counts). */
export async function countLiveEntries(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(m)
    .where(and(eq(m.tenantId, tenantId), live));
  return row?.n ?? 0;
}
