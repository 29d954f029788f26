import type { ApiKeyRow } from '../db/schema';

export const iso = (d: Date) => d.toISOString();

export function presentKeySummary(row: ApiKeyRow) {
  return {
    key_id: row.id,
    name: row.name,
    scopes: row.scopes,
    created_at: iso(row.createdAt),
    policy: row.policy ?? null,
    prefix: row.prefix,
    primary: row.isPrimary,
    last_used_at: row.lastUsedAt ? iso(row.lastUsedAt) : null,
    rotated_at: row.rotatedAt ? iso(row.rotatedAt) : null,
    suspended: row.suspendedAt !== null,
  };
}
