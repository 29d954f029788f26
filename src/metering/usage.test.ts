import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_DATABASE_URL } from '../../tests/harness';
import type { Database } from '../db';
import { tenants, usageCounters } from '../db/schema';
import { AppError } from '../lib/errors';
import type { Plan } from '../tenants/plans';
import { cycleStart } from './cycle';
import { executionsRemaining, executionsUsed, reserveExecutions } from './usage';

const variants = ['pglite', 'postgres'] as const;

for (const variant of variants)
  describe.skipIf(variant === 'postgres' && !TEST_DATABASE_URL)(`reserveExecutions (${variant})`, () => {
    let database: Database;
    let close: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ database, close } = await openTestDatabase(variant === 'postgres' ? 'postgres' : 'embedded', 20));
    });
    afterAll(() => close?.());

    async function tenantWithUsage(plan: Plan, used: number) {
      const [t] = await database.db
        .insert(tenants)
        .values({ agentName: 'a', ownerEmail: `${Math.random()}@example.com`, plan })
        .returning();
      if (used > 0) await database.db.insert(usageCounters).values({ tenantId: t!.id, cycleStart: cycleStart(), executions: used });
      return { tenantId: t!.id, plan };
    }

    /** 200 concurrent reservations, each in its own transaction, as executions make them. */
    async function race(tenant: { tenantId: string; plan: Plan }, calls = 200) {
      return Promise.allSettled(Array.from({ length: calls }, () => database.db.transaction((tx) => reserveExecutions(tx, tenant, 1))));
    }

    it('free plan: 200 concurrent calls with 50 left grant exactly 50', async () => {
      const tenant = await tenantWithUsage('free', 950);
      const results = await race(tenant);
      const granted = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected');
      expect(granted).toHaveLength(50);
      expect(refused).toHaveLength(150);
      for (const r of refused) {
        const err = (r as PromiseRejectedResult).reason as AppError;
        expect(err).toBeInstanceOf(AppError);
        expect(err.code).toBe('quota_exceeded');
        expect(err.status).toBe(429);
        expect(err.details).toMatchObject({ limit: 1000 });
        expect(Number(err.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      }
      expect(await executionsUsed(database.db, tenant.tenantId)).toBe(1000);
      expect(await executionsRemaining(database.db, tenant)).toBe('0');
    });

    it('pro plan: continues past the quota and counts the excess as overage', async () => {
      const tenant = await tenantWithUsage('pro', 49_950);
      const results = await race(tenant);
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      const overage = results.reduce((sum, r) => sum + (r as PromiseFulfilledResult<{ overage: number }>).value.overage, 0);
      expect(overage).toBe(150);
      expect(await executionsUsed(database.db, tenant.tenantId)).toBe(50_150);
      expect(await executionsRemaining(database.db, tenant)).toBe('0');
    });

    it('enterprise: unlimited', async () => {
      const tenant = await tenantWithUsage('enterprise', 0);
      const r = await reserveExecutions(database.db, tenant, 5);
      expect(r).toMatchObject({ limit: null, remaining: null, overage: 0, used: 5 });
      expect(await executionsRemaining(database.db, tenant)).toBe('unlimited');
    });

    it('counts a batch of n at once and refuses a batch that does not fit whole', async () => {
      const tenant = await tenantWithUsage('free', 995);
      await expect(reserveExecutions(database.db, tenant, 6)).rejects.toMatchObject({ code: 'quota_exceeded' });
      expect(await reserveExecutions(database.db, tenant, 5)).toMatchObject({ used: 1000, remaining: 0 });
    });

    it('a new cycle starts from zero', async () => {
      const tenant = await tenantWithUsage('free', 1000);
      await expect(reserveExecutions(database.db, tenant, 1)).rejects.toMatchObject({ code: 'quota_exceeded' });
      const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 2));
      expect(await reserveExecutions(database.db, tenant, 1, nextMonth)).toMatchObject({ used: 1, remaining: 999 });
    });

    it('rolls back with the transaction that made the reservation', async () => {
      const tenant = await tenantWithUsage('free', 10);
      await expect(
        database.db.transaction(async (tx) => {
          await reserveExecutions(tx, tenant, 1);
          throw new Error('execution row could not be written');
        }),
      ).rejects.toThrow();
      expect(await executionsUsed(database.db, tenant.tenantId)).toBe(10);
    });
  });
