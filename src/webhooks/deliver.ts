import { and, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db';
import { statementRows } from '../db/statements';
import { events, webhookAttempts, webhookDeliveries, webhookStats, webhookSubscriptions } from '../db/schema';
import { jobsDb } from '../db/job-tx';
import { SecretDecryptionError } from '../lib/secrets';
import { DELIVERY_QUEUE, scheduleAttempts, unitOfWork, type DeliveryJob } from '../outbox';
import type { Services } from '../services';
import { countConsecutiveFailures } from './alerts';
import { deliveryHeaders, envelopeBody } from './envelope';
import type { AttemptOutcome } from './send';
import { clearExpiredPreviousSecrets, signingSecrets, type SigningSecrets } from './signing';

/** Rows each subscription's statistics are spread over (see webhookStats). */
const STATS_SHARDS = 8;

/** A pg-boss job of the delivery queue, as fetched. */
export interface FetchedJob {
  id: string;
  data: DeliveryJob;
}

/** An attempt ready to send: the exact bytes, signed for this attempt. */
export interface PreparedAttempt {
  jobId: string;
  deliveryId: string;
  subscriptionId: string;
  attempt: number;
  /** No retry follows this attempt (a resend's one attempt). */
  final?: boolean;
  url: string;
  body: string;
  headers: Record<string, string>;
  /** The subscription's `rate_limit_per_second`, when it has one: the attempt waits for its turn (src/webhooks/pace.ts). */
  pace?: AttemptPace;
}

export interface AttemptPace {
  perSecond: number;
  /** The turn this attempt already holds (a job put back in the queue to wait for it). */
  slotAt?: number;
  /** Its event's place in the event log (`events.seq`): turns are taken in event order. */
  order: number;
}

export interface MadeAttempt {
  prepared: PreparedAttempt;
  outcome: AttemptOutcome;
}

/**
 * Loads what a batch of fetched jobs needs in one query. A job with nothing to do (its attempt
 * already made, its delivery finished or deleted with the subscription) is returned in `idle`;
 * a delivery whose subscription was disabled or suspended (a downgrade), or whose event is gone, is cancelled (delivery
 * stops; docs/webhooks.md) and its job is idle too. One whose secret cannot be decrypted (ENCRYPTION_KEY
 * changed) is `unsendable`: a failed attempt without a request.
 */
export async function prepareAttempts(
  svc: Services,
  jobs: FetchedJob[],
): Promise<{ ready: PreparedAttempt[]; idle: string[]; unsendable: MadeAttempt[] }> {
  const rows = await svc.db
    .select({
      delivery: webhookDeliveries,
      url: webhookSubscriptions.url,
      secretEncrypted: webhookSubscriptions.secretEncrypted,
      previousSecretEncrypted: webhookSubscriptions.previousSecretEncrypted,
      previousSecretExpiresAt: webhookSubscriptions.previousSecretExpiresAt,
      customHeaders: webhookSubscriptions.headers,
      rateLimitPerSecond: webhookSubscriptions.rateLimitPerSecond,
      eventSeq: events.seq,
      subscriptionStatus: webhookSubscriptions.status,
      subscriptionSuspendedAt: webhookSubscriptions.suspendedAt,
      eventData: events.data,
      eventAt: events.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, webhookDeliveries.subscriptionId))
    .leftJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(inArray(webhookDeliveries.id, [...new Set(jobs.map((j) => j.data.deliveryId))]));
  const byId = new Map(rows.map((r) => [r.delivery.id, r]));
  const ready: PreparedAttempt[] = [];
  const idle: string[] = [];
  const unsendable: MadeAttempt[] = [];
  const cancel: string[] = [];
  const secrets = new Map<string, SigningSecrets>();
  for (const job of jobs) {
    const row = byId.get(job.data.deliveryId);
    if (!row || row.delivery.status !== 'pending' || row.delivery.attempts >= job.data.attempt) {
      idle.push(job.id);
      continue;
    }
    const { delivery } = row;
    if (row.subscriptionStatus !== 'active' || row.subscriptionSuspendedAt !== null || !row.url || !row.eventData || !row.eventAt) {
      cancel.push(delivery.id);
      idle.push(job.id);
      continue;
    }
    const body = envelopeBody(
      { id: delivery.eventId, event: delivery.eventType, timestamp: row.eventAt.toISOString(), data: row.eventData },
      svc.config.publicBaseUrl,
    );
    const attempt: PreparedAttempt = {
      jobId: job.id,
      deliveryId: delivery.id,
      subscriptionId: delivery.subscriptionId,
      attempt: job.data.attempt,
      ...(job.data.final ? { final: true } : {}),
      url: row.url,
      body,
      headers: {},
    };
    let secret = secrets.get(delivery.subscriptionId);
    if (secret === undefined) {
      try {
        secret = signingSecrets(svc.config.encryptionKey, row);
      } catch (err) {
        // A changed ENCRYPTION_KEY: nothing can be signed. A failed attempt, visible in the history.
        const error = err instanceof SecretDecryptionError ? err.message : 'The signing secret could not be read.';
        unsendable.push({ prepared: attempt, outcome: { success: false, statusCode: null, latencyMs: 0, error, responseBody: null } });
        continue;
      }
      secrets.set(delivery.subscriptionId, secret);
    }
    attempt.headers = deliveryHeaders(
      secret.secret,
      body,
      { eventId: delivery.eventId, eventType: delivery.eventType, deliveryId: delivery.id, attempt: job.data.attempt },
      Date.now(),
      { previousSecret: secret.previousSecret, headers: row.customHeaders },
    );
    if (row.rateLimitPerSecond !== null)
      attempt.pace = { perSecond: row.rateLimitPerSecond, slotAt: job.data.slotAt, order: Number(row.eventSeq) };
    svc.metrics.webhookDue(delivery.nextAttemptAt ?? delivery.createdAt);
    ready.push(attempt);
  }
  svc.metrics.webhooksCancelled(cancel.length);
  const expired = [...secrets].filter(([, s]) => s.previousExpired).map(([id]) => id);
  if (expired.length > 0) await clearExpiredPreviousSecrets(svc.db, expired);
  if (cancel.length > 0) {
    await svc.db
      .update(webhookDeliveries)
      .set({ status: 'cancelled', completedAt: new Date(), nextAttemptAt: null })
      .where(and(inArray(webhookDeliveries.id, cancel), eq(webhookDeliveries.status, 'pending')));
  }
  return { ready, idle, unsendable };
}

/**
 * Records made attempts (in the order they finished) in one transaction, with their jobs'
 * completion: the attempt rows; each delivery succeeded, failed, or its next attempt scheduled at
 * WEBHOOK_RETRY_SCHEDULE_MS; the statistics; the consecutive-failure counts, disabling a
 * subscription at its tenth failed delivery in a row, with the failure alerts
 * (src/webhooks/alerts.ts). A healthy receiver's successes touch the
 * subscription row only to reset a failure count. Returns the delays of scheduled retries.
 */
export async function recordAttempts(svc: Services, made: MadeAttempt[]): Promise<number[]> {
  svc.metrics.webhookAttempts(made, svc.config.webhooks.retryScheduleMs);
  if (made.every((m) => m.outcome.success)) {
    await recordSuccesses(svc, made);
    return [];
  }
  const schedule = svc.config.webhooks.retryScheduleMs;
  const now = new Date();
  const plans = made.map(({ prepared, outcome }) => {
    const retryDelayMs = outcome.success || prepared.final ? undefined : schedule[prepared.attempt];
    const finished = outcome.success || retryDelayMs === undefined;
    return { prepared, outcome, retryDelayMs, finished, status: outcome.success ? 'succeeded' : finished ? 'failed' : 'pending' };
  });
  // The unit of work's outbox carries a `webhook.disabled` event when a subscription is disabled here.
  return unitOfWork(svc, async (tx, out) => {
    // Delivery is at least once: losing this record in a database crash means one resend, so the
    // commit need not wait for the disk (PostgreSQL; PGlite runs without fsync anyway).
    if (svc.database.kind === 'postgres') await tx.execute(sql`set local synchronous_commit = off`);
    const values = plans.map(
      (p) =>
        sql`(${p.prepared.deliveryId}::text, ${p.prepared.attempt}::int, ${p.status}::text, ${p.finished ? now.toISOString() : null}::timestamptz, ${p.finished ? null : new Date(now.getTime() + p.retryDelayMs!).toISOString()}::timestamptz)`,
    );
    // Guarded on the previous attempt count: an attempt recorded twice (a job that ran again) counts once.
    const updated = await queryRows<{ id: string; attempts: number }>(
      tx,
      sql`
      update ${webhookDeliveries} as d
      set attempts = v.attempt, status = v.status, completed_at = v.completed_at, next_attempt_at = v.next_at
      from (values ${sql.join(values, sql`, `)}) as v(id, attempt, status, completed_at, next_at)
      where d.id = v.id and d.status = 'pending' and d.attempts = v.attempt - 1
      returning d.id, d.attempts`,
    );
    const recorded = new Set(updated.map((r) => `${r.id}#${r.attempts}`));
    const kept = plans.filter((p) => recorded.delete(`${p.prepared.deliveryId}#${p.prepared.attempt}`));
    if (kept.length > 0) {
      await tx.insert(webhookAttempts).values(
        kept.map(({ prepared, outcome }) => ({
          deliveryId: prepared.deliveryId,
          attempt: prepared.attempt,
          statusCode: outcome.statusCode,
          success: outcome.success,
          latencyMs: outcome.latencyMs,
          error: outcome.error,
          responseBody: outcome.responseBody,
          createdAt: now,
        })),
      );
      const retries = kept.filter((p) => !p.finished);
      await scheduleAttempts(
        svc,
        tx,
        retries.map((p) => ({
          deliveryId: p.prepared.deliveryId,
          attempt: p.prepared.attempt + 1,
          delayMs: p.retryDelayMs!,
          subscriptionId: p.prepared.subscriptionId,
        })),
      );
      await addToStats(tx, kept);
      const disabled = await countConsecutiveFailures(
        svc,
        out,
        kept.filter((p) => p.finished),
      );
      svc.metrics.webhooksDisabled(disabled);
    }
    await svc.boss.complete(
      DELIVERY_QUEUE,
      made.map((m) => m.prepared.jobId),
      null,
      { db: jobsDb(tx) },
    );
    return kept.filter((p) => !p.finished).map((p) => p.retryDelayMs!);
  });
}

/**
 * The common case, every attempt of the group a success, in one statement (RECORD_SUCCESSES_SQL)
 * that is its own transaction: no retry to schedule, and no failure count to add in order. Then
 * the jobs are completed. A crash between the two leaves jobs that run again and find their
 * attempt recorded (idle), so nothing is sent twice. On PGlite the database waits for nobody
 * meanwhile: the transaction's seven round trips to this thread held every other query (docs/performance.md, "Webhook delivery").
 */
async function recordSuccesses(svc: Services, made: MadeAttempt[]): Promise<void> {
  const seen = new Set<string>();
  const shards = new Map<string, number>();
  const values = [];
  for (const { prepared, outcome } of made) {
    // A job that ran twice in one group: its attempt counts once.
    const key = `${prepared.deliveryId}#${prepared.attempt}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let shard = shards.get(prepared.subscriptionId);
    if (shard === undefined) shards.set(prepared.subscriptionId, (shard = Math.floor(Math.random() * STATS_SHARDS)));
    values.push({
      id: prepared.deliveryId,
      attempt: prepared.attempt,
      subscription_id: prepared.subscriptionId,
      shard,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      response_body: outcome.responseBody,
    });
  }
  await statementRows(svc.database, svc.db, 'amp_record_webhook_successes', RECORD_SUCCESSES_SQL, [
    JSON.stringify(values),
    new Date().toISOString(),
  ]);
  await svc.boss.complete(
    DELIVERY_QUEUE,
    made.map((m) => m.prepared.jobId),
  );
}

/**
 * Successful attempts ($1: [{ id, attempt, subscription_id, shard, status_code, latency_ms,
 * response_body }], $2: now), as recordAttempts writes them: guarded on the previous attempt
 * count, the attempt rows, the statistics (one shard per subscription, in subscription order so
 * that concurrent recorders lock in the same order) and the failure counts reset (a failing run
 * ends). The commit does
 * not wait for the disk (`set_config` is local to the statement's own transaction): delivery is at
 * least once, and losing this record in a database crash means one resend.
 */
const RECORD_SUCCESSES_SQL = `
with v as (
  select * from jsonb_to_recordset($1::jsonb)
    as r(id text, attempt int, subscription_id text, shard smallint, status_code int, latency_ms int, response_body text)
),
relaxed as (select set_config('synchronous_commit', 'off', true)),
updated as (
  update webhook_deliveries as d
  set attempts = v.attempt, status = 'succeeded', completed_at = $2::timestamptz, next_attempt_at = null
  from v
  where d.id = v.id and d.status = 'pending' and d.attempts = v.attempt - 1
  returning d.id, d.attempts as attempt
),
kept as (select v.* from v join updated using (id, attempt)),
attempts as (
  insert into webhook_attempts (delivery_id, attempt, status_code, success, latency_ms, error, response_body, created_at)
  select id, attempt, status_code, true, latency_ms, null, response_body, $2::timestamptz from kept
),
stats as (
  insert into webhook_stats as st (subscription_id, shard, deliveries_succeeded, deliveries_failed, attempts_timed, attempt_latency_total_ms)
  select subscription_id, shard, count(*), 0, count(*), sum(latency_ms) from kept group by subscription_id, shard order by subscription_id
  on conflict (subscription_id, shard) do update set
    deliveries_succeeded = st.deliveries_succeeded + excluded.deliveries_succeeded,
    attempts_timed = st.attempts_timed + excluded.attempts_timed,
    attempt_latency_total_ms = st.attempt_latency_total_ms + excluded.attempt_latency_total_ms
),
reset as (
  update webhook_subscriptions set consecutive_failures = 0, failing_since = null
  where id in (select subscription_id from kept) and (consecutive_failures <> 0 or failing_since is not null)
)
select (select count(*) from kept)::int as recorded from relaxed`;

interface Planned {
  prepared: PreparedAttempt;
  outcome: AttemptOutcome;
  finished: boolean;
}

/** One upsert per subscription into one of its shards. Average latency counts answered attempts. */
async function addToStats(tx: Executor, kept: Planned[]) {
  const totals = new Map<
    string,
    { deliveriesSucceeded: number; deliveriesFailed: number; attemptsTimed: number; attemptLatencyTotalMs: number }
  >();
  for (const { prepared, outcome, finished } of kept) {
    const t = totals.get(prepared.subscriptionId) ?? {
      deliveriesSucceeded: 0,
      deliveriesFailed: 0,
      attemptsTimed: 0,
      attemptLatencyTotalMs: 0,
    };
    if (finished && outcome.success) t.deliveriesSucceeded++;
    if (finished && !outcome.success) t.deliveriesFailed++;
    if (outcome.statusCode !== null) {
      t.attemptsTimed++;
      t.attemptLatencyTotalMs += outcome.latencyMs;
    }
    totals.set(prepared.subscriptionId, t);
  }
  const rows = [...totals]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([subscriptionId, t]) => ({ subscriptionId, shard: Math.floor(Math.random() * STATS_SHARDS), ...t }));
  const st = webhookStats;
  await tx
    .insert(st)
    .values(rows)
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
