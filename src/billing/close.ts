import { recordAudit } from '../audit/record';
import { and, asc, eq, gte, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db';
import { invoices, planChanges, tenants, usageCounters, type InvoiceLine, type InvoiceRow, type TermsSnapshot } from '../db/schema';
import { newId } from '../lib/ids';
import { isSaneDate } from '../lib/dates';
import { AppError, invalidRequest } from '../lib/errors';
import { unitOfWork } from '../outbox';
import type { Services } from '../services';
import { PLAN_NAMES, PLANS, type Plan } from '../tenants/plans';
import { invoiceNumber, invoicePath } from './invoices';
import { formatUnitUsd, formatUsd, isExactAmount, MAX_USD_MICRO } from './money';
import { prorateFees } from './proration';
import { snapshotTerms, termsSnapshot } from './terms';
import { futureCloseRefusal } from './close-at';
import { INVOICE_NET_DAYS } from '../contract/invoice-document';

/**
 * Closing billing cycles: one invoice per tenant and ended cycle that has something to bill.
 *
 * - Which cycles: every calendar month (UTC) that ended at or before `at`, from the month the
 *   tenant was created, that has no invoice yet: the month just before `at`, and any older month
 *   a stopped service or a failed run missed.
 * - Lines: the plan's monthly fee for the whole cycle, or, when the plan or terms changed during
 *   it, one prorated line per stretch of days on each set of terms (prorateFees); then the
 *   overage (usage_counters.overage of the cycle × the unit price of the terms in force at the
 *   cycle's end, or, when those pause at the quota (free), of the last metered terms of the
 *   cycle: a downgrade to free does not make the overage already run free). Every line's amount
 *   is rounded half-up to the cent, so the subtotal is exactly the sum of the lines as shown. No
 *   tax: total = subtotal.
 * - Nothing to bill, no invoice: a cycle whose total is 0 (free throughout, enterprise at fee 0
 *   without billed overage) gets none.
 * - Exactly once: each invoice is made in its own transaction holding a per-tenant advisory lock,
 *   which also serialises the per-tenant sequential `number` (max + 1); the insert is
 *   `ON CONFLICT (tenant_id, cycle_start) DO NOTHING`, and `billing.invoice_created` is recorded in
 *   the same transaction only when the row was inserted. Two runs, on one instance or several,
 *   make one invoice and one event per tenant and cycle.
 */

/** Advisory-lock class of invoice creation (the second key is hashtext(tenant_id)). */
const INVOICE_LOCK_CLASS = 0x1a70;

/** Candidates read per query (keyset pages). */
const PAGE = 500;

const CENT = 10_000;
/** Half-up to a whole cent, in micro-dollars. */
export const roundToCent = (micro: number) => Math.floor((micro + CENT / 2) / CENT) * CENT;
/** The same, exactly, for products that may pass a safe integer. */
const roundToCentExact = (micro: bigint) => ((micro + 5_000n) / 10_000n) * 10_000n;

export interface CloseOptions {
  /** Close every cycle that ended at or before this instant. */
  at: Date;
  /** Told of each (tenant, cycle) that could not be invoiced (it is logged either way). */
  onFailure?: (failure: CloseFailure) => void;
}

/** A (tenant, cycle) the close could not invoice: nothing of it was written, and the next run tries it again. */
export interface CloseFailure {
  tenant_id: string;
  /** `YYYY-MM`. */
  cycle: string;
  /** The platform error code (`conflict` for charges past the exact range), `internal_error` otherwise. */
  error: string;
  message: string;
}

/** First instant of the month of `d` (UTC). */
function monthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

function addMonths(d: Date, n: number): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** The monthly fee of a terms expression, from the one plan table (nothing restates a price). */
function planFee(plan: SQL): SQL {
  return sql`(case ${plan} ${sql.join(
    PLAN_NAMES.map((p) => sql`when ${p} then ${PLANS[p].priceMicroUsdPerMonth}::bigint`),
    sql` `,
  )} else 0::bigint end)`;
}

const snapshotFee = (terms: SQL) => sql`coalesce((${terms}->>'monthly_fee_micro_usd')::bigint, ${planFee(sql`${terms}->>'plan'`)})`;

interface Candidate {
  tenant_id: string;
  cycle_start: string;
}

/**
 * The (tenant, cycle) pairs that ended by `lastCycle`'s end, have no invoice, and may bill
 * something: overage counted in the cycle, or a monthly fee above 0 in any terms in force during
 * it (those at its start: the first later change's `from_terms`, else the tenant's current terms;
 * and those of its changes). So free tenants (and enterprise at fee 0) cost nothing here, hour
 * after hour: one query answers that nothing is due.
 */
async function findCandidates(db: Executor, lastCycle: Date, after: Candidate | null): Promise<Candidate[]> {
  const last = ymd(lastCycle);
  const cycleStartTs = sql`(c.cycle_start::timestamp at time zone 'UTC')`;
  return queryRows<Candidate>(
    db,
    sql`
    select c.tenant_id::text as tenant_id, to_char(c.cycle_start, 'YYYY-MM-DD') as cycle_start
    from (
      select t.id as tenant_id, t.plan, t.monthly_fee_micro_usd, gs::date as cycle_start
      from ${tenants} t
      cross join lateral generate_series(date_trunc('month', t.created_at at time zone 'UTC'), ${last}::timestamp, interval '1 month') gs
      where t.created_at < (${last}::timestamp at time zone 'UTC') + interval '1 month'
    ) c
    where ${after ? sql`(c.tenant_id, c.cycle_start) > (${after.tenant_id}::uuid, ${after.cycle_start}::date) and` : sql``}
      not exists (select 1 from ${invoices} i where i.tenant_id = c.tenant_id and i.cycle_start = c.cycle_start)
      and (
        exists (select 1 from ${usageCounters} u where u.tenant_id = c.tenant_id and u.cycle_start = c.cycle_start and u.overage > 0)
        or coalesce(
          (select ${snapshotFee(sql`pc.from_terms`)} from ${planChanges} pc
            where pc.tenant_id = c.tenant_id and pc.changed_at >= ${cycleStartTs}
            order by pc.changed_at, pc.id limit 1),
          coalesce(c.monthly_fee_micro_usd, ${planFee(sql`c.plan`)})
        ) > 0
        or exists (select 1 from ${planChanges} pc
            where pc.tenant_id = c.tenant_id and pc.changed_at >= ${cycleStartTs} and pc.changed_at < ${cycleStartTs} + interval '1 month'
              and ${snapshotFee(sql`pc.to_terms`)} > 0)
      )
    order by c.tenant_id, c.cycle_start
    limit ${PAGE}`,
  );
}

/**
 * Closes every ended cycle due by `at` (see the top of this file) and returns the invoices it
 * created (none when everything was already invoiced or had nothing to bill).
 *
 * Each (tenant, cycle) is closed on its own: one that fails (its charges past the exact range, a
 * database error in its transaction) is logged with its tenant id and cycle, reported to
 * `onFailure`, and skipped, and the others are closed all the same. Its transaction wrote nothing,
 * so it is still due and the next run (the hourly job, or a close by hand) tries it again.
 */
export async function closeCycles(svc: Services, opts: CloseOptions): Promise<InvoiceRow[]> {
  if (!isSaneDate(opts.at)) throw new RangeError('closeCycles: `at` must be a valid date');
  // The last cycle to close is the month before the one `at` falls in (it ended at or before `at`).
  const lastCycle = addMonths(monthStart(opts.at), -1);
  const created: InvoiceRow[] = [];
  let after: Candidate | null = null;
  for (;;) {
    const page = await findCandidates(svc.db, lastCycle, after);
    for (const candidate of page) {
      try {
        const row = await closeTenantCycle(svc, candidate.tenant_id, new Date(`${candidate.cycle_start}T00:00:00.000Z`));
        if (row) created.push(row);
      } catch (err) {
        const failure: CloseFailure = {
          tenant_id: candidate.tenant_id,
          cycle: candidate.cycle_start.slice(0, 7),
          ...(err instanceof AppError && err.code !== 'internal_error'
            ? { error: err.code, message: err.message }
            : { error: 'internal_error', message: 'The invoice could not be made (see the service log).' }),
        };
        svc.logger.error(
          { err, tenantId: failure.tenant_id, cycle: failure.cycle },
          'billing: closing a cycle failed; it stays due and the next run tries it again',
        );
        opts.onFailure?.(failure);
      }
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!;
  }
  return created;
}

/**
 * The operators' close (`POST /api/v1/admin/billing/close`): closeCycles as of `at` (default now),
 * refused (400) when `at` would invoice a cycle that has not begun (close-at.ts). `failed` lists
 * the cycles that could not be invoiced this time (the others were).
 */
export async function closeCyclesAsOf(
  svc: Services,
  at = new Date(),
): Promise<{ at: Date; created: InvoiceRow[]; failed: CloseFailure[] }> {
  const refusal = futureCloseRefusal(at);
  if (refusal) throw invalidRequest(refusal, [{ path: 'at', message: refusal }]);
  const failed: CloseFailure[] = [];
  const created = await closeCycles(svc, { at, onFailure: (f) => failed.push(f) });
  return { at, created, failed };
}

/**
 * Makes the invoice of one tenant's cycle, once: under the tenant's advisory lock, checks that
 * none exists, computes it, numbers it max + 1 and inserts it with its event. Null when it
 * existed, or the total is 0.
 */
export async function closeTenantCycle(svc: Services, tenantId: string, cycleStart: Date): Promise<InvoiceRow | null> {
  const cycleEnd = addMonths(cycleStart, 1);
  return unitOfWork(svc, async (tx, out) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${INVOICE_LOCK_CLASS}::int, hashtext(${tenantId}))`);
    const [existing] = await tx
      .select({ id: invoices.id })
      .from(invoices)
      .where(and(eq(invoices.tenantId, tenantId), eq(invoices.cycleStart, ymd(cycleStart))));
    if (existing) return null;
    const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, tenantId));
    if (!tenant) return null;
    const changes = await tx
      .select({ changedAt: planChanges.changedAt, fromTerms: planChanges.fromTerms, toTerms: planChanges.toTerms })
      .from(planChanges)
      .where(and(eq(planChanges.tenantId, tenantId), gte(planChanges.changedAt, cycleStart)))
      .orderBy(asc(planChanges.changedAt), asc(planChanges.id));
    const [usage] = await tx
      .select({ executions: usageCounters.executions, overage: usageCounters.overage })
      .from(usageCounters)
      .where(and(eq(usageCounters.tenantId, tenantId), eq(usageCounters.cycleStart, ymd(cycleStart))));
    const overage = usage?.overage ?? 0;
    const included = Math.max(0, (usage?.executions ?? 0) - overage);
    const draft = draftInvoice({ currentTerms: termsSnapshot(tenant), changes, included, overage, cycleStart, cycleEnd });
    if (draft.totalMicroUsd <= 0) return null;

    const [{ next } = { next: 1 }] = await queryRows<{ next: number }>(
      tx,
      sql`select coalesce(max(${invoices.number}), 0)::int + 1 as next from ${invoices} where ${invoices.tenantId} = ${tenantId}`,
    );
    const [inserted] = await tx
      .insert(invoices)
      .values({
        id: newId('inv'),
        tenantId,
        number: next,
        cycleStart: ymd(cycleStart),
        periodStart: cycleStart,
        periodEnd: cycleEnd,
        status: 'open',
        currency: 'usd',
        lines: draft.lines,
        subtotalMicroUsd: draft.subtotalMicroUsd,
        totalMicroUsd: draft.totalMicroUsd,
        billedToName: tenant.agentName,
        billedToEmail: tenant.ownerEmail,
        dueAt: sql`clock_timestamp() + make_interval(days => ${INVOICE_NET_DAYS})`,
        // Taken after the lock: creation order is number order (the list is newest first).
        createdAt: sql`clock_timestamp()`,
        updatedAt: sql`clock_timestamp()`,
      })
      .onConflictDoNothing({ target: [invoices.tenantId, invoices.cycleStart] })
      .returning();
    if (!inserted) return null;
    await out.emit(tenantId, 'billing.invoice_created', {
      invoice_id: inserted.id,
      number: invoiceNumber(tenantId, inserted.number),
      tenant_id: tenantId,
      period_start: inserted.periodStart.toISOString(),
      period_end: inserted.periodEnd.toISOString(),
      total_usd: formatUsd(inserted.totalMicroUsd),
      currency: 'usd',
      status: inserted.status,
      invoice_url: invoicePath(inserted.id),
    });
    await recordAudit(tx, tenantId, {
      action: 'invoice.created',
      target: { type: 'invoice', id: inserted.id },
      changes: {
        number: invoiceNumber(tenantId, inserted.number),
        total_usd: formatUsd(inserted.totalMicroUsd),
        cycle_start: inserted.cycleStart,
      },
    });
    return inserted;
  });
}

export interface DraftInput {
  /** The tenant's terms now. */
  currentTerms: TermsSnapshot;
  /** The tenant's plan changes at or after the cycle start, oldest first (later ones too). */
  changes: readonly { changedAt: Date; fromTerms: TermsSnapshot; toTerms: TermsSnapshot }[];
  /** Executions of the cycle within the quota (a line at 0.00, so the invoice shows all usage). */
  included?: number;
  /** Overage executions counted in the cycle. */
  overage: number;
  cycleStart: Date;
  /** Exclusive. */
  cycleEnd: Date;
}

export interface Draft {
  lines: InvoiceLine[];
  subtotalMicroUsd: number;
  totalMicroUsd: number;
}

const PLAN_LABELS: Record<Plan, string> = { free: 'Free', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

const DAY_MS = 86_400_000;
const shortDay = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const monthName = (d: Date) => d.toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The lines and totals of a cycle's invoice (pure; see the top of this file for the rules). */
export function draftInvoice(input: DraftInput): Draft {
  const { cycleStart, cycleEnd } = input;
  const inCycle = input.changes.filter((c) => c.changedAt >= cycleStart && c.changedAt < cycleEnd);
  // In force when the cycle began: the first later change's `from_terms`, else today's terms.
  const startTerms = input.changes[0]?.fromTerms ?? input.currentTerms;
  const lines: InvoiceLine[] = [];

  const segments = prorateFees({ startTerms, changes: inCycle }, cycleStart, cycleEnd);
  const cycleDays = Math.round((cycleEnd.getTime() - cycleStart.getTime()) / DAY_MS);
  if (segments.length === 1) {
    const fee = segments[0]!.fee_micro_usd;
    if (fee > 0)
      lines.push({
        description: `${PLAN_LABELS[segments[0]!.terms.plan]} plan, ${monthName(cycleStart)}`,
        quantity: 1,
        unit_amount_micro_usd: fee,
        amount_micro_usd: roundToCent(fee),
      });
  } else {
    for (const s of segments) {
      const amount = roundToCent(s.fee_micro_usd);
      const last = new Date(s.to.getTime() - DAY_MS);
      lines.push({
        description: `${PLAN_LABELS[s.terms.plan]} plan, ${shortDay(s.from)} – ${shortDay(last)} (${s.days} of ${cycleDays} days)`,
        quantity: 1,
        unit_amount_micro_usd: amount,
        amount_micro_usd: amount,
      });
    }
  }

  if (input.included) {
    lines.push({
      description: `Executions included in the plan: ${input.included.toLocaleString('en-US')}`,
      quantity: input.included,
      unit_amount_micro_usd: 0,
      amount_micro_usd: 0,
    });
  }

  if (input.overage > 0) {
    // The terms at the cycle's end; if they pause at the quota (free), the last metered terms.
    const sequence = [startTerms, ...inCycle.map((c) => c.toTerms)].map(snapshotTerms);
    const priced = [...sequence].reverse().find((t) => !t.pausesAtQuota) ?? sequence.at(-1)!;
    const unit = priced.overageUnitMicroUsd;
    // Exact (bigint): a product past a safe integer is refused below, never rounded.
    const amount = roundToCentExact(BigInt(input.overage) * BigInt(unit));
    assertBillable(amount);
    lines.push({
      description: `Overage: ${input.overage.toLocaleString('en-US')} executions × ${formatUnitUsd(unit)} USD`,
      quantity: input.overage,
      unit_amount_micro_usd: unit,
      amount_micro_usd: Number(amount),
    });
  }

  for (const line of lines) assertBillable(line.amount_micro_usd);
  const subtotal = lines.reduce((sum, l) => sum + BigInt(l.amount_micro_usd), 0n);
  assertBillable(subtotal);
  return { lines, subtotalMicroUsd: Number(subtotal), totalMicroUsd: Number(subtotal) };
}

/**
 * A cycle's charges must be held exactly (money.ts MAX_USD_MICRO, 9,007,199,254.74 USD); terms
 * set before the price caps existed, or an absurd count, could pass it. Refused as 409 `conflict`
 * for that tenant and cycle only: its usage answers it, and the close skips it (logged) and tries
 * it again on the next run, once an operator has corrected the terms.
 */
function assertBillable(micro: number | bigint): void {
  if (isExactAmount(micro)) return;
  throw new AppError(
    'conflict',
    `The cycle's charges come to more than ${formatUsd(MAX_USD_MICRO)} USD, the largest amount the platform bills exactly: the tenant's terms (monthly fee, overage price) need an operator's correction.`,
  );
}
