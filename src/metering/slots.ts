import type { Principal } from '../auth/principal';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { PLANS } from '../tenants/plans';
import { SLOT_TTL_MS } from './concurrency';

export type ReleaseSlot = () => Promise<void>;

/**
 * Takes one of the tenant's concurrent-execution slots (free 5, pro 25, business 100,
 * enterprise 500) or throws 429 `concurrency_limit_exceeded` with Retry-After: 1. The returned
 * function releases it; call it on every path (finally). Calling it twice is harmless.
 */
export async function acquireExecutionSlot(svc: Services, principal: Pick<Principal, 'tenantId' | 'plan'>): Promise<ReleaseSlot> {
  const limit = PLANS[principal.plan].concurrency;
  const key = `tenant:${principal.tenantId}`;
  const slot = await svc.slots.acquire(key, limit, SLOT_TTL_MS);
  if (!slot) {
    throw new AppError(
      'concurrency_limit_exceeded',
      `The plan allows ${limit} executions in flight at once; retry when one finishes.`,
      { limit },
      { 'Retry-After': '1' },
    );
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await svc.slots.release(key, slot).catch((err: unknown) => svc.logger.warn({ err: String(err) }, 'could not release execution slot'));
  };
}
