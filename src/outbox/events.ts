import { inArray, sql } from 'drizzle-orm';
import type { EventType } from '../contract/events';
import { queryRows, type Executor } from '../db';
import { events, tenants, webhookSubscriptions } from '../db/schema';
import { newTimeOrderedId } from '../lib/ids';
import { storableJson } from '../lib/storable';
import { deliveryTargets, subscriptionJson, WEBHOOK_PLANS, type NewDelivery, type Subscription } from './deliveries';

export interface EmittedEvent {
  id: string;
  type: EventType;
  tenantId: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Writes the event and finds the tenant's active subscriptions in one statement (one round trip
 * on every event, including for the many tenants without webhooks); returns the event and the
 * deliveries it needs. Disabled subscriptions get nothing: events during downtime are not queued,
 * though they stay in the event log for replay. Below Pro, nothing is delivered, and
 * subscriptions a downgrade suspended get nothing until an upgrade restores them.
 */
/**
 * A statement's CTE noting, in the workflow event inbox, the events of `rows` (event_id,
 * tenant_id, event_type) that a waiting workflow step or an `on` trigger of their tenant listens
 * for (src/workflows/inbox.ts takes them from there). Two index probes per event, on indexes
 * holding only waiting steps and only workflows with a trigger.
 */
export const listenedCte = (rows: string) => `listened as (
      insert into workflow_event_inbox (event_id, tenant_id, type)
      select r.event_id, r.tenant_id, r.event_type from (${rows}) r
       where exists (select 1 from workflow_run_steps s where s.tenant_id = r.tenant_id and s.wait_event = r.event_type and s.status = 'waiting')
          or exists (select 1 from workflows w where w.tenant_id = r.tenant_id and w.trigger_event = r.event_type)
    )`;

export async function insertEvent(
  tx: Executor,
  tenantId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<{ event: EmittedEvent; deliveries: NewDelivery[] }> {
  const id = newTimeOrderedId('evt');
  const s = webhookSubscriptions;
  const serialized = JSON.stringify(data);
  const storable = storableJson(data, serialized);
  const stored = storable === data ? serialized : JSON.stringify(storable);
  const [row] = await queryRows<{ created_at: string | Date; subscriptions: Subscription[] | null }>(
    tx,
    sql`
    with inserted as (
      insert into ${events} (id, tenant_id, type, data) values (${id}, ${tenantId}, ${type}, ${stored}::jsonb)
      returning id as event_id, tenant_id, type as event_type, created_at
    ),
    ${sql.raw(listenedCte('select event_id, tenant_id, event_type from inserted'))}
    select inserted.created_at,
      (select json_agg(${sql.raw(subscriptionJson('webhook_subscriptions'))})
         from ${s} join ${tenants} on ${tenants.id} = ${s.tenantId}
        where ${s.tenantId} = ${tenantId} and ${s.kind} = 'push' and ${s.status} = 'active' and ${s.suspendedAt} is null and ${inArray(tenants.plan, [...WEBHOOK_PLANS])}) as subscriptions
    from inserted`,
  );
  const event = { id, type, tenantId, data, createdAt: new Date(row!.created_at) };
  // The filters read the data as recorded (and as replay reads it).
  const subscriptions = row!.subscriptions;
  return { event, deliveries: subscriptions ? deliveryTargets({ ...event, data: storable }, subscriptions) : [] };
}
