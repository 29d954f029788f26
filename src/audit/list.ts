import { and, desc, eq, gte, like, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { PLANS } from '../contract/plans';
import { auditLog, type AuditLogRow } from '../db/schema';
import { beforeCursor, decodeCursor, encodeCursor, type Page } from '../lib/pagination';
import type { Services } from '../services';
import type { AuditFilters } from './schema';

const DAY_MS = 24 * 3600 * 1000;

/** The oldest instant a tenant on `plan` still sees (its plan's `auditRetentionDays`). */
export function retentionStart(plan: Principal['plan'], now = Date.now()): Date {
  return new Date(now - PLANS[plan].auditRetentionDays * DAY_MS);
}

/** `value` as a literal inside a LIKE pattern. */
const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The query's filters as conditions (none of them a secret: the log holds none). */
function filterConditions(input: AuditFilters): (SQL | undefined)[] {
  const a = auditLog;
  const actor = input.actor;
  return [
    actor === undefined
      ? undefined
      : or(
          eq(a.actorId, actor),
          eq(a.actorKeyId, actor),
          actor.includes('@') ? sql`lower(${a.actorEmail}) = ${actor.toLowerCase()}` : undefined,
        ),
    input.action === undefined
      ? undefined
      : input.action.endsWith('.*')
        ? like(a.action, `${escapeLike(input.action.slice(0, -1))}%`)
        : eq(a.action, input.action),
    input.target_type === undefined ? undefined : eq(a.targetType, input.target_type),
    input.target_id === undefined ? undefined : eq(a.targetId, input.target_id),
    input.since === undefined ? undefined : gte(a.at, new Date(input.since)),
    input.until === undefined ? undefined : lt(a.at, new Date(input.until)),
  ];
}

export function presentAuditEntry(row: AuditLogRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: {
      type: row.actorType,
      id: row.actorId,
      ...(row.actorEmail ? { email: row.actorEmail } : {}),
      ...(row.actorKeyId ? { key_id: row.actorKeyId } : {}),
    },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    ip: row.ip,
    user_agent: row.userAgent,
    request_id: row.requestId,
    changes: row.changes,
  };
}

export type AuditEntryView = ReturnType<typeof presentAuditEntry>;

function page<T>(rows: AuditLogRow[], limit: number, map: (row: AuditLogRow) => T): Page<T> {
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    data: items.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ at: last.at, id: last.id }) : null,
  };
}

/** The tenant's entries, newest first, within its plan's retention (the index on tenant, at, id). */
async function tenantEntries(svc: Services, principal: Principal, input: AuditFilters & { cursor?: string; limit: number }) {
  const a = auditLog;
  const after = decodeCursor(input.cursor);
  const rows = await svc.db
    .select()
    .from(a)
    .where(
      and(
        eq(a.tenantId, principal.tenantId),
        gte(a.at, retentionStart(principal.plan)),
        ...filterConditions(input),
        beforeCursor(a.at, a.id, after),
      ),
    )
    .orderBy(desc(a.at), desc(a.id))
    .limit(input.limit + 1);
  return rows;
}

/** GET /api/v1/audit-log: the tenant's entries, newest first, filtered. */
export async function listAuditLog(svc: Services, principal: Principal, input: AuditFilters & { cursor?: string; limit: number }) {
  return page(await tenantEntries(svc, principal, input), input.limit, presentAuditEntry);
}

const CSV_COLUMNS = [
  'id',
  'at',
  'actor_type',
  'actor_id',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'ip',
  'user_agent',
  'request_id',
  'changes',
] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * A cell a spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return) is prefixed with a single quote first.
 */
export function csvCell(value: string | null | undefined): string {
  let text = value ?? '';
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function auditCsv(rows: AuditLogRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of rows) {
    lines.push(
      [
        r.id,
        r.at.toISOString(),
        r.actorType,
        r.actorId,
        r.actorEmail,
        r.action,
        r.targetType,
        r.targetId,
        r.ip,
        r.userAgent,
        r.requestId,
        JSON.stringify(r.changes ?? {}),
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * GET /api/v1/audit-log.csv (and `?format=csv`): the same filtered entries as a CSV file, newest
 * first, at most `limit` rows (AUDIT_CSV_MAX_ROWS); `next_cursor` continues a longer export.
 */
export async function exportAuditLogCsv(svc: Services, principal: Principal, input: AuditFilters & { cursor?: string; limit: number }) {
  const rows = await tenantEntries(svc, principal, input);
  const items = rows.slice(0, input.limit);
  const last = items.at(-1);
  return {
    filename: `audit-log-${new Date().toISOString().slice(0, 10)}.csv`,
    csv: auditCsv(items),
    next_cursor: rows.length > input.limit && last ? encodeCursor({ at: last.at, id: last.id }) : null,
  };
}

/** GET /api/v1/admin/audit-log: every tenant's entries (and the operator's on no tenant), newest first. */
export async function listAuditLogAsOperator(svc: Services, input: AuditFilters & { tenant_id?: string; cursor?: string; limit: number }) {
  const a = auditLog;
  const after = decodeCursor(input.cursor);
  const rows = await svc.db
    .select()
    .from(a)
    .where(
      and(
        input.tenant_id === undefined ? undefined : eq(a.tenantId, input.tenant_id),
        ...filterConditions(input),
        beforeCursor(a.at, a.id, after),
      ),
    )
    .orderBy(desc(a.at), desc(a.id))
    .limit(input.limit + 1);
  return page(rows, input.limit, (row) => ({ ...presentAuditEntry(row), tenant_id: row.tenantId }));
}
