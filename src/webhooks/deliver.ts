import { and, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { events, webhookAttempts, webhookDeliveries, webhookStats, webhookSubscriptions } from '../db/schema';
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

/** Rows each subscription's statistics are spread over (see webhookStats). */
const STATS_SHARDS = 8;

/**
 * Records an attempt in one transaction: the attempt row; the delivery (succeeded, failed, or the
 * next attempt scheduled at WEBHOOK_RETRY_SCHEDULE_MS); the statistics; on a finished delivery
 * the consecutive-failure count, disabling the subscription at the tenth failed delivery in a
 * row. A success touches the subscription row only when it resets a failure count, so a healthy
 * busy receiver's attempts do not queue on one row lock. Returns the next attempt's delay.
 */
async function recordAttempt(svc: Services, deliveryId: string, subscriptionId: string, attempt: number, outcome: AttemptOutcome): Promise<number | undefined> {
  const schedule = svc.config.webhooks.retryScheduleMs;
  const retryDelayMs = outcome.success ? undefined : schedule[attempt];
  const finished = outcome.success || retryDelayMs === undefined;
  const now = new Date();
  return svc.db.transaction(async (tx) => {
    // Delivery is at least once: losing this record in a database crash means one resend, so the
    // commit need not wait for the disk (PostgreSQL; PGlite runs without fsync anyway).
    if (svc.database.kind === 'postgres') await tx.execute(sql`set local synchronous_commit = off`);
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
    await addToStats(tx, subscriptionId, outcome, finished);
    if (finished) await countConsecutiveFailures(tx, subscriptionId, outcome.success);
    return retryDelayMs;
  });
}

/** Average latency counts attempts the receiver answered (refused connections would skew it). */
async function addToStats(tx: Executor, subscriptionId: string, outcome: AttemptOutcome, finished: boolean) {
  const timed = outcome.statusCode !== null;
  if (!timed && !finished) return;
  const delta = {
    deliveriesSucceeded: finished && outcome.success ? 1 : 0,
    deliveriesFailed: finished && !outcome.success ? 1 : 0,
    attemptsTimed: timed ? 1 : 0,
    attemptLatencyTotalMs: timed ? outcome.latencyMs : 0,
  };
  const st = webhookStats;
  await tx
    .insert(st)
    .values({ subscriptionId, shard: Math.floor(Math.random() * STATS_SHARDS), ...delta })
    .onConflictDoUpdate({
      target: [st.subscriptionId, st.shard],
      set: {
        deliveriesSucceeded: sql`${st.deliveriesSucceeded} + excluded.deliveries_succeeded`,
        deliveriesFailed: sql`${st.deliveriesFailed} + excluded.deliveries_failed`,
        attemptsTimed: sql`${st.attemptsTimed} + excluded.attempts_timed`,
        attemptLatencyTotalMs: sql`${st.attemptLatencyTotalMs} + excluded.attempt_latency_total_ms`,
      },
    });
}

async function countConsecutiveFailures(tx: Executor, subscriptionId: string, success: boolean) {
  const s = webhookSubscriptions;
  if (success) {
    await tx.update(s).set({ consecutiveFailures: 0 }).where(and(eq(s.id, subscriptionId), ne(s.consecutiveFailures, 0)));
    return;
  }
  const failures = sql`${s.consecutiveFailures} + 1`;
  await tx
    .update(s)
    .set({
      consecutiveFailures: failures,
      status: sql`case when ${failures} >= ${AUTO_DISABLE_AFTER} then 'disabled' else ${s.status} end`,
      disabledAt: sql`case when ${failures} >= ${AUTO_DISABLE_AFTER} and ${s.status} = 'active' then now() else ${s.disabledAt} end`,
    })
    .where(eq(s.id, subscriptionId));
}
