import { and } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import { memoryEntries } from '../db/schema';
import { notFound } from '../lib/errors';
import type { Services } from '../services';
import { entryWhere, live } from './queries';
import type { MemoryEntryInput } from './schema';

/** DELETE /api/v1/memory/{agent_id}/{key}: 404 when absent, expired, or another tenant's. */
export async function deleteMemory(svc: Services, principal: Principal, input: MemoryEntryInput) {
  await svc.db.transaction(async (tx) => {
    const removed = await tx
      .delete(memoryEntries)
      .where(and(entryWhere(principal.tenantId, input.agent_id, input.key), live))
      .returning({ key: memoryEntries.key });
    if (removed.length === 0) throw notFound('memory entry');
    await recordAudit(tx, principal.tenantId, {
      action: 'memory.deleted',
      target: { type: 'memory_entry', id: `${input.agent_id}/${input.key}` },
      changes: { agent_id: input.agent_id, key: input.key },
    });
  });
  return { agent_id: input.agent_id, key: input.key, deleted: true as const };
}
