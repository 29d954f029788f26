import { and, arrayContains, desc, eq, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { memoryEntries } from '../db/schema';
import { decodeCursor, encodeCursor, type Page, beforeCursor } from '../lib/pagination';
import { notFound } from '../lib/errors';
import type { Services } from '../services';
import { presentMemoryEntry } from './present';
import { findLiveEntry, live, searchDocument } from './queries';
import type { ListMemoryInput, MemoryEntryInput } from './schema';

const m = memoryEntries;
type Entry = ReturnType<typeof presentMemoryEntry>;

/** GET /api/v1/memory/{agent_id}/{key}: 404 when absent, expired, or another tenant's. */
export async function getMemory(svc: Services, principal: Principal, input: MemoryEntryInput) {
  const row = await findLiveEntry(svc.db, principal.tenantId, input.agent_id, input.key);
  if (!row) throw notFound('memory entry');
  return presentMemoryEntry(row);
}

/**
 * GET /api/v1/memory: one agent's live entries, newest-updated first, optionally filtered by
 * full-text search over key and value (`q`, web-search syntax, `simple` configuration: no
 * stemming, any language) and by tag. Keyset-paginated over (updated_at, key).
 */
export async function listMemory(svc: Services, principal: Principal, input: ListMemoryInput): Promise<Page<Entry>> {
  const after = decodeCursor(input.cursor);
  const rows = await svc.db
    .select()
    .from(m)
    .where(
      and(
        eq(m.tenantId, principal.tenantId),
        eq(m.agentId, input.agent_id),
        live,
        input.tag ? arrayContains(m.tags, [input.tag]) : undefined,
        input.q ? sql`${searchDocument} @@ websearch_to_tsquery('simple', ${input.q})` : undefined,
        beforeCursor(m.updatedAt, m.key, after),
      ),
    )
    .orderBy(desc(m.updatedAt), desc(m.key))
    .limit(input.limit + 1);
  const items = rows.slice(0, input.limit);
  const last = items.at(-1);
  const hasMore = rows.length > input.limit;
  return {
    data: items.map(presentMemoryEntry),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ at: last.updatedAt, id: last.key }) : null,
  };
}
