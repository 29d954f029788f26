import { KEY_ALERT_QUEUE, sendKeyAlert, type KeyAlertJob } from '../keys/alerts';
import type { Services } from '../services';

/**
 * The worker of key limit alerts (src/keys/alerts.ts): each job, created with the reservation
 * that crossed the mark, mails the tenant's owner once (or logs it without SMTP_URL). Any
 * instance takes it; a failed send is retried by pg-boss.
 */
export async function startKeyAlerts(svc: Services): Promise<void> {
  await svc.boss.work<KeyAlertJob>(KEY_ALERT_QUEUE, { pollingIntervalSeconds: 2 }, async ([job]) => {
    if (!job) return;
    const result = await sendKeyAlert(svc, job.data);
    svc.logger.info({ key_id: job.data.keyId, alert: job.data.kind, result }, 'key limit alert sent');
  });
}
