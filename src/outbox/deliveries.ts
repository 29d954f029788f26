import type { PgBoss } from 'pg-boss';
import type { Executor } from '../db';
import { jobsDb } from '../db/job-tx';
import { webhookDeliveries, type DeliveryKind } from '../db/schema';
import { matchesFilter } from '../lib/event-filter';
import { newTimeOrderedId } from '../lib/ids';
import { planAllows, PLAN_NAMES } from '../contract/plans';
import type { OutboxServices } from './context';

/** Plans that have webhooks (`PLAN_FEATURES.webhooks` of the contract). */
export const WEBHOOK_PLANS = PLAN_NAMES.filter((plan) => planAllows(plan, 'webhooks'));

/** The pg-boss queue of delivery attempts: one job per attempt, `startAfter` its scheduled time. */
export const DELIVERY_QUEUE = 'webhook-delivery';

export interface DeliveryJob {
  deliveryId: string;
  /** 1-based attempt number this job makes. */
  attempt: number;
  /** The delivery's last attempt whatever its outcome: no retry follows it (a resend, src/webhooks/resend.ts). */
  final?: boolean;
  /** A paced subscription's attempt put back in the queue: the turn it holds (epoch ms; src/webhooks/pace.ts). */
  slotAt?: number;
}

/** An attempt to schedule: its job's data, when, and its subscription (the job's pg-boss group, which the worker's fetches can skip). */
export interface ScheduledAttempt extends DeliveryJob {
  delayMs: number;
  subscriptionId?: string;
}

export interface NewDelivery {
  subscriptionId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
}

/** An active subscription of a tenant on a webhook plan, as the event statements answer it (`filter` only when it has one). */
export interface Subscription {
  id: string;
  events: string[];
  filter?: string;
}

/**
 * The JSON of a subscription (the row `s` names) in the event statements: `filter` only when set,
 * so a subscription without one costs the statement and deliveryTargets nothing more than before.
 */
export function subscriptionJson(s: string): string {
  return `case when ${s}.filter is null then json_build_object('id', ${s}.id, 'events', ${s}.events)
    else json_build_object('id', ${s}.id, 'events', ${s}.events, 'filter', ${s}.filter) end`;
}

export function subscribedTo(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/** True for a tenant without an active push subscription (poll subscriptions get no deliveries) on a plan that `plans` (a JSON array parameter) lists. */
export function noSubscription(tenant: string, plans: string): string {
  return `not exists (
    select 1 from webhook_subscriptions s join tenants t on t.id = s.tenant_id
    where s.tenant_id = ${tenant} and s.kind = 'push' and s.status = 'active' and s.suspended_at is null
      and t.plan in (select jsonb_array_elements_text(${plans}::jsonb)))`;
}

/** `subscribed`: the active push subscriptions (poll subscriptions get no deliveries) of the tenants `tenants` selects, on plans `plans` (a JSON array) lists. */
export function subscribedCte(tenants: string, plans: string): string {
  return `subscribed as (
  select s.tenant_id, json_agg(${subscriptionJson('s')}) as subscriptions
  from webhook_subscriptions s join tenants t on t.id = s.tenant_id
  where s.tenant_id in (${tenants}) and s.kind = 'push' and s.status = 'active' and s.suspended_at is null
    and t.plan in (select jsonb_array_elements_text(${plans}::jsonb))
  group by s.tenant_id
)`;
}

/**
 * The deliveries an event needs: one per subscription of its tenant that takes its type and
 * whose filter (if any; compiled once per text) matches it, so a filtered-out event creates no
 * delivery at all.
 */
export function deliveryTargets(
  event: { id: string; tenantId: string; type: string; data: unknown },
  subscriptions: Subscription[] | null,
  into: NewDelivery[] = [],
): NewDelivery[] {
  for (const sub of subscriptions ?? []) {
    if (subscribedTo(sub.events, event.type) && (sub.filter === undefined || matchesFilter(sub, event)))
      into.push({ subscriptionId: sub.id, tenantId: event.tenantId, eventId: event.id, eventType: event.type });
  }
  return into;
}

/** Inserts pending deliveries and schedules their first attempts, in `tx`. Returns how many. */
export async function createDeliveries(
  svc: Pick<OutboxServices, 'boss' | 'config'>,
  tx: Executor,
  deliveries: NewDelivery[],
  kind: DeliveryKind,
): Promise<number> {
  if (deliveries.length === 0) return 0;
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
  return rows.length;
}

/**
 * Schedules attempts inside `tx`, so a delivery row and its next attempt commit together.
 * (pg-boss answers null for an unknown queue: that is a bug, so it throws.)
 */
export async function scheduleAttempts(svc: { boss: PgBoss }, tx: Executor, jobs: ScheduledAttempt[]): Promise<void> {
  if (jobs.length === 0) return;
  const now = Date.now();
  const db = jobsDb(tx);
  for (let i = 0; i < jobs.length; i += 1000) {
    const ids = await svc.boss.insert(
      DELIVERY_QUEUE,
      jobs.slice(i, i + 1000).map((j) => ({
        data: {
          deliveryId: j.deliveryId,
          attempt: j.attempt,
          ...(j.final ? { final: true } : {}),
          ...(j.slotAt !== undefined ? { slotAt: j.slotAt } : {}),
        },
        ...(j.delayMs > 0 ? { startAfter: new Date(now + j.delayMs) } : {}),
        ...(j.subscriptionId ? { group: { id: j.subscriptionId } } : {}),
      })),
      { db, returnId: true },
    );
    if (ids?.length !== Math.min(1000, jobs.length - i)) throw new Error(`pg-boss did not create jobs on queue ${DELIVERY_QUEUE}`);
  }
}
