import { z } from 'zod';
import { isoDateTime, isSaneDate } from '../lib/dates';
import { listParams, pageSchema, queryInteger } from '../lib/pagination';

/** Rows one CSV export holds at most (`?format=csv`); `X-Next-Cursor` continues a longer one. */
export const AUDIT_CSV_MAX_ROWS = 10_000;

/** An action name, or a prefix ending in `.*` (`key.*`). */
const ACTION_FILTER = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\.\*)?$/;

const dateTime = isoDateTime();
const dateOnly = z.iso.date();

/**
 * An instant: an ISO 8601 date-time with its offset (`2026-01-31T12:00:00Z`) or a date
 * (`2026-01-31`, midnight UTC). Checked by a refinement, so that the document shows a plain
 * date-time string instead of the long pattern three operations would each repeat.
 */
const instant = () =>
  z
    .string()
    .max(64)
    .refine((s) => dateTime.safeParse(s).success || (dateOnly.safeParse(s).success && isSaneDate(new Date(s))), {
      message: 'expected an ISO 8601 date-time with an offset (2026-01-31T12:00:00Z) or a date (2026-01-31)',
    })
    .meta({ format: 'date-time' });

/** The filters of the tenant's listing and of its CSV export. */
export const auditFilters = {
  actor: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .describe(
      "Who acted: an actor id (a user id, an API key id, an operator's email or `admin_token`, `system`) or an email (case-insensitive)",
    ),
  action: z
    .string()
    .max(100)
    .regex(ACTION_FILTER, 'expected an action name (e.g. `key.created`) or a prefix ending in `.*` (e.g. `key.*`)')
    .optional()
    .describe('An action name (`key.created`), or every action of a resource with `.*` (`key.*`)'),
  target_type: z.string().min(1).max(64).optional().describe('The kind of thing acted on, e.g. `key`, `webhook`, `module`, `tenant`'),
  target_id: z.string().min(1).max(255).optional().describe('The id of the thing acted on (with or without `target_type`)'),
  since: instant().optional().describe('Only entries at or after this instant (ISO 8601)'),
  until: instant().optional().describe('Only entries before this instant (ISO 8601)'),
};

export const listAuditLogInput = z.strictObject({
  ...listParams,
  ...auditFilters,
  format: z
    .enum(['json', 'csv'])
    .optional()
    .describe('`csv` answers the filtered entries as a CSV file (the same as `GET /api/v1/audit-log.csv`); `json` (default) a page'),
});

export const auditLogCsvInput = z.strictObject({
  ...auditFilters,
  cursor: listParams.cursor,
  limit: queryInteger(1, AUDIT_CSV_MAX_ROWS, AUDIT_CSV_MAX_ROWS),
});

export const adminListAuditLogInput = z.strictObject({
  ...listParams,
  ...auditFilters,
  tenant_id: z.uuid().optional().describe("One tenant's entries only"),
});

export type AuditFilters = {
  actor?: string;
  action?: string;
  target_type?: string;
  target_id?: string;
  since?: string;
  until?: string;
};

export const auditLogEntryView = z
  .object({
    id: z.string(),
    at: z.string().describe('When (ISO 8601)'),
    actor: z
      .object({
        type: z.enum(['user', 'key', 'operator', 'system']),
        id: z.string().describe("The user id, the API key id, the operator's email (or `admin_token`), or `system`"),
        email: z.string().optional().describe("The user's or operator's email, when known"),
        key_id: z.string().optional().describe('The API key used, for a key'),
      })
      .describe('Who did it'),
    action: z.string().describe('`<resource>.<verb>`, e.g. `key.created` (docs/organizations.md lists them)'),
    target: z.object({ type: z.string(), id: z.string() }).describe('What it was done to'),
    ip: z.string().nullable().describe("The caller's IP address; null outside a request"),
    user_agent: z.string().nullable(),
    request_id: z.string().nullable().describe('The `X-Request-Id` of the request that made the change'),
    changes: z.record(z.string(), z.unknown()).describe('A summary of what changed: field names and new values, never a secret'),
  })
  .meta({ id: 'AuditLogEntry' });

export const auditLogPage = pageSchema(auditLogEntryView);

export const adminAuditLogEntryView = auditLogEntryView
  .extend({ tenant_id: z.string().nullable().describe('The tenant acted on; null for an operator action on no tenant') })
  .meta({ id: 'AdminAuditLogEntry' });

export const adminAuditLogPage = pageSchema(adminAuditLogEntryView);

/** A rendered CSV over tRPC (the dashboard); the REST API sends its bytes with `content_type` instead. */
export const auditLogCsv = z.object({
  filename: z.string().describe('e.g. "audit-log-2026-11-29.csv"'),
  content_type: z.literal('text/csv; charset=utf-8'),
  data_base64: z.string().describe('The CSV, base64-encoded'),
});
