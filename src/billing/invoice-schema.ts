import { z } from 'zod';
import { isoDateTime } from '../lib/dates';
import { listParams, pageSchema } from '../lib/pagination';

/** Zod input and output of the invoice operations (wire format: snake_case, money as decimal strings in USD). */

const invoiceId = z.string().min(1).max(64).describe('Invoice identifier (`inv_...`)');
const usd = (what: string) =>
  z.string().describe(`${what}: a decimal string in USD with exactly two decimals (cents, rounded half-up), e.g. "29.25"`);

export const INVOICE_STATUSES = ['open', 'paid', 'void'] as const;

export const invoiceLine = z
  .object({
    description: z
      .string()
      .describe('e.g. "Pro plan, November 2026", "Pro plan, 20 Nov – 30 Nov (11 of 30 days)", "Overage: 250 executions × 0.001 USD"'),
    quantity: z.number().int().describe('Units billed: 1 for a fee, the executions for overage'),
    unit_amount_usd: z
      .string()
      .describe('Price of one unit: a decimal string in USD with as many decimals as needed, at least two (e.g. "0.001", "29.00")'),
    amount_usd: usd('quantity × unit price'),
  })
  .meta({ id: 'InvoiceLine' });

export const invoiceView = z
  .object({
    id: z.string().describe('`inv_...`'),
    number: z
      .string()
      .describe(
        'Human-readable number, sequential per tenant: `AMP-` + the first 8 characters of the tenant id + `-` + the sequence from 0001, e.g. "AMP-3F2A9C1B-0002"',
      ),
    tenant_id: z.string(),
    billed_to: z
      .object({ name: z.string().describe("The tenant's name"), email: z.string().describe("The owner's email") })
      .describe('Who the invoice is addressed to, as the tenant was when it was issued'),
    status: z.enum(INVOICE_STATUSES).describe('`open` when created; an operator marks it `paid` or `void` (final states)'),
    currency: z.literal('usd'),
    period_start: z.string().describe('Start of the billed cycle (first instant of a calendar month, UTC, inclusive)'),
    period_end: z.string().describe('End of the billed cycle (first instant of the next month, UTC, exclusive)'),
    lines: z.array(invoiceLine),
    subtotal_usd: usd('Sum of the lines'),
    total_usd: usd('Amount due (no tax is applied: equal to the subtotal)'),
    created_at: z.string().describe('When it was issued'),
    due_at: z.string().describe('When payment is due: 14 days after it was issued'),
    paid_at: z.string().nullable(),
    voided_at: z.string().nullable(),
    pdf_url: z.string().describe('Path of the PDF rendering (`/api/v1/billing/invoices/{id}.pdf`)'),
  })
  .meta({ id: 'Invoice' });

export type InvoiceView = z.infer<typeof invoiceView>;

export const invoiceList = pageSchema(invoiceView);

export const listInvoicesInput = z.strictObject({
  ...listParams,
  status: z.enum(INVOICE_STATUSES).optional().describe('Only invoices in this status'),
});

export type ListInvoicesInput = z.infer<typeof listInvoicesInput>;

export const invoiceIdInput = z.strictObject({ id: invoiceId });

export const getInvoiceInput = z.strictObject({
  id: invoiceId,
  format: z
    .enum(['json', 'pdf'])
    .optional()
    .describe(
      '`pdf` answers the invoice as `application/pdf` (the same as `GET /api/v1/billing/invoices/{id}.pdf`); `json` (default) this object',
    ),
});

/** A rendered file over tRPC (the dashboard); the REST API sends its bytes with `content_type` instead. */
export const invoicePdf = z.object({
  filename: z.string().describe('e.g. "AMP-3F2A9C1B-0002.pdf"'),
  content_type: z.literal('application/pdf'),
  data_base64: z.string().describe('The PDF, base64-encoded'),
});

export const closeCyclesInput = z.strictObject({
  at: isoDateTime()
    .optional()
    .describe(
      'Close every cycle that ended at or before this instant (ISO 8601; default now). A future instant closes the current cycle early: executions after it in that cycle are then never billed. Must be before the end of the next cycle (a later instant would invoice cycles that have not begun: 400).',
    ),
});

export const closeCyclesResult = z
  .object({
    at: z.string().describe('The instant the cycles were closed as of'),
    invoices: z
      .array(invoiceView)
      .describe('The invoices this call created (none when every ended cycle was already invoiced or had nothing to bill)'),
    failed: z
      .array(
        z.object({
          tenant_id: z.string(),
          cycle: z.string().describe('`YYYY-MM`'),
          error: z
            .string()
            .describe(
              'The error code: `conflict` when the charges pass the largest amount billed exactly (9007199254.74 USD), `internal_error` otherwise',
            ),
          message: z.string(),
        }),
      )
      .describe(
        'Cycles that could not be invoiced this time: nothing of them was written, each was logged, and the next run tries them again (usually empty)',
      ),
  })
  .meta({ id: 'CloseCyclesResult' });
