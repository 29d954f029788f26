import { recordAudit } from '../audit/record';
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../db';
import { invoices, type InvoiceRow } from '../db/schema';
import { AppError, notFound } from '../lib/errors';
import { beforeCursor, decodeCursor, toPage } from '../lib/pagination';
import type { Services } from '../services';
import type { InvoiceView, ListInvoicesInput } from './invoice-schema';
import { renderInvoicePdf } from './invoice-pdf';
import { formatUnitUsd, formatUsd } from './money';

/** `AMP-` + the tenant's first 8 id characters + the per-tenant sequence: unique, and readable on a phone call. */
export function invoiceNumber(tenantId: string, sequence: number): string {
  return `AMP-${tenantId.replaceAll('-', '').slice(0, 8).toUpperCase()}-${String(sequence).padStart(4, '0')}`;
}

export const invoicePath = (id: string) => `/api/v1/billing/invoices/${id}`;

/** The wire form of an invoice row (money as USD decimal strings such as `"29.25"`: docs/billing.md). */
export function presentInvoice(row: InvoiceRow): InvoiceView {
  return {
    id: row.id,
    number: invoiceNumber(row.tenantId, row.number),
    tenant_id: row.tenantId,
    billed_to: { name: row.billedToName, email: row.billedToEmail },
    status: row.status,
    currency: 'usd',
    period_start: row.periodStart.toISOString(),
    period_end: row.periodEnd.toISOString(),
    lines: row.lines.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unit_amount_usd: formatUnitUsd(l.unit_amount_micro_usd),
      amount_usd: formatUsd(l.amount_micro_usd),
    })),
    subtotal_usd: formatUsd(row.subtotalMicroUsd),
    total_usd: formatUsd(row.totalMicroUsd),
    created_at: row.createdAt.toISOString(),
    due_at: row.dueAt.toISOString(),
    paid_at: row.paidAt?.toISOString() ?? null,
    voided_at: row.voidedAt?.toISOString() ?? null,
    pdf_url: `${invoicePath(row.id)}.pdf`,
  };
}

/** GET /api/v1/billing/invoices: the tenant's invoices, newest first. */
export async function listInvoices(svc: Services, tenantId: string, input: ListInvoicesInput) {
  const cursor = decodeCursor(input.cursor);
  const i = invoices;
  const rows = await svc.db
    .select()
    .from(i)
    .where(and(eq(i.tenantId, tenantId), input.status ? eq(i.status, input.status) : undefined, beforeCursor(i.createdAt, i.id, cursor)))
    .orderBy(desc(i.createdAt), desc(i.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, presentInvoice);
}

async function findInvoice(db: Executor, tenantId: string, id: string): Promise<InvoiceRow> {
  const [row] = await db
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, id), eq(invoices.tenantId, tenantId)));
  if (!row) throw notFound('invoice');
  return row;
}

/** GET /api/v1/billing/invoices/{id}: the tenant's invoice; another tenant's is 404 like none. */
export async function getInvoice(svc: Services, tenantId: string, id: string): Promise<InvoiceView> {
  return presentInvoice(await findInvoice(svc.db, tenantId, id));
}

/** GET /api/v1/billing/invoices/{id}.pdf: the same invoice (same lookup, same 404) rendered as a PDF. */
export async function getInvoicePdf(svc: Services, tenantId: string, id: string): Promise<{ filename: string; pdf: Buffer }> {
  const invoice = await getInvoice(svc, tenantId, id);
  return { filename: `${invoice.number}.pdf`, pdf: await renderInvoicePdf(invoice) };
}

/**
 * Operators: POST /api/v1/admin/invoices/{id}/pay and /void. Only an `open` invoice moves (to
 * `paid` or `void`, both final): the conditional update decides, so two racing calls cannot both
 * succeed; anything else is 409 `conflict` naming the current status.
 */
export async function settleInvoice(svc: Services, id: string, to: 'paid' | 'void'): Promise<InvoiceView> {
  const now = new Date();
  const row = await svc.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(invoices)
      .set(to === 'paid' ? { status: 'paid', paidAt: now, updatedAt: now } : { status: 'void', voidedAt: now, updatedAt: now })
      .where(and(eq(invoices.id, id), eq(invoices.status, 'open')))
      .returning();
    if (updated)
      await recordAudit(tx, updated.tenantId, {
        action: to === 'paid' ? 'invoice.paid' : 'invoice.voided',
        target: { type: 'invoice', id: updated.id },
        changes: { number: invoiceNumber(updated.tenantId, updated.number), status: { from: 'open', to } },
      });
    return updated;
  });
  if (row) return presentInvoice(row);
  const [current] = await svc.db.select({ status: invoices.status }).from(invoices).where(eq(invoices.id, id));
  if (!current) throw notFound('invoice');
  throw new AppError('conflict', `The invoice is ${current.status}; only an open invoice can be marked ${to}.`, { status: current.status });
}
