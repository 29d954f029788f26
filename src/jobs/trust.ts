import type { Services } from '../services';
import { recomputeAllTrustScores } from '../trust/score';

/**
 * Every day: recompute every module's trust score (src/trust/score.ts), so the 30-day success
 * rate and latency follow usage even for modules nobody certifies or rates.
 */
export const TRUST_DAILY_QUEUE = 'trust-daily';
export const TRUST_DAILY_CRON = '23 3 * * *';

/** A missed or failed run is simply done by the next one; many modules may take minutes. */
export const TRUST_QUEUE_OPTIONS = { retryLimit: 1, retryDelay: 300, expireInSeconds: 3600 };

/** The pg-boss cron schedule (durable, sent once per day whichever instances run) and its worker. */
export async function startTrust(svc: Services): Promise<void> {
  await svc.boss.schedule(TRUST_DAILY_QUEUE, TRUST_DAILY_CRON);
  await svc.boss.work(TRUST_DAILY_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    const changed = await recomputeAllTrustScores(svc);
    svc.logger.info({ changed }, 'trust: daily recomputation done');
  });
}
