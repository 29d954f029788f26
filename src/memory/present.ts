import type { MemoryEntryRow } from '../db/schema';

export function presentMemoryEntry(row: MemoryEntryRow) {
  return {
    agent_id: row.agentId,
    key: row.key,
    value: row.value,
    tags: row.tags,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
