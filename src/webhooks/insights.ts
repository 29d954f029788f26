import { and, eq, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { queryRows } from '../db';
import { events, webhookAttempts, webhookDeliveries } from '../db/schema';
import { notFound } from '../lib/errors';
import type { Services } from '../services';
import { envelopeBody } from './envelope';
import { presentDelivery } from './present';
import type { WebhookSeriesInput } from './schema';
import { findSubscription } from './subscriptions';
import { successRate } from './success-rate';

const HOUR_S = 3_600;
const DAY_S = 86_400;

/** Each range of the series: its bucket size (UTC hours or days) and how many buckets. */
const RANGES = {
  '24h': { bucket: 'hour', seconds: HOUR_S, buckets: 24 },
  '7d': { bucket: 'day', seconds: DAY_S, buckets: 7 },
  '30d': { bucket: 'day', seconds: DAY_S, buckets: 30 },
} as const;

interface DeliveryBucket {
  b: number;
  succeeded: number;
  failed: number;
}

interface LatencyBucket {
  b: number;
  attempts: number;
  avg: number | null;
  p95: number | null;
}

/**
 * GET /api/v1/webhooks/{id}/stats: deliveries and latency over time, in UTC hours (24h) or days
 * (7d, 30d), oldest first, every bucket present (zeros where nothing happened). A delivery counts
 * in the bucket it finished in, succeeded or failed, as the lifetime `stats` count it; latency is
 * over the attempts the receiver answered, as `avg_latency_ms` is. Test sends are left out, as
 * they are from `stats`. Reads the history, so nothing older than its 30-day retention.
 */
export async function getWebhookSeries(svc: Services, principal: Principal, input: WebhookSeriesInput) {
  await findSubscription(svc, principal.tenantId, input.id);
  const range = RANGES[input.range];
  const size = range.seconds;
  const lastBucket = Math.floor(Date.now() / 1000 / size);
  const firstBucket = lastBucket - range.buckets + 1;
  const from = new Date(firstBucket * size * 1000);
  const d = webhookDeliveries;
  const [deliveries, latencies] = await Promise.all([
    queryRows<DeliveryBucket>(
      svc.db,
      sql`select floor(extract(epoch from ${d.completedAt}) / ${size})::float8 as b,
                 (count(*) filter (where ${d.status} = 'succeeded'))::float8 as succeeded,
                 (count(*) filter (where ${d.status} = 'failed'))::float8 as failed
          from ${d}
          where ${d.subscriptionId} = ${input.id} and ${d.tenantId} = ${principal.tenantId} and ${d.kind} <> 'test'
            and ${d.status} in ('succeeded', 'failed') and ${d.completedAt} >= ${from.toISOString()}::timestamptz
          group by 1`,
    ),
    queryRows<LatencyBucket>(
      svc.db,
      sql`select floor(extract(epoch from a.created_at) / ${size})::float8 as b,
                 count(*)::float8 as attempts,
                 avg(a.latency_ms)::float8 as avg,
                 (percentile_cont(0.95) within group (order by a.latency_ms))::float8 as p95
          from ${webhookAttempts} a join ${d} on ${d.id} = a.delivery_id
          where ${d.subscriptionId} = ${input.id} and ${d.tenantId} = ${principal.tenantId} and ${d.kind} <> 'test'
            and a.status_code is not null and a.created_at >= ${from.toISOString()}::timestamptz
          group by 1`,
    ),
  ]);
  const byBucket = new Map(deliveries.map((r) => [Number(r.b), r]));
  const latencyByBucket = new Map(latencies.map((r) => [Number(r.b), r]));
  const points = Array.from({ length: range.buckets }, (_, i) => {
    const b = firstBucket + i;
    const done = byBucket.get(b);
    const timed = latencyByBucket.get(b);
    const succeeded = Number(done?.succeeded ?? 0);
    const failed = Number(done?.failed ?? 0);
    return {
      start: new Date(b * size * 1000).toISOString(),
      succeeded_deliveries: succeeded,
      failed_deliveries: failed,
      success_rate: successRate(succeeded, failed),
      answered_attempts: Number(timed?.attempts ?? 0),
      avg_latency_ms: timed?.avg == null ? null : Math.round(Number(timed.avg)),
      p95_latency_ms: timed?.p95 == null ? null : Math.round(Number(timed.p95)),
    };
  });
  return { id: input.id, range: input.range, bucket: range.bucket, from: from.toISOString(), points };
}

/**
 * GET /api/v1/webhooks/{id}/deliveries/{delivery_id}: one delivery with its attempts and the
 * envelope it sends (the exact JSON of the body, rebuilt from the stored event as every attempt
 * rebuilds it). `payload` is null for test sends (not stored) and once the event has passed
 * retention.
 */
export async function getDelivery(svc: Services, principal: Principal, webhookId: string, deliveryId: string) {
  await findSubscription(svc, principal.tenantId, webhookId);
  const d = webhookDeliveries;
  const [row] = await svc.db
    .select({ delivery: d, eventData: events.data, eventAt: events.createdAt })
    .from(d)
    .leftJoin(events, eq(events.id, d.eventId))
    .where(and(eq(d.id, deliveryId), eq(d.subscriptionId, webhookId), eq(d.tenantId, principal.tenantId)));
  if (!row) throw notFound('delivery');
  const attempts = await svc.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId))
    .orderBy(webhookAttempts.attempt);
  const { delivery, eventData, eventAt } = row;
  const payload =
    delivery.kind !== 'test' && eventData && eventAt
      ? (JSON.parse(
          envelopeBody(
            { id: delivery.eventId, event: delivery.eventType, timestamp: eventAt.toISOString(), data: eventData },
            svc.config.publicBaseUrl,
          ),
        ) as Record<string, unknown>)
      : null;
  return { ...presentDelivery(delivery, attempts), payload };
}
