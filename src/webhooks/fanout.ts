import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db';
import { tenants, webhookDeliveries, webhookSubscriptions, type DeliveryKind } from '../db/schema';
import { newId } from '../lib/ids';
import type { Services } from '../services';
import { PLAN_FEATURES, PLAN_NAMES } from '../tenants/plans';
import { scheduleAttempts } from './queue';

/** Plans that have webhooks (spec §8 rule 8: Pro and above). */
const WEBHOOK_PLANS = PLAN_NAMES.slice(PLAN_NAMES.indexOf(PLAN_FEATURES.webhooks.minPlan));

export function subscribedTo(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * Creates one delivery (and its first attempt's job) per active subscription of the tenant that
 * wants `type`, inside the transaction that wrote the event. Disabled subscriptions get nothing:
 * events during downtime are not queued (spec §3), though they stay in the event log for replay.
 * Returns the number of deliveries created.
 */
export async function fanOutEvent(svc: Services, tx: Executor, event: { id: string; tenantId: string; type: string }): Promise<number> {
  const subscriptions = await tx
    .select({ id: webhookSubscriptions.id, events: webhookSubscriptions.events })
    .from(webhookSubscriptions)
    .innerJoin(tenants, eq(tenants.id, webhookSubscriptions.tenantId))
    .where(
      and(
        eq(webhookSubscriptions.tenantId, event.tenantId),
        eq(webhookSubscriptions.status, 'active'),
        inArray(tenants.plan, WEBHOOK_PLANS),
      ),
    );
  const targets = subscriptions.filter((s) => subscribedTo(s.events, event.type));
  await createDeliveries(
    svc,
    tx,
    targets.map((s) => ({ subscriptionId: s.id, tenantId: event.tenantId, eventId: event.id, eventType: event.type })),
    'event',
  );
  return targets.length;
}

export interface NewDelivery {
  subscriptionId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
}

/** Inserts pending deliveries and schedules their first attempts, in `tx`. */
export async function createDeliveries(svc: Services, tx: Executor, deliveries: NewDelivery[], kind: DeliveryKind): Promise<void> {
  if (deliveries.length === 0) return;
  const firstDelayMs = svc.config.webhooks.retryScheduleMs[0] ?? 0;
  const rows = deliveries.map((d) => ({ id: newId('dlv'), ...d, kind, nextAttemptAt: new Date(Date.now() + firstDelayMs) }));
  for (let i = 0; i < rows.length; i += 1000) {
    await tx.insert(webhookDeliveries).values(rows.slice(i, i + 1000));
  }
  await scheduleAttempts(
    svc,
    tx,
    rows.map((r) => ({ deliveryId: r.id, attempt: 1, delayMs: firstDelayMs })),
  );
}
