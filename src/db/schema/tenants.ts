import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

export const tenants = pgTable(
  'tenants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentName: text('agent_name').notNull(),
    ownerEmail: text('owner_email').notNull(),
    plan: text('plan', { enum: ['free', 'pro', 'business', 'enterprise'] })
      .notNull()
      .default('free'),
    /** Operator override of the plan's request limit (enterprise "custom"). */
    requestsPerMinute: integer('requests_per_minute'),
    /** Operator override of the plan's monthly execution quota (custom contracts); null = the plan's. */
    executionsPerMonth: integer('executions_per_month'),
    /** Operator override of the overage price per execution, micro-dollars; null = the plan's. */
    overageUnitMicroUsd: bigint('overage_unit_micro_usd', { mode: 'number' }),
    /** Operator override of the monthly fee, micro-dollars; null = the plan's. */
    monthlyFeeMicroUsd: bigint('monthly_fee_micro_usd', { mode: 'number' }),
    /** Deletion requested by the owner: nobody acts for the tenant any more (docs/organizations.md). */
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    /** When its data is purged (the grace period's end); an operator may restore it until then. */
    purgeAfter: timestamp('purge_after', { withTimezone: true, mode: 'date' }),
    /** Purged: only its invoices (and this row, anonymised) remain. */
    purgedAt: timestamp('purged_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('tenants_owner_email_lower_idx').on(sql`lower(${t.ownerEmail})`),
    index('tenants_created_at_idx').on(t.createdAt, t.id),
  ],
);

export type TenantRow = typeof tenants.$inferSelect;
