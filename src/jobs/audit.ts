import { purgeExpiredAuditEntries } from '../audit/retention';
import type { Services } from '../services';

/** Every hour: delete audit entries past their tenant's plan retention (src/audit/retention.ts). */
export const AUDIT_RETENTION_QUEUE = 'audit-retention';
export const AUDIT_RETENTION_CRON = '41 * * * *';

/** A missed run is simply done by the next one, so no retries. */
export const AUDIT_RETENTION_QUEUE_OPTIONS = { retryLimit: 0, expireInSeconds: 600 };

/** The pg-boss cron schedule (sent once per period whichever instances run) and its worker. */
export async function startAuditRetention(svc: Services): Promise<void> {
  await svc.boss.schedule(AUDIT_RETENTION_QUEUE, AUDIT_RETENTION_CRON);
  await svc.boss.work(AUDIT_RETENTION_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    const removed = await purgeExpiredAuditEntries(svc);
    if (removed) svc.logger.info({ removed }, 'retention: deleted audit entries past their plan retention');
  });
}
