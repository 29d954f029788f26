import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookSubscriptionRow } from '../db/schema';
import { successRate } from './success-rate';

const iso = (d: Date) => d.toISOString();

/** When the rotated-out secret stops signing, while it still does (null otherwise, also once expired but not yet cleared). */
function previousSecretExpiry(row: WebhookSubscriptionRow): string | null {
  const at = row.previousSecretEncrypted !== null ? row.previousSecretExpiresAt : null;
  return at && at.getTime() > Date.now() ? iso(at) : null;
}

/** A subscription; the secret only in full right after it was chosen or generated. */
export function presentWebhook(row: WebhookSubscriptionRow, secret?: string) {
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    events: row.events,
    status: row.status,
    secret: secret ?? `…${row.secretLast4}`,
    previous_secret_expires_at: previousSecretExpiry(row),
    headers: row.headers,
    filter: row.filter,
    rate_limit_per_second: row.rateLimitPerSecond,
    consecutive_failures: row.consecutiveFailures,
    disabled_at: row.disabledAt ? iso(row.disabledAt) : null,
    failure_alert_threshold: row.failureAlertThreshold,
    failing_since: row.failingSince ? iso(row.failingSince) : null,
    suspended: row.suspendedAt !== null,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export interface StatsTotals {
  succeeded: number;
  failed: number;
  attemptsTimed: number;
  latencyTotalMs: number;
}

/** From the delivery history (30 days): distinct events sent or being sent, and attempts made. */
export interface HistoryTotals {
  messages: number;
  attempts: number;
}

export function presentStats(row: WebhookSubscriptionRow, totals: StatsTotals, pending: number, history: HistoryTotals) {
  const finished = totals.succeeded + totals.failed;
  return {
    success_rate: successRate(totals.succeeded, totals.failed),
    avg_latency_ms: totals.attemptsTimed ? Math.round(totals.latencyTotalMs / totals.attemptsTimed) : null,
    total_deliveries: finished + pending,
    succeeded_deliveries: totals.succeeded,
    failed_deliveries: totals.failed,
    pending_deliveries: pending,
    consecutive_failures: row.consecutiveFailures,
    messages: history.messages,
    attempts: history.attempts,
  };
}

/** The receiver's queue lag: when its oldest pending delivery was created, and how long ago (seconds, 0.1 s resolution). */
export function presentLag(oldestPending: Date | null, now = Date.now()) {
  return {
    oldest_pending_at: oldestPending ? iso(oldestPending) : null,
    lag_seconds: oldestPending ? Math.max(0, Math.round((now - oldestPending.getTime()) / 100) / 10) : null,
  };
}

/** A delivery with its attempts; the flat fields describe the latest attempt. */
export function presentDelivery(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]) {
  const last = attempts.at(-1);
  return {
    id: row.id,
    event_id: row.eventId,
    event: row.eventType,
    kind: row.kind,
    status: row.status,
    attempt: row.attempts,
    status_code: last?.statusCode ?? null,
    success: row.status === 'succeeded',
    latency_ms: last?.latencyMs ?? null,
    error: last?.error ?? null,
    next_attempt_at: row.nextAttemptAt && row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    at: iso(row.createdAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      status_code: a.statusCode,
      success: a.success,
      latency_ms: a.latencyMs,
      error: a.error,
      response_body: a.responseBody,
      at: iso(a.createdAt),
    })),
  };
}
