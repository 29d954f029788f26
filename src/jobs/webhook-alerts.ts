import type { Services } from '../services';
import { sendWebhookAlert, WEBHOOK_ALERT_QUEUE, type WebhookAlertJob } from '../webhooks/alerts';

/**
 * The worker of webhook failure alerts (src/webhooks/alerts.ts): each job, created in the
 * transaction that recorded the transition, mails the tenant's owner once (or logs the alert
 * without SMTP_URL). Any instance takes it; a failed send is retried by pg-boss.
 */
export async function startWebhookAlerts(svc: Services): Promise<void> {
  await svc.boss.work<WebhookAlertJob>(WEBHOOK_ALERT_QUEUE, { pollingIntervalSeconds: 2 }, async ([job]) => {
    if (!job) return;
    const result = await sendWebhookAlert(svc, job.data);
    svc.logger.info({ webhook_id: job.data.subscriptionId, alert: job.data.kind, result }, 'webhook alert sent');
  });
}
