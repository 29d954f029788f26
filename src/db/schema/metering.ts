import { date, integer, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

/**
 * Executions counted per tenant per billing cycle (calendar month, UTC). This row is the counter
 * of record: reservations update it atomically in the transaction that creates the execution.
 */
export const usageCounters = pgTable(
  'usage_counters',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** First day of the cycle (UTC). */
    cycleStart: date('cycle_start', { mode: 'string' }).notNull(),
    executions: integer('executions').notNull().default(0),
    /** Executions past the plan quota (pro/business: billed as overage). */
    overage: integer('overage').notNull().default(0),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.cycleStart] })],
);

export type UsageCounterRow = typeof usageCounters.$inferSelect;
