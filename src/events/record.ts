import type { Executor } from '../db';
import { events } from '../db/schema';
import { newId } from '../lib/ids';

/** The 12 event kinds of spec §6. */
export const EVENT_TYPES = [
  'execution.completed',
  'execution.failed',
  'module.installed',
  'module.uninstalled',
  'certification.completed',
  'certification.tier_changed',
  'billing.limit_approaching',
  'billing.limit_exceeded',
  'billing.invoice_created',
  'trust.score_changed',
  'workflow.completed',
  'workflow.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface RecordedEvent {
  id: string;
  type: EventType;
  tenantId: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Writes an event to the log (the outbox) inside the caller's transaction, so the event exists
 * exactly when what caused it was committed. Webhook delivery fans out from this table.
 */
export async function recordEvent(tx: Executor, tenantId: string, type: EventType, data: Record<string, unknown>): Promise<RecordedEvent> {
  const [row] = await tx.insert(events).values({ id: newId('evt'), tenantId, type, data }).returning();
  return { id: row!.id, type, tenantId, data, createdAt: row!.createdAt };
}
