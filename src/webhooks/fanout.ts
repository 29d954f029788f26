import { inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db';
import { events, tenants, webhookDeliveries, webhookSubscriptions, type DeliveryKind } from '../db/schema';
import { newTimeOrderedId } from '../lib/ids';
import { storableJson } from '../lib/storable';
import type { Services } from '../services';
import { PLAN_FEATURES, PLAN_NAMES } from '../tenants/plans';
import { scheduleAttempts } from './queue';

/** Plans that have webhooks (spec §8 rule 8: Pro and above). */
export const WEBHOOK_PLANS = PLAN_NAMES.slice(PLAN_NAMES.indexOf(PLAN_FEATURES.webhooks.minPlan));

export function subscribedTo(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * Writes the event and finds the tenant's active subscriptions in one statement (one round trip
 * on every event, including for the many tenants without webhooks); then, in the same
 * transaction, creates one delivery (and its first attempt's job) per subscription that wants
 * the event. Disabled subscriptions get nothing: events during downtime are not queued (spec
 * §3), though they stay in the event log for replay. Below Pro, nothing is delivered, and
 * subscriptions a downgrade suspended get nothing until an upgrade restores them.
 */
export async function insertEventAndFanOut(
  svc: Services,
  tx: Executor,
  event: { id: string; tenantId: string; type: string; data: Record<string, unknown> },
): Promise<{ createdAt: Date; deliveries: number }> {
  const s = webhookSubscriptions;
  const serialized = JSON.stringify(event.data);
  const storable = storableJson(event.data, serialized);
  const data = storable === event.data ? serialized : JSON.stringify(storable);
  const [row] = await queryRows<{ created_at: string | Date; subscriptions: { id: string; events: string[] }[] | null }>(tx, sql`
    with inserted as (
      insert into ${events} (id, tenant_id, type, data) values (${event.id}, ${event.tenantId}, ${event.type}, ${data}::jsonb)
      returning created_at
    )
    select inserted.created_at,
      (select json_agg(json_build_object('id', ${s.id}, 'events', ${s.events}))
         from ${s} join ${tenants} on ${tenants.id} = ${s.tenantId}
        where ${s.tenantId} = ${event.tenantId} and ${s.status} = 'active' and ${s.suspendedAt} is null and ${inArray(tenants.plan, WEBHOOK_PLANS)}) as subscriptions
    from inserted`);
  const { created_at: createdAt, subscriptions } = row!;
  const targets = (subscriptions ?? []).filter((sub) => subscribedTo(sub.events, event.type));
  await createDeliveries(
    svc,
    tx,
    targets.map((sub) => ({ subscriptionId: sub.id, tenantId: event.tenantId, eventId: event.id, eventType: event.type })),
    'event',
  );
  return { createdAt: new Date(createdAt), deliveries: targets.length };
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
  const rows = deliveries.map((d) => ({ id: newTimeOrderedId('dlv'), ...d, kind, nextAttemptAt: new Date(Date.now() + firstDelayMs) }));
  for (let i = 0; i < rows.length; i += 1000) {
    await tx.insert(webhookDeliveries).values(rows.slice(i, i + 1000));
  }
  await scheduleAttempts(
    svc,
    tx,
    rows.map((r) => ({ deliveryId: r.id, attempt: 1, delayMs: firstDelayMs, subscriptionId: r.subscriptionId })),
  );
}
