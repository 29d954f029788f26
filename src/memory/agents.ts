import { and, count, desc, eq, max } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { memoryEntries } from '../db/schema';
import type { Services } from '../services';
import { live } from './queries';
import type { ListMemoryAgentsInput } from './schema';

const m = memoryEntries;

/**
 * GET /api/v1/memory/agents: the tenant's agents that have live entries, most recently updated
 * first, each with its number of entries and when one last changed (the dashboard's agent picker).
 * At most `limit` agents; `has_more` says there are others (reach them by their id).
 */
export async function listMemoryAgents(svc: Services, principal: Principal, input: ListMemoryAgentsInput) {
  const lastUpdated = max(m.updatedAt);
  const rows = await svc.db
    .select({ agentId: m.agentId, entries: count(), lastUpdated })
    .from(m)
    .where(and(eq(m.tenantId, principal.tenantId), live))
    .groupBy(m.agentId)
    .orderBy(desc(lastUpdated), m.agentId)
    .limit(input.limit + 1);
  return {
    data: rows.slice(0, input.limit).map((r) => ({
      agent_id: r.agentId,
      entries: r.entries,
      last_updated_at: r.lastUpdated ? new Date(r.lastUpdated).toISOString() : null,
    })),
    has_more: rows.length > input.limit,
  };
}
