import type { Principal } from '../auth/principal';
import { identifierBase62 } from '../lib/ids';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { PLANS } from '../tenants/plans';
import { SLOT_RENEW_MS, SLOT_TTL_MS } from './concurrency';
import type { SlotRequest } from './limiter';

export type ReleaseSlot = () => Promise<void>;

const slotKey = (tenantId: string) => `tenant:${tenantId}`;

/**
 * A request's execution slot taken ahead, in the same Redis round trip as its request count
 * (src/server/trpc.ts, the execute procedure; RedisLimiter.limitIfCurrent with a SlotRequest).
 * `held` once the script took it; the request's one execution then uses it instead of a round
 * trip of its own (acquireExecutionSlot), and a request that ends before executing (404, 400)
 * gives it back (releaseUnusedSlot). `refused` (the tenant's slots were all held at that moment)
 * is only a hint: the execution asks again at its usual point, so a refusal still comes from
 * the same check at the same place as without a claim.
 */
export class SlotClaim {
  readonly request: SlotRequest;
  state: 'asked' | 'held' | 'refused' | 'used' | 'released' = 'asked';

  constructor(principal: Pick<Principal, 'tenantId' | 'plan'>) {
    this.request = {
      key: slotKey(principal.tenantId),
      limit: PLANS[principal.plan].concurrency,
      ttlMs: SLOT_TTL_MS,
      id: identifierBase62(12),
    };
  }
}

/**
 * Takes one of the tenant's concurrent-execution slots (free 5, pro 25, business 100,
 * enterprise 500) or throws 429 `concurrency_limit_exceeded` with Retry-After: 1. The returned
 * function releases it; call it on every path (finally). Calling it twice is harmless. The
 * release is written to Redis at once (before anything the caller sends after it, on the same
 * connection) and need not be awaited: a slot is never held shorter than its execution.
 * A `claim` the request already holds is used without a round trip.
 */
export async function acquireExecutionSlot(
  svc: Services,
  principal: Pick<Principal, 'tenantId' | 'plan'>,
  claim?: SlotClaim,
): Promise<ReleaseSlot> {
  const limit = PLANS[principal.plan].concurrency;
  const key = slotKey(principal.tenantId);
  let slot: string | null;
  if (claim?.state === 'held' && claim.request.key === key) {
    claim.state = 'used';
    slot = claim.request.id;
  } else {
    slot = await svc.slots.acquire(key, limit, SLOT_TTL_MS);
  }
  if (!slot) {
    throw new AppError(
      'concurrency_limit_exceeded',
      `The plan allows ${limit} executions in flight at once; retry when one finishes.`,
      { limit },
      { 'Retry-After': '1' },
    );
  }
  const held = heldSlots(svc);
  held.add(key, [slot]);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.remove(key, [slot]);
    await giveBack(svc, key, [slot]);
  };
}

/**
 * Slots a request of several calls (batch, chain) takes for them in one round trip: up to
 * `count`, as many as are free. Each is lent to one run of the request's calls in turn (an
 * execution told `slotHeld` takes none of its own); `giveBack` returns them all in one round
 * trip, not awaited. A run without a lent slot takes one per call as any execution does, so a
 * tenant at its limit is refused per call exactly as before.
 */
export async function takeSlots(
  svc: Services,
  principal: Pick<Principal, 'tenantId' | 'plan'>,
  count: number,
): Promise<{ held: number; giveBack(): void }> {
  const key = slotKey(principal.tenantId);
  const ids = await svc.slots.acquireUpTo(key, PLANS[principal.plan].concurrency, count, SLOT_TTL_MS);
  const held = heldSlots(svc);
  held.add(key, ids);
  let given = false;
  return {
    held: ids.length,
    giveBack() {
      if (given || ids.length === 0) return;
      given = true;
      held.remove(key, ids);
      void giveBack(svc, key, ids);
    },
  };
}

/** Gives back a claimed slot the request did not use (it ended before executing). Not awaited. */
export function releaseUnusedSlot(svc: Services, claim: SlotClaim): void {
  if (claim.state !== 'held') return;
  claim.state = 'released';
  void giveBack(svc, claim.request.key, [claim.request.id]);
}

/** Gives slots `ids` of `key` back; a failure is logged, and the slots then expire on their own (SLOT_TTL_MS after the last renewal). */
function giveBack(svc: Services, key: string, ids: string[]): Promise<void> {
  return svc.slots.releaseAll(key, ids).catch((err: unknown) => svc.logger.warn({ err: String(err) }, 'could not release execution slots'));
}

/**
 * The slots this instance holds, renewed every SLOT_RENEW_MS while held: a slot expires
 * SLOT_TTL_MS after its holder stopped renewing it (a crash), never under a running execution,
 * however long it runs (a chain's steps, a batch's calls one after another on a lent slot).
 */
export class HeldSlots {
  private readonly byKey = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(private readonly svc: Pick<Services, 'slots' | 'logger'>) {}

  add(key: string, ids: string[]): void {
    if (ids.length === 0) return;
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    for (const id of ids) set.add(id);
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew(), SLOT_RENEW_MS);
      this.timer.unref();
    }
  }

  remove(key: string, ids: string[]): void {
    const set = this.byKey.get(key);
    if (!set) return;
    for (const id of ids) set.delete(id);
    if (set.size === 0) this.byKey.delete(key);
    if (this.byKey.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Every held slot's expiry moved to SLOT_TTL_MS from now: one call per tenant. */
  async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      await Promise.all(
        [...this.byKey].map(([key, ids]) =>
          this.svc.slots
            .renew(key, [...ids], SLOT_TTL_MS)
            .catch((err: unknown) => this.svc.logger.warn({ err: String(err) }, 'could not renew execution slots')),
        ),
      );
    } finally {
      this.renewing = false;
    }
  }
}

const registries = new WeakMap<object, HeldSlots>();

/** The instance's HeldSlots (one per Services, kept beside its slot store). */
export function heldSlots(svc: Pick<Services, 'slots' | 'logger'>): HeldSlots {
  let held = registries.get(svc.slots);
  if (!held) registries.set(svc.slots, (held = new HeldSlots(svc)));
  return held;
}
