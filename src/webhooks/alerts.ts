/**
 * Failures made loud: the consecutive-failure count of each subscription, the two transitions it
 * drives and what they send. A run of failed deliveries that first reaches the subscription's
 * `failure_alert_threshold` sets `failing_since` and mails the tenant's owner once; the tenth
 * disables the subscription, mails again and emits `webhook.disabled` to the tenant's other
 * subscriptions. A success ends the run (`failing_since` cleared).
 *
 * Each transition is decided by the UPDATE that makes it (its RETURNING says whether this very
 * statement set `failing_since` or `disabled_at`): recorders on several instances serialise on
 * the subscription's row, so exactly one of them sees the transition. Its alert mail is a pg-boss
 * job created in that same transaction, so it exists exactly when the transition committed and
 * survives a restart; the event is written there too (the outbox).
 */
import { and, eq, or, isNotNull, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { jobsDb } from '../db/job-tx';
import { tenants, webhookSubscriptions } from '../db/schema';
import { WEBHOOK_AUTO_DISABLE_AFTER } from '../contract/limits';
import { escapeHtml, sendMail } from '../lib/mail';
import type { Outbox } from '../outbox';
import type { Services } from '../services';
import type { AttemptOutcome } from './send';

/** The pg-boss queue of alert mails: one job per transition. */
export const WEBHOOK_ALERT_QUEUE = 'webhook-alert';

/**
 * An SMTP server that refuses or is unreachable is tried again (1, 2, 4, 8, 16 minutes later); a
 * worker that dies mid-send leaves its job to expire and run again (so a mail may, rarely, be sent twice).
 */
export const WEBHOOK_ALERT_QUEUE_OPTIONS = { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 };

export type WebhookAlertKind = 'failing' | 'disabled';

/** What an alert job carries: the state at the transition, as the mail tells it. */
export interface WebhookAlertJob {
  kind: WebhookAlertKind;
  subscriptionId: string;
  tenantId: string;
  url: string | null;
  consecutiveFailures: number;
  threshold: number;
  /** `failing_since` (failing) or `disabled_at` (disabled), ISO 8601. */
  at: string;
  /** When the run reached the threshold, ISO 8601. */
  failingSince: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
}

/** A finished delivery, in the order the recorder saw it finish. */
export interface FinishedDelivery {
  prepared: { subscriptionId: string };
  outcome: AttemptOutcome;
}

/**
 * Finished deliveries in the order they finished, per subscription: a success resets the count
 * (and ends a failing run), a failure adds one. At the subscription's threshold `failing_since`
 * is set; at WEBHOOK_AUTO_DISABLE_AFTER it is disabled. Queues the alerts and emits
 * `webhook.disabled` in `out`'s transaction. Returns how many subscriptions this call disabled.
 */
export async function countConsecutiveFailures(svc: Services, out: Outbox, finished: FinishedDelivery[]): Promise<number> {
  const tx = out.tx;
  const bySubscription = new Map<string, { reset: boolean; failuresAfter: number; last?: AttemptOutcome }>();
  for (const { prepared, outcome } of finished) {
    const c = bySubscription.get(prepared.subscriptionId) ?? { reset: false, failuresAfter: 0 };
    if (outcome.success) {
      c.reset = true;
      c.failuresAfter = 0;
      c.last = undefined;
    } else {
      c.failuresAfter++;
      c.last = outcome;
    }
    bySubscription.set(prepared.subscriptionId, c);
  }
  const s = webhookSubscriptions;
  const alerts: WebhookAlertJob[] = [];
  // In id order, so two transactions never wait on each other's rows in opposite orders.
  for (const [id, c] of [...bySubscription].sort(([a], [b]) => a.localeCompare(b))) {
    if (c.reset && c.failuresAfter === 0) {
      await tx
        .update(s)
        .set({ consecutiveFailures: 0, failingSince: null })
        .where(and(eq(s.id, id), or(ne(s.consecutiveFailures, 0), isNotNull(s.failingSince))));
      continue;
    }
    const count = c.reset ? sql`${c.failuresAfter}::int` : sql`${s.consecutiveFailures} + ${c.failuresAfter}`;
    // SET sees the row as it was: a run that already alerted keeps its failing_since; one that
    // started in this group (after a success) begins anew.
    const failingSince = c.reset
      ? sql`case when ${count} >= ${s.failureAlertThreshold} then now() else null end`
      : sql`case when ${s.failingSince} is null and ${count} >= ${s.failureAlertThreshold} then now() else ${s.failingSince} end`;
    const [row] = await tx
      .update(s)
      .set({
        consecutiveFailures: count,
        status: sql`case when ${count} >= ${WEBHOOK_AUTO_DISABLE_AFTER} then 'disabled' else ${s.status} end`,
        disabledAt: sql`case when ${count} >= ${WEBHOOK_AUTO_DISABLE_AFTER} and ${s.status} = 'active' then now() else ${s.disabledAt} end`,
        failingSince,
      })
      .where(eq(s.id, id))
      // now() is the transaction's start: a column equal to it was set by this update.
      .returning({
        tenantId: s.tenantId,
        url: s.url,
        status: s.status,
        consecutiveFailures: s.consecutiveFailures,
        threshold: s.failureAlertThreshold,
        failingSince: s.failingSince,
        disabledAt: s.disabledAt,
        disabledNow: sql<boolean>`${s.disabledAt} is not distinct from now()`,
        failingNow: sql<boolean>`${s.failingSince} is not distinct from now()`,
      });
    if (!row) continue;
    const base = {
      subscriptionId: id,
      tenantId: row.tenantId,
      url: row.url,
      consecutiveFailures: row.consecutiveFailures,
      threshold: row.threshold,
      failingSince: row.failingSince ? row.failingSince.toISOString() : null,
      lastStatusCode: c.last?.statusCode ?? null,
      lastError: c.last?.error ?? null,
    };
    // Reaching the threshold and the disable in one group: the disable's alert says both.
    if (row.disabledNow && row.disabledAt) alerts.push({ ...base, kind: 'disabled', at: row.disabledAt.toISOString() });
    else if (row.failingNow && row.failingSince && row.status === 'active')
      alerts.push({ ...base, kind: 'failing', at: row.failingSince.toISOString() });
  }
  for (const alert of alerts) {
    await queueAlert(svc, tx, alert);
    if (alert.kind === 'disabled') {
      // The subscription is already disabled in this transaction: the event's deliveries go to
      // the tenant's other active subscriptions only.
      await out.emit(alert.tenantId, 'webhook.disabled', {
        webhook_id: alert.subscriptionId,
        url: alert.url,
        consecutive_failures: alert.consecutiveFailures,
        disabled_at: alert.at,
        failing_since: alert.failingSince,
        last_status_code: alert.lastStatusCode,
        last_error: alert.lastError,
      });
    }
  }
  return alerts.filter((a) => a.kind === 'disabled').length;
}

async function queueAlert(svc: Services, tx: Executor, alert: WebhookAlertJob): Promise<void> {
  const id = await svc.boss.send(WEBHOOK_ALERT_QUEUE, alert, { db: jobsDb(tx) });
  if (!id) throw new Error(`pg-boss did not create a job on queue ${WEBHOOK_ALERT_QUEUE}`);
}

/**
 * Sends one alert to the tenant's owner (`owner_email`) by mail when SMTP_URL is set; without
 * it the alert is logged for the operator (warn), as sign-up links are. A tenant deleted
 * meanwhile gets nothing.
 */
export async function sendWebhookAlert(svc: Services, alert: WebhookAlertJob): Promise<'mailed' | 'logged' | 'no_tenant'> {
  const [tenant] = await svc.db.select({ email: tenants.ownerEmail }).from(tenants).where(eq(tenants.id, alert.tenantId));
  if (!tenant) return 'no_tenant';
  const mail = alertMail(svc.config.publicBaseUrl, tenant.email, alert);
  if (await sendMail(svc.config, mail)) return 'mailed';
  svc.logger.warn(
    {
      email: tenant.email,
      alert: alert.kind,
      webhook_id: alert.subscriptionId,
      url: alert.url,
      consecutive_failures: alert.consecutiveFailures,
      last_status_code: alert.lastStatusCode,
      last_error: alert.lastError,
    },
    `webhook ${alert.kind} alert (SMTP_URL is not set, so it is logged for the operator instead of mailed)`,
  );
  return 'logged';
}

/** The alert mail: what happened, the last error, and what to do, with the dashboard's link. */
export function alertMail(publicBaseUrl: string, to: string, alert: WebhookAlertJob) {
  const receiver = alert.url ?? alert.subscriptionId;
  const page = `${publicBaseUrl}/dashboard/webhooks/${alert.subscriptionId}`;
  const last =
    alert.lastStatusCode !== null
      ? `The last attempt was answered with HTTP ${alert.lastStatusCode}.`
      : alert.lastError
        ? `The last attempt failed: ${alert.lastError}`
        : '';
  const lines =
    alert.kind === 'failing'
      ? {
          subject: `Webhook failing: ${receiver}`,
          paragraphs: [
            `Your webhook ${alert.subscriptionId} (${receiver}) has failed ${alert.consecutiveFailures} deliveries in a row (your alert threshold is ${alert.threshold}). ${last}`,
            `Deliveries are still retried. After ${WEBHOOK_AUTO_DISABLE_AFTER} failed deliveries in a row the webhook is disabled and new events stop being sent to it. One successful delivery ends this alert.`,
          ],
        }
      : {
          subject: `Webhook disabled: ${receiver}`,
          paragraphs: [
            `Your webhook ${alert.subscriptionId} (${receiver}) was disabled at ${alert.at} after ${alert.consecutiveFailures} failed deliveries in a row. ${last}`,
            'Events from now on are not sent to it. Fix the receiver, then enable the webhook and recover the events it missed (the dashboard offers both at once).',
          ],
        };
  const text = `${lines.paragraphs.join('\n\n')}\n\n${page}\n`;
  const html = `${lines.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}<p><a href="${escapeHtml(page)}">${escapeHtml(page)}</a></p>`;
  return { to, subject: lines.subject, text, html };
}
