import { exportAuditLogCsv, listAuditLog } from '../../audit/list';
import { AUDIT_CSV_MAX_ROWS, auditLogCsv, auditLogCsvInput, auditLogPage, listAuditLogInput } from '../../audit/schema';
import { apiProcedure, router } from '../trpc';

const readAudit = apiProcedure('audit:read');
const tags = ['audit'];
const errorResponses = {
  400: 'Invalid query (`invalid_request`, with `issues`): a filter, `since`/`until` not ISO 8601, `limit` or `cursor`',
  403: 'Of the roles, owner and admin hold it',
};
const FILTERS =
  'Filters: `actor` (id or email), `action` (exact, or `key.*`), `target_type`, `target_id`, `since` (inclusive) and `until` (exclusive). ' +
  "Entries past the plan's audit retention (free 30 days, pro 90, business 365, enterprise 730) are not listed.";

export const auditRouter = router({
  // Declared before `list`: its path is the more specific one.
  csv: readAudit
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/audit-log.csv',
        tags,
        summary: 'Export the audit log as CSV',
        description:
          `The entries of \`GET /api/v1/audit-log\` with its filters as \`text/csv\` (RFC 4180, header row; \`changes\` as JSON), newest first, at most \`limit\` rows (default and maximum ${AUDIT_CSV_MAX_ROWS.toLocaleString('en-US')}); \`X-Next-Cursor\` continues a longer export. ` +
          "Cells starting with `=`, `+`, `-` or `@` get a leading `'` (no spreadsheet formulas). The same as `?format=csv` on the listing.",
        errorResponses,
      },
      file: true,
      fileMediaType: 'text/csv',
    })
    .input(auditLogCsvInput)
    .output(auditLogCsv)
    .query(async ({ ctx, input }) => {
      const { filename, csv, next_cursor } = await exportAuditLogCsv(ctx.svc, ctx.principal, input);
      if (next_cursor) ctx.res.headers['X-Next-Cursor'] = next_cursor;
      return { filename, content_type: 'text/csv; charset=utf-8' as const, data_base64: Buffer.from(csv, 'utf8').toString('base64') };
    }),

  list: readAudit
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/audit-log',
        tags,
        summary: "List the tenant's audit log",
        description:
          'Who changed what in the tenant (keys, webhooks, modules, members, workflows, plan, memory deletes, operator actions), with the actor, target, IP address, user agent, request id and a summary of the change (never a secret). Newest first, paginated. ' +
          FILTERS +
          ' `?format=csv` answers the CSV export.',
        errorResponses: { ...errorResponses, 400: `${errorResponses[400]}, or \`format\` other than \`json\` or \`csv\`` },
      },
      formats: { csv: 'auditLog.csv' },
    })
    .input(listAuditLogInput)
    .output(auditLogPage)
    .query(({ ctx, input }) => listAuditLog(ctx.svc, ctx.principal, input)),
});
