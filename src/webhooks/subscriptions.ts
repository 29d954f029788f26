import { assertPlanAllowsLocked } from '../tenants/lock';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import {
  webhookAttempts,
  webhookDeliveries,
  webhookStats,
  webhookSubscriptions,
  type WebhookAttemptRow,
  type WebhookSubscriptionRow,
} from '../db/schema';
import { newId } from '../lib/ids';
import { decodeCursor, toPage, beforeCursor } from '../lib/pagination';
import { encryptSecret, generateWebhookSecret } from '../lib/secrets';
import { conflict, invalidRequest, notFound } from '../lib/errors';
import type { Executor } from '../db';
import type { Services } from '../services';
import { PLANS } from '../tenants/plans';
import { checkFilter } from './filter';
import { presentDelivery, presentLag, presentStats, presentWebhook } from './present';
import { checkReceiverUrl } from './receiver-url';
import { successRates } from './success-rate';
import type { CreateWebhookInput, ListWebhooksInput, UpdateWebhookInput } from './schema';

/** Deliveries shown in the detail view. */
export const HISTORY_SIZE = 100;

const normaliseEvents = (events: string[]) => (events.includes('*') ? ['*'] : [...new Set(events)]);

/** A secret that replaces the current one at once: no rotated-out secret signs beside it any more. */
export function secretColumns(svc: Services, secret: string) {
  return {
    secretEncrypted: encryptSecret(svc.config.encryptionKey, secret),
    secretLast4: secret.slice(-4),
    previousSecretEncrypted: null,
    previousSecretExpiresAt: null,
  };
}

/**
 * The tenant's subscription, or 404 (another tenant's id is indistinguishable from none);
 * `tenantId` null: any tenant's (an operator's action).
 */
export async function findSubscription(svc: Services, tenantId: string | null, id: string, db: Executor = svc.db) {
  const [row] = await db
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), tenantId === null ? undefined : eq(webhookSubscriptions.tenantId, tenantId)));
  if (!row) throw notFound('webhook');
  return row;
}

/** POST /api/v1/webhooks: 201 with the secret, shown this once. */
export async function createWebhook(svc: Services, principal: Principal, input: CreateWebhookInput) {
  if (input.kind === 'poll' && input.url !== undefined)
    throw invalidRequest('A poll subscription has no URL: its events are read with GET /api/v1/webhooks/{id}/messages.', [
      { path: 'url', message: 'Not allowed with kind "poll"' },
    ]);
  if (input.kind === 'push' && input.url === undefined)
    throw invalidRequest('`url` is required (or create a subscription of kind "poll").', [{ path: 'url', message: 'Required' }]);
  const url = input.url === undefined ? null : await checkReceiverUrl(svc, input.url);
  const filter = checkFilter(input.filter) ?? null;
  const secret = input.secret ?? generateWebhookSecret();
  const row = await svc.db.transaction(async (tx) => {
    const plan = await assertPlanAllowsLocked(tx, principal.tenantId, 'webhooks');
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.tenantId, principal.tenantId));
    const limit = PLANS[plan].webhookSubscriptions;
    if (n >= limit) throw conflict(`A tenant can have at most ${limit} webhook subscriptions.`);
    const [inserted] = await tx
      .insert(webhookSubscriptions)
      .values({
        id: newId('wh'),
        tenantId: principal.tenantId,
        kind: input.kind,
        url,
        events: normaliseEvents(input.events),
        headers: input.headers ?? {},
        failureAlertThreshold: input.failure_alert_threshold,
        filter,
        rateLimitPerSecond: input.rate_limit_per_second ?? null,
        ...secretColumns(svc, secret),
      })
      .returning();
    await recordAudit(tx, principal.tenantId, {
      action: 'webhook.created',
      target: { type: 'webhook', id: inserted!.id },
      changes: webhookChanges(inserted!),
    });
    return inserted!;
  });
  return presentWebhook(row, secret);
}

/** GET /api/v1/webhooks: newest first, each with its success rate. */
export async function listWebhooks(svc: Services, principal: Principal, input: ListWebhooksInput) {
  const cursor = decodeCursor(input.cursor);
  const s = webhookSubscriptions;
  const rows = await svc.db
    .select()
    .from(s)
    .where(and(eq(s.tenantId, principal.tenantId), beforeCursor(s.createdAt, s.id, cursor)))
    .orderBy(desc(s.createdAt), desc(s.id))
    .limit(input.limit + 1);
  const rates = await successRates(
    svc.db,
    rows.slice(0, input.limit).map((r) => r.id),
  );
  return toPage(rows, input.limit, (row) => ({ ...presentWebhook(row), success_rate: rates.get(row.id) ?? null }));
}

/**
 * GET /api/v1/webhooks/{id}: the subscription, its statistics and the latest 100 deliveries,
 * read in one snapshot (a repeatable-read, read-only transaction): the delivery worker commits
 * the statistics and the consecutive-failure count together, and the view never shows one
 * without the other.
 */
export async function getWebhook(svc: Services, principal: Principal, id: string) {
  return svc.db.transaction((tx) => readWebhook(svc, tx, principal.tenantId, id), {
    isolationLevel: 'repeatable read',
    accessMode: 'read only',
  });
}

async function readWebhook(svc: Services, tx: Executor, tenantId: string, id: string) {
  const row = await findSubscription(svc, tenantId, id, tx);
  const d = webhookDeliveries;
  const st = webhookStats;
  const deliveries = await tx.select().from(d).where(eq(d.subscriptionId, id)).orderBy(desc(d.createdAt), desc(d.id)).limit(HISTORY_SIZE);
  const [pending] = await tx
    .select({ n: count(), oldest: sql<string | Date | null>`min(${d.createdAt})` })
    .from(d)
    .where(and(eq(d.subscriptionId, id), eq(d.status, 'pending'), sql`${d.kind} <> 'test'`));
  // Messages and attempts, as distinct from deliveries: a replayed event is one message with two deliveries.
  const [history] = await tx
    .select({
      messages: sql<number>`count(distinct ${d.eventId})::float8`,
      attempts: sql<number>`coalesce(sum(${d.attempts}), 0)::float8`,
    })
    .from(d)
    .where(and(eq(d.subscriptionId, id), sql`${d.kind} <> 'test'`));
  const [totals] = await tx
    .select({
      succeeded: sql<number>`coalesce(sum(${st.deliveriesSucceeded}), 0)::float8`,
      failed: sql<number>`coalesce(sum(${st.deliveriesFailed}), 0)::float8`,
      attemptsTimed: sql<number>`coalesce(sum(${st.attemptsTimed}), 0)::float8`,
      latencyTotalMs: sql<number>`coalesce(sum(${st.attemptLatencyTotalMs}), 0)::float8`,
    })
    .from(st)
    .where(eq(st.subscriptionId, id));
  const attempts = deliveries.length
    ? await tx
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.deliveryId,
            deliveries.map((x) => x.id),
          ),
        )
        .orderBy(webhookAttempts.deliveryId, webhookAttempts.attempt)
    : [];
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
  return {
    ...presentWebhook(row),
    stats: {
      ...presentStats(row, totals!, pending?.n ?? 0, {
        messages: Number(history?.messages ?? 0),
        attempts: Number(history?.attempts ?? 0),
      }),
      ...presentLag(pending?.oldest ? new Date(pending.oldest) : null),
    },
    deliveries: deliveries.map((x) => presentDelivery(x, byDelivery.get(x.id) ?? [])),
  };
}

/**
 * PUT /api/v1/webhooks/{id}: any of url, events, secret, headers. A new secret replaces the current
 * one at once (it signs the next attempt; a rotation's overlap ends); `headers` replaces the set.
 */
export async function updateWebhook(svc: Services, principal: Principal, input: UpdateWebhookInput) {
  if (
    input.url === undefined &&
    input.events === undefined &&
    input.secret === undefined &&
    input.headers === undefined &&
    input.failure_alert_threshold === undefined &&
    input.filter === undefined &&
    input.rate_limit_per_second === undefined
  ) {
    throw invalidRequest('Give at least one of url, events, secret, headers, filter, rate_limit_per_second, failure_alert_threshold.');
  }
  const current = await findSubscription(svc, principal.tenantId, input.id);
  if (current.kind === 'poll' && input.url !== undefined)
    throw invalidRequest('A poll subscription has no URL.', [{ path: 'url', message: 'Not allowed with kind "poll"' }]);
  const url = input.url === undefined ? undefined : await checkReceiverUrl(svc, input.url);
  const row = await svc.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(webhookSubscriptions)
      .set({
        url,
        events: input.events ? normaliseEvents(input.events) : undefined,
        ...(input.secret ? secretColumns(svc, input.secret) : {}),
        headers: input.headers,
        failureAlertThreshold: input.failure_alert_threshold,
        // A threshold raised above the current run's failures ends its failing state (it alerts again at the new one).
        failingSince:
          input.failure_alert_threshold === undefined
            ? undefined
            : sql`case when ${webhookSubscriptions.consecutiveFailures} < ${input.failure_alert_threshold} then null else ${webhookSubscriptions.failingSince} end`,
        filter: checkFilter(input.filter),
        rateLimitPerSecond: input.rate_limit_per_second,
        updatedAt: new Date(),
      })
      .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.tenantId, principal.tenantId)))
      .returning();
    if (!updated) throw notFound('webhook');
    const { id: _id, ...given } = input;
    await recordAudit(tx, principal.tenantId, {
      action: 'webhook.updated',
      target: { type: 'webhook', id: updated.id },
      changes: {
        fields: Object.keys(given).filter((f) => given[f as keyof typeof given] !== undefined),
        ...webhookChanges(updated),
      },
    });
    return updated;
  });
  return presentWebhook(row);
}

/**
 * DELETE /api/v1/webhooks/{id}: pending deliveries go with it. Locks in the delivery recorder's
 * order (src/webhooks/deliver.ts: deliveries, then the subscription's statistics and row): its
 * deliveries first, then the subscription, whose delete cascades to them. Deleting the
 * subscription row first (the cascade's own order) deadlocked with a recorder writing this
 * subscription's attempts on PostgreSQL: a 500 here, or a whole group of other tenants' attempts
 * unrecorded and sent again.
 */
export async function deleteWebhook(svc: Services, principal: Principal, id: string) {
  const row = await svc.db.transaction(async (tx) => {
    const d = webhookDeliveries;
    const owned = tx
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.tenantId, principal.tenantId)));
    await tx.select({ id: d.id }).from(d).where(inArray(d.subscriptionId, owned)).orderBy(d.id).for('update');
    const [deleted] = await tx
      .delete(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.tenantId, principal.tenantId)))
      .returning({ id: webhookSubscriptions.id, url: webhookSubscriptions.url });
    if (deleted)
      await recordAudit(tx, principal.tenantId, {
        action: 'webhook.deleted',
        target: { type: 'webhook', id: deleted.id },
        changes: { url: deleted.url },
      });
    return deleted;
  });
  if (!row) throw notFound('webhook');
  return { id: row.id, deleted: true as const };
}

/**
 * POST /api/v1/webhooks/{id}/enable (tenant) and /api/v1/admin/webhooks/{id}/enable (operator):
 * `active` again with the failure count reset. Enabling an active subscription changes nothing.
 * Events recorded while it was disabled are not sent (docs/webhooks.md); replay sends them on purpose.
 */
export async function enableWebhook(svc: Services, tenantId: string | null, id: string) {
  const s = webhookSubscriptions;
  const row = await svc.db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: s.status })
      .from(s)
      .where(and(eq(s.id, id), tenantId ? eq(s.tenantId, tenantId) : undefined))
      .for('update');
    const [updated] = await tx
      .update(s)
      .set({
        status: 'active',
        consecutiveFailures: 0,
        disabledAt: null,
        failingSince: null,
        updatedAt: sql`case when ${s.status} = 'active' then ${s.updatedAt} else now() end`,
      })
      .where(and(eq(s.id, id), tenantId ? eq(s.tenantId, tenantId) : undefined))
      .returning();
    if (!updated) throw notFound('webhook');
    if (before && before.status !== 'active')
      await recordAudit(tx, updated.tenantId, {
        action: 'webhook.enabled',
        target: { type: 'webhook', id: updated.id },
        changes: { status: { from: before.status, to: 'active' } },
      });
    return updated;
  });
  return presentWebhook(row);
}

/** What the audit log keeps of a subscription: never its secret, and of its headers only their names (their values may be credentials). */
export function webhookChanges(row: WebhookSubscriptionRow): Record<string, unknown> {
  return {
    kind: row.kind,
    url: row.url,
    events: row.events,
    header_names: Object.keys(row.headers ?? {}),
    filter: row.filter,
    rate_limit_per_second: row.rateLimitPerSecond,
    failure_alert_threshold: row.failureAlertThreshold,
  };
}
