/**
 * Operators' views across tenants (the spec's admin use case: re-enable disabled webhooks):
 * every disabled subscription, and the deliveries that failed for good. Each row names its tenant.
 */
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { tenants, webhookAttempts, webhookDeliveries, webhookSubscriptions, type WebhookAttemptRow } from '../db/schema';
import { beforeCursor, decodeCursor, toPage } from '../lib/pagination';
import type { Services } from '../services';
import { presentDelivery, presentWebhook } from './present';

interface PageInput {
  limit: number;
  cursor?: string;
}

const owner = { tenantId: tenants.id, agentName: tenants.agentName, ownerEmail: tenants.ownerEmail };

const presentOwner = (o: { tenantId: string; agentName: string; ownerEmail: string }) => ({
  tenant_id: o.tenantId,
  agent_name: o.agentName,
  owner_email: o.ownerEmail,
});

/** GET /api/v1/admin/webhooks/disabled: disabled subscriptions of every tenant, most recently disabled first. */
export async function listDisabledWebhooks(svc: Services, input: PageInput) {
  const s = webhookSubscriptions;
  const rows = await svc.db
    .select({ sub: s, owner })
    .from(s)
    .innerJoin(tenants, eq(tenants.id, s.tenantId))
    .where(and(eq(s.status, 'disabled'), beforeCursor(s.disabledAt, s.id, decodeCursor(input.cursor))))
    .orderBy(desc(s.disabledAt), desc(s.id))
    .limit(input.limit + 1);
  // The keyset is (disabled_at, id): a disabled subscription always has disabled_at.
  const keyed = rows.map((r) => ({ ...r, id: r.sub.id, createdAt: r.sub.disabledAt ?? r.sub.updatedAt }));
  return toPage(keyed, input.limit, (r) => ({ ...presentWebhook(r.sub), ...presentOwner(r.owner) }));
}

/**
 * GET /api/v1/admin/webhooks/failed-deliveries: deliveries of every tenant that failed for good,
 * newest first, with their attempts. `tenantId` narrows them to one tenant (the operator's tenant
 * detail page).
 */
export async function listFailedDeliveries(svc: Services, input: PageInput & { tenantId?: string }) {
  const d = webhookDeliveries;
  const rows = await svc.db
    .select({ delivery: d, url: webhookSubscriptions.url, owner })
    .from(d)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, d.subscriptionId))
    .innerJoin(tenants, eq(tenants.id, d.tenantId))
    .where(
      and(
        eq(d.status, 'failed'),
        input.tenantId ? eq(d.tenantId, input.tenantId) : undefined,
        beforeCursor(d.createdAt, d.id, decodeCursor(input.cursor)),
      ),
    )
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(input.limit + 1);
  const ids = rows.slice(0, input.limit).map((r) => r.delivery.id);
  const attempts = ids.length
    ? await svc.db
        .select()
        .from(webhookAttempts)
        .where(inArray(webhookAttempts.deliveryId, ids))
        .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt))
    : [];
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
  const keyed = rows.map((r) => ({ ...r, id: r.delivery.id, createdAt: r.delivery.createdAt }));
  return toPage(keyed, input.limit, (r) => ({
    ...presentDelivery(r.delivery, byDelivery.get(r.delivery.id) ?? []),
    subscription_id: r.delivery.subscriptionId,
    url: r.url,
    ...presentOwner(r.owner),
  }));
}
