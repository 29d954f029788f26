import { closeCyclesAsOf } from '../../billing/close';
import {
  closeCyclesInput,
  closeCyclesResult,
  getInvoiceInput,
  invoiceIdInput,
  invoiceList,
  invoicePdf,
  invoiceView,
  listInvoicesInput,
} from '../../billing/invoice-schema';
import { getInvoice, getInvoicePdf, listInvoices, presentInvoice, settleInvoice } from '../../billing/invoices';
import { adminProcedure, apiProcedure, router } from '../trpc';

const readBilling = apiProcedure('billing:read');
const tags = ['billing'];
const withId = { 404: "No such invoice (another tenant's invoice is indistinguishable from none: `not_found`)" };
const admin = { 401: 'Missing or wrong `x-admin-token` (`unauthorized`)' };

const PDF_NOTE =
  'The PDF (A4, rendered with pdfkit) shows the tenant, number, period, status, the lines, subtotal and total. Authenticated, rate-limited and scoped exactly as the JSON invoice.';

export const invoicesRouter = router({
  list: readBilling
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/invoices',
        tags,
        summary: "List the tenant's invoices",
        description:
          'Newest first, paginated (`limit`, `cursor`); `status` filters. One invoice per closed billing cycle (calendar month, UTC) with something to bill: the monthly fee (prorated by days on each plan when the plan changed in the cycle) and the overage. Money is USD decimal strings with two decimals (unit prices as many as needed).',
        errorResponses: { 400: 'Invalid query (`invalid_request`): `limit`, `cursor` or `status`' },
      },
    })
    .input(listInvoicesInput)
    .output(invoiceList)
    .query(({ ctx, input }) => listInvoices(ctx.svc, ctx.principal.tenantId, input)),

  // Declared before `get`: its path is the more specific one.
  pdf: readBilling
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/invoices/{id}.pdf',
        tags,
        summary: 'Download an invoice as PDF',
        description: `Answers \`application/pdf\` (\`Content-Disposition: inline\`, file named after the invoice number); the same as \`GET /api/v1/billing/invoices/{id}?format=pdf\`. ${PDF_NOTE} Over tRPC the file comes base64-encoded.`,
        errorResponses: withId,
      },
      file: true,
    })
    .input(invoiceIdInput)
    .output(invoicePdf)
    .query(async ({ ctx, input }) => {
      const { filename, pdf } = await getInvoicePdf(ctx.svc, ctx.principal.tenantId, input.id);
      return { filename, content_type: 'application/pdf' as const, data_base64: pdf.toString('base64') };
    }),

  get: readBilling
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/invoices/{id}',
        tags,
        summary: 'Get an invoice',
        description: `Lines \`{description, quantity, unit_amount_usd, amount_usd}\`, \`subtotal_usd\`, \`total_usd\` (no tax), \`status\` (\`open\`, then \`paid\` or \`void\`). \`?format=pdf\` answers the PDF instead (\`application/pdf\`, as \`/api/v1/billing/invoices/{id}.pdf\`). ${PDF_NOTE}`,
        errorResponses: { 400: 'Invalid query (`invalid_request`): `format` other than `json` or `pdf`', ...withId },
      },
      formats: { pdf: 'invoices.pdf' },
    })
    .input(getInvoiceInput)
    .output(invoiceView)
    .query(({ ctx, input }) => getInvoice(ctx.svc, ctx.principal.tenantId, input.id)),

  pay: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/invoices/{id}/pay',
        protect: false,
        tags: ['admin'],
        summary: 'Mark an invoice paid (operators)',
        description:
          'Payment happens outside the service (no payment provider): an operator records it. Only an `open` invoice can be paid; `paid_at` is set.',
        errorResponses: {
          ...admin,
          404: 'No such invoice (or the admin API is disabled: `not_found`)',
          409: 'The invoice is not `open` (already `paid` or `void`): `conflict`, with its `status`',
        },
      },
    })
    .input(invoiceIdInput)
    .output(invoiceView)
    .mutation(({ ctx, input }) => settleInvoice(ctx.svc, input.id, 'paid')),

  void: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/invoices/{id}/void',
        protect: false,
        tags: ['admin'],
        summary: 'Void an invoice (operators)',
        description:
          'Cancels an `open` invoice (`voided_at` is set); it stays listed, with status `void`. Its cycle is not invoiced again.',
        errorResponses: {
          ...admin,
          404: 'No such invoice (or the admin API is disabled: `not_found`)',
          409: 'The invoice is not `open` (already `paid` or `void`): `conflict`, with its `status`',
        },
      },
    })
    .input(invoiceIdInput)
    .output(invoiceView)
    .mutation(({ ctx, input }) => settleInvoice(ctx.svc, input.id, 'void')),

  close: adminProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/billing/close',
        protect: false,
        tags: ['admin'],
        summary: 'Close ended billing cycles now (operators)',
        description:
          'What the hourly job does, on demand: every tenant gets an invoice for each cycle that ended at or before `at` (default now) and has something to bill and no invoice yet, with its `billing.invoice_created` event. Idempotent: a cycle is invoiced once however often, and on however many instances, this runs. Each tenant is closed on its own: a cycle that cannot be invoiced (e.g. charges past the largest exact amount, 409 `conflict` on its usage) is listed under `failed`, logged, and tried again by the next run, and the others are invoiced all the same. The same as `npm run billing:close -- --at <ISO time>`, for a running service (an embedded database can only be opened by the running process).',
        errorResponses: {
          400: 'Invalid body (`invalid_request`): `at` not an ISO 8601 date-time, or not before the end of the next cycle (a later one would invoice cycles that have not begun)',
          ...admin,
        },
      },
    })
    .input(closeCyclesInput)
    .output(closeCyclesResult)
    .mutation(async ({ ctx, input }) => {
      const { at, created, failed } = await closeCyclesAsOf(ctx.svc, input.at ? new Date(input.at) : undefined);
      return { at: at.toISOString(), invoices: created.map(presentInvoice), failed };
    }),
});
