import { and, desc, eq, isNotNull, or } from 'drizzle-orm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { webhookSubscriptions } from '../db/schema';
import type { Services } from '../services';

export const webhookHealthInput = z.strictObject({});

const troubled = z.object({
  id: z.string(),
  url: z.string().nullable(),
  status: z.enum(['active', 'disabled']),
  consecutive_failures: z.number().int(),
  failure_alert_threshold: z.number().int(),
  failing_since: z.string().nullable().describe('When the current run of failures reached the threshold'),
  disabled_at: z.string().nullable(),
});

export const webhookHealthView = z
  .object({
    disabled: z.number().int().describe('Subscriptions disabled after too many failed deliveries in a row'),
    failing: z.number().int().describe('Active subscriptions whose failed deliveries in a row reached their `failure_alert_threshold`'),
    subscriptions: z.array(troubled).describe('Those subscriptions, disabled first, then the longest failing'),
  })
  .meta({ id: 'WebhookHealth' });

/**
 * GET /api/v1/webhooks/health: the tenant's subscriptions that need attention, disabled or
 * failing, for the dashboard's banner and navigation badge. One indexed query on the tenant's
 * subscriptions (at most 50); answered on every plan (a plan without webhooks has none to report).
 */
export async function getWebhookHealth(svc: Services, principal: Principal) {
  const s = webhookSubscriptions;
  const rows = await svc.db
    .select({
      id: s.id,
      url: s.url,
      status: s.status,
      consecutiveFailures: s.consecutiveFailures,
      threshold: s.failureAlertThreshold,
      failingSince: s.failingSince,
      disabledAt: s.disabledAt,
    })
    .from(s)
    .where(and(eq(s.tenantId, principal.tenantId), or(eq(s.status, 'disabled'), isNotNull(s.failingSince))))
    .orderBy(desc(s.status), s.disabledAt, s.failingSince, s.id);
  return {
    disabled: rows.filter((r) => r.status === 'disabled').length,
    failing: rows.filter((r) => r.status === 'active').length,
    subscriptions: rows.map((r) => ({
      id: r.id,
      url: r.url,
      status: r.status,
      consecutive_failures: r.consecutiveFailures,
      failure_alert_threshold: r.threshold,
      failing_since: r.failingSince?.toISOString() ?? null,
      disabled_at: r.disabledAt?.toISOString() ?? null,
    })),
  };
}
