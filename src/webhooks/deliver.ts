import { and, eq, sql } from 'drizzle-orm';
import { events, webhookAttempts, webhookDeliveries, webhookSubscriptions } from '../db/schema';
import { decryptSecret } from '../lib/secrets';
import type { Services } from '../services';
import { deliveryHeaders, envelopeBody } from './envelope';
import { scheduleAttempts, type DeliveryJob } from './queue';
import { postToReceiver, type AttemptOutcome } from './send';

/** Spec §3: this many failed deliveries in a row disable the subscription. */
export const AUTO_DISABLE_AFTER = 10;

/**
 * Makes attempt `job.attempt` of a delivery (the worker loop's unit of work) and records it.
 * Idempotent: a job for an attempt already made, a finished delivery, a deleted subscription or
 * event does nothing. A disabled subscription cancels what is still pending (delivery stops).
 */
export async function attemptDelivery(svc: Services, job: DeliveryJob): Promise<void> {
  const [row] = await svc.db
    .select({
      delivery: webhookDeliveries,
      url: webhookSubscriptions.url,
      secretEncrypted: webhookSubscriptions.secretEncrypted,
      subscriptionStatus: webhookSubscriptions.status,
      eventData: events.data,
      eventAt: events.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, webhookDeliveries.subscriptionId))
    .leftJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, job.deliveryId));
  if (!row) return;
  const { delivery } = row;
  if (delivery.status !== 'pending' || delivery.attempts >= job.attempt) return;
  if (row.subscriptionStatus !== 'active' || !row.eventData || !row.eventAt) {
    await svc.db
      .update(webhookDeliveries)
      .set({ status: 'cancelled', completedAt: new Date(), nextAttemptAt: null })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending')));
    return;
  }
  const body = envelopeBody({ id: delivery.eventId, event: delivery.eventType, timestamp: row.eventAt.toISOString(), data: row.eventData });
  const secret = decryptSecret(svc.config.encryptionKey, row.secretEncrypted);
  const headers = deliveryHeaders(secret, body, { eventId: delivery.eventId, eventType: delivery.eventType, deliveryId: delivery.id, attempt: job.attempt });
  const outcome = await postToReceiver(svc, row.url, body, headers);
  const retryInMs = await recordAttempt(svc, delivery.id, delivery.subscriptionId, job.attempt, outcome);
  if (retryInMs !== undefined) svc.deliveryWorker.wakeIn(retryInMs);
}

/**
 * Records an attempt in one transaction: the attempt row; the delivery (succeeded, failed, or the
 * next attempt scheduled at WEBHOOK_RETRY_SCHEDULE_MS); on a finished delivery the subscription's
 * statistics and consecutive-failure count, disabling it at the tenth failed delivery in a row.
 * Returns the delay of the next attempt when one was scheduled.
 */
async function recordAttempt(svc: Services, deliveryId: string, subscriptionId: string, attempt: number, outcome: AttemptOutcome): Promise<number | undefined> {
  const schedule = svc.config.webhooks.retryScheduleMs;
  const retryDelayMs = outcome.success ? undefined : schedule[attempt];
  const finished = outcome.success || retryDelayMs === undefined;
  const now = new Date();
  return svc.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(webhookDeliveries)
      .set({
        attempts: attempt,
        status: outcome.success ? 'succeeded' : finished ? 'failed' : 'pending',
        completedAt: finished ? now : null,
        nextAttemptAt: finished ? null : new Date(now.getTime() + retryDelayMs!),
      })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, attempt - 1)))
      .returning({ id: webhookDeliveries.id });
    if (!updated) return undefined; // another worker recorded this attempt first
    await tx.insert(webhookAttempts).values({
      deliveryId,
      attempt,
      statusCode: outcome.statusCode,
      success: outcome.success,
      latencyMs: outcome.latencyMs,
      error: outcome.error,
      responseBody: outcome.responseBody,
      createdAt: now,
    });
    if (!finished) await scheduleAttempts(svc, tx, [{ deliveryId, attempt: attempt + 1, delayMs: retryDelayMs! }]);
    const stats = subscriptionStatsUpdate(outcome, finished);
    if (Object.keys(stats).length > 0) {
      await tx.update(webhookSubscriptions).set(stats).where(eq(webhookSubscriptions.id, subscriptionId));
    }
    return retryDelayMs;
  });
}

/** Average latency counts attempts the receiver answered (refused connections would skew it). */
function subscriptionStatsUpdate(outcome: AttemptOutcome, finished: boolean) {
  const s = webhookSubscriptions;
  const stats =
    outcome.statusCode !== null
      ? { attemptsTimed: sql`${s.attemptsTimed} + 1`, attemptLatencyTotalMs: sql`${s.attemptLatencyTotalMs} + ${outcome.latencyMs}` }
      : {};
  if (!finished) return stats;
  if (outcome.success) {
    return { ...stats, deliveriesSucceeded: sql`${s.deliveriesSucceeded} + 1`, consecutiveFailures: 0 };
  }
  const failures = sql`${s.consecutiveFailures} + 1`;
  return {
    ...stats,
    deliveriesFailed: sql`${s.deliveriesFailed} + 1`,
    consecutiveFailures: failures,
    status: sql`case when ${failures} >= ${AUTO_DISABLE_AFTER} then 'disabled' else ${s.status} end`,
    disabledAt: sql`case when ${failures} >= ${AUTO_DISABLE_AFTER} and ${s.status} = 'active' then now() else ${s.disabledAt} end`,
  };
}
