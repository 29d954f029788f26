import type { EventType } from '../contract/events';
import type { Executor } from '../db';
import { newTimeOrderedId } from '../lib/ids';
import type { Services } from '../services';
import { insertEventAndFanOut } from '../webhooks/fanout';

export interface RecordedEvent {
  id: string;
  type: EventType;
  tenantId: string;
  data: Record<string, unknown>;
  createdAt: Date;
  /** Webhook deliveries created for it; wake the delivery worker after commit when > 0. */
  deliveries: number;
}

/**
 * Writes an event to the log (the outbox) inside the caller's transaction, and in the same
 * transaction one webhook delivery (with its first attempt's job) per subscription that wants
 * it. So an event exists exactly when what caused it was committed, and so do its deliveries.
 * After the commit, call `svc.deliveryWorker.wake()` when `deliveries > 0` (see afterEvents).
 */
export async function recordEvent(svc: Services, tx: Executor, tenantId: string, type: EventType, data: Record<string, unknown>): Promise<RecordedEvent> {
  const id = newTimeOrderedId('evt');
  const { createdAt, deliveries } = await insertEventAndFanOut(svc, tx, { id, tenantId, type, data });
  return { id, type, tenantId, data, createdAt, deliveries };
}

/** After the transaction that recorded `recorded` committed: start due deliveries now. */
export function afterEvents(svc: Services, ...recorded: (RecordedEvent | undefined | null)[]): void {
  if (recorded.some((e) => e && e.deliveries > 0)) svc.deliveryWorker.wake();
  // The tenant's cached view of the catalog (src/catalog/snapshot.ts) holds its installations.
  for (const e of recorded) if (e && (e.type === 'module.installed' || e.type === 'module.uninstalled')) svc.moduleCache.invalidateTenant(e.tenantId);
}
