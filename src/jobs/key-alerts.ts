import { KEY_ALERT_QUEUE, sendKeyAlert, type KeyAlertJob } from '../keys/alerts';
import type { Services } from '../services';
import { workEachJob } from './boss';

/**
 * The worker of key limit alerts (src/keys/alerts.ts): each job, created with the reservation
 * that crossed the mark, mails the tenant's owner once (or logs it without SMTP_URL). Any
 * instance takes it; a failed send is retried by pg-boss.
 */
export async function startKeyAlerts(svc: Services): Promise<void> {
  await workEachJob<KeyAlertJob>(svc.boss, KEY_ALERT_QUEUE, 2, async (alert) => {
    const result = await sendKeyAlert(svc, alert);
    svc.logger.info({ key_id: alert.keyId, alert: alert.kind, result }, 'key limit alert sent');
  });
}
