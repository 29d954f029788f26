import { purgeOldRecords } from '../events/retention';
import { closeInterruptedExecutions } from '../executions/recover';
import { purgeIdempotencyKeys } from '../idempotency/keys';
import { purgeExpiredMemory } from '../memory/purge';
import { purgeExpiredOAuth } from '../oauth/adapter';
import type { Services } from '../services';
import { purgeDeletedTenants } from '../tenants/deletion';
import { rescueStalledDeliveries } from '../webhooks/rescue';

/**
 * Every minute: close executions a crashed instance left running; purge expired memory; give
 * webhook deliveries that lost their attempt job a new one.
 */
export const MINUTELY_QUEUE = 'maintenance-minutely';
/** Every hour: delete events and webhook deliveries past their retention; purge deleted tenants past their grace period. */
export const HOURLY_QUEUE = 'maintenance-hourly';

/** Queue options: a missed run is simply done by the next one, so no retries. */
export const MAINTENANCE_QUEUE_OPTIONS = { retryLimit: 0, expireInSeconds: 600 };

/**
 * Periodic upkeep as pg-boss cron schedules: whichever instance's cron pass is due sends one job
 * per period, and any instance's worker runs it, so N instances do the work once, not N times.
 */
export async function startMaintenance(svc: Services): Promise<void> {
  await svc.boss.schedule(MINUTELY_QUEUE, '* * * * *');
  await svc.boss.schedule(HOURLY_QUEUE, '17 * * * *');
  await svc.boss.work(MINUTELY_QUEUE, { pollingIntervalSeconds: 10 }, async () => {
    // On PostgreSQL other live instances may still be running theirs: only rows older than any
    // action's deadline are stale.
    const closed = await closeInterruptedExecutions(svc, 120_000);
    const purged = await purgeExpiredMemory(svc);
    const rescued = await rescueStalledDeliveries(svc);
    if (closed || purged || rescued)
      svc.logger.info(
        { closed, purged, rescued },
        'maintenance: interrupted executions closed, expired memory purged, stalled webhook deliveries rescheduled',
      );
  });
  await svc.boss.work(HOURLY_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    const removed = await purgeOldRecords(svc);
    if (removed.events || removed.deliveries) svc.logger.info(removed, 'retention: deleted old events and webhook deliveries');
    // The OAuth server's expired sessions, interactions, codes and tokens (never read once expired).
    const oauth = await purgeExpiredOAuth(svc.db);
    if (oauth) svc.logger.info({ oauth }, 'retention: deleted expired OAuth records');
    const keys = await purgeIdempotencyKeys(svc);
    if (keys) svc.logger.info({ keys }, 'retention: deleted idempotency keys older than a day');
    const tenants = await purgeDeletedTenants(svc);
    if (tenants) svc.logger.info({ tenants }, 'retention: purged deleted tenants past their grace period (invoices kept)');
  });
}
