import type { Services } from '../services';
import { workEachJob } from './boss';
import { sendWebhookAlert, WEBHOOK_ALERT_QUEUE, type WebhookAlertJob } from '../webhooks/alerts';

/**
 * The worker of webhook failure alerts (src/webhooks/alerts.ts): each job, created in the
 * transaction that recorded the transition, mails the tenant's owner once (or logs the alert
 * without SMTP_URL). Any instance takes it; a failed send is retried by pg-boss.
 */
export async function startWebhookAlerts(svc: Services): Promise<void> {
  await workEachJob<WebhookAlertJob>(svc.boss, WEBHOOK_ALERT_QUEUE, 2, async (alert) => {
    const result = await sendWebhookAlert(svc, alert);
    svc.logger.info({ webhook_id: alert.subscriptionId, alert: alert.kind, result }, 'webhook alert sent');
  });
}
