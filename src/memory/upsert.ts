import { and, eq, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import type { Executor } from '../db';
import { memoryEntries, tenants } from '../db/schema';
import { planRequired } from '../lib/errors';
import type { Services } from '../services';
import { memoryEntryLimit, planWithMoreEntries } from './limits';
import { presentMemoryEntry } from './present';
import { countLiveEntries, entryWhere, expiryOf, jsonb, live } from './queries';
import type { UpsertMemoryInput } from './schema';

/** Replaces a live entry in place; undefined when there is none (absent or expired). */
async function updateLive(db: Executor, tenantId: string, input: UpsertMemoryInput, tags: string[]) {
  const [row] = await db
    .update(memoryEntries)
    .set({ value: jsonb(input.value), tags, expiresAt: expiryOf(input.ttl_seconds), updatedAt: sql`now()` })
    .where(and(entryWhere(tenantId, input.agent_id, input.key), live))
    .returning();
  return row;
}

/**
 * POST /api/v1/memory: sets an entry (the body replaces value, tags and expiry; omitted tags
 * mean none, an omitted ttl_seconds means no expiry). 200 when a live entry was replaced, 201
 * when one was created (an expired, not yet purged entry is created anew). Creating counts
 * against the plan's entry limit, checked under a lock on the tenant row so concurrent creates
 * cannot pass it; updates never do.
 */
export async function upsertMemory(svc: Services, principal: Principal, input: UpsertMemoryInput) {
  const tags = [...new Set(input.tags ?? [])];
  const updated = await updateLive(svc.db, principal.tenantId, input, tags);
  if (updated) return { status: 200, body: presentMemoryEntry(updated) };

  return svc.db.transaction(async (tx) => {
    const [tenant] = await tx.select({ plan: tenants.plan }).from(tenants).where(eq(tenants.id, principal.tenantId)).for('update');
    // Another request may have created it while this one waited for the lock.
    const raced = await updateLive(tx, principal.tenantId, input, tags);
    if (raced) return { status: 200, body: presentMemoryEntry(raced) };

    const plan = tenant?.plan ?? principal.plan;
    const limit = memoryEntryLimit(plan);
    if (limit !== null && (await countLiveEntries(tx, principal.tenantId)) >= limit) {
      throw planRequired(planWithMoreEntries(plan), `Keeping more than ${limit.toLocaleString('en-US')} memory entries`);
    }
    const fields = { value: jsonb(input.value), tags, expiresAt: expiryOf(input.ttl_seconds) };
    const [row] = await tx
      .insert(memoryEntries)
      .values({ tenantId: principal.tenantId, agentId: input.agent_id, key: input.key, ...fields })
      // An expired row not purged yet: replaced as a new entry.
      .onConflictDoUpdate({
        target: [memoryEntries.tenantId, memoryEntries.agentId, memoryEntries.key],
        set: { ...fields, createdAt: sql`now()`, updatedAt: sql`now()` },
      })
      .returning();
    return { status: 201, body: presentMemoryEntry(row!) };
  });
}
