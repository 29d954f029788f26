import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { tenants } from './tenants';

/** A tenant's effective billing terms at a moment: its plan and the per-tenant overrides. */
export interface TermsSnapshot {
  plan: 'free' | 'pro' | 'business' | 'enterprise';
  requests_per_minute: number | null;
  executions_per_month: number | null;
  overage_unit_micro_usd: number | null;
  monthly_fee_micro_usd: number | null;
}

/**
 * Every change of plan or terms, in the transaction that makes it: proration reads the terms in
 * force over each part of a cycle from here, and usage shows the changes.
 */
export const planChanges = pgTable(
  'plan_changes',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    fromTerms: jsonb('from_terms').$type<TermsSnapshot>().notNull(),
    toTerms: jsonb('to_terms').$type<TermsSnapshot>().notNull(),
    /** `tenant` (PUT /billing/plan) or `admin`. */
    actor: text('actor').notNull(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('plan_changes_tenant_idx').on(t.tenantId, t.changedAt, t.id)],
);

export type PlanChangeRow = typeof planChanges.$inferSelect;

export interface InvoiceLine {
  description: string;
  quantity: number;
  unit_amount_micro_usd: number;
  amount_micro_usd: number;
}

export type InvoiceStatus = 'open' | 'paid' | 'void';

/** One invoice per tenant and closed cycle (the unique index makes closing idempotent). */
export const invoices = pgTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** Sequential per tenant, from 1. */
    number: integer('number').notNull(),
    /** First day of the billed cycle (UTC). */
    cycleStart: date('cycle_start', { mode: 'string' }).notNull(),
    periodStart: timestamp('period_start', { withTimezone: true, mode: 'date' }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true, mode: 'date' }).notNull(),
    status: text('status').$type<InvoiceStatus>().notNull().default('open'),
    currency: text('currency').notNull().default('usd'),
    lines: jsonb('lines').$type<InvoiceLine[]>().notNull(),
    subtotalMicroUsd: bigint('subtotal_micro_usd', { mode: 'number' }).notNull(),
    totalMicroUsd: bigint('total_micro_usd', { mode: 'number' }).notNull(),
    /** Who the invoice is addressed to, as the tenant was when it was issued (an invoice does not change). */
    billedToName: text('billed_to_name').notNull(),
    billedToEmail: text('billed_to_email').notNull(),
    /** Issue date plus the payment terms (INVOICE_NET_DAYS). */
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    voidedAt: timestamp('voided_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('invoices_tenant_cycle_idx').on(t.tenantId, t.cycleStart),
    uniqueIndex('invoices_tenant_number_idx').on(t.tenantId, t.number),
    index('invoices_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
  ],
);

export type InvoiceRow = typeof invoices.$inferSelect;

/**
 * Authenticated API requests per tenant per UTC day (usage's "requests per day"). Instances add
 * their counts in periodic flushes, so the row is a sum across instances.
 */
export const requestCounts = pgTable(
  'request_counts',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day] })],
);
