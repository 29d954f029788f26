import { closeCycles } from '../billing/close';
import type { Services } from '../services';

/**
 * Every hour: close the billing cycles that have ended (src/billing/close.ts). Hourly rather
 * than once a month, so an instance that was down at the turn of the month, or a failed run,
 * is caught up within the hour; a run with nothing due costs one query.
 */
export const BILLING_CLOSE_QUEUE = 'billing-close';

/**
 * A missed or failed run is simply done by the next one (closing is idempotent), so one retry
 * at most; a catch-up over many tenants may take minutes.
 */
export const BILLING_QUEUE_OPTIONS = { retryLimit: 1, retryDelay: 60, expireInSeconds: 1800 };

/**
 * A pg-boss cron schedule (durable in the database, and sent once per period whichever
 * instances run), and the worker: any instance's worker runs the job, with the real clock.
 */
export async function startBilling(svc: Services): Promise<void> {
  await svc.boss.schedule(BILLING_CLOSE_QUEUE, '7 * * * *');
  await svc.boss.work(BILLING_CLOSE_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    // A tenant whose cycle fails is logged and skipped (closeCycles): the others are invoiced, and
    // the next hourly run tries it again. The run itself succeeds.
    let failed = 0;
    const created = await closeCycles(svc, { at: new Date(), onFailure: () => failed++ });
    if (created.length) svc.logger.info({ invoices: created.length }, 'billing: closed cycles, invoices created');
    if (failed) svc.logger.warn({ failed }, 'billing: some cycles could not be invoiced; the next run tries them again');
  });
}
