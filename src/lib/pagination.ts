import { and, eq, lt, or, type AnyColumn, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { isSaneDate } from './dates';
import { invalidRequest } from './errors';
import { isStorableText } from './storable';

const DECIMAL_DIGITS = /^\d+$/;

/**
 * A whole number from a query string, from `min` to `max`, `fallback` when absent: plain decimal
 * digits only (`20`, `007`), so `0x10`, `1e1`, `2.0`, ` 5`, `+5` or an empty value are 400
 * `invalid_request` with the parameter's path (Number() would have read the first two as 16 and
 * 10). A JSON number (tRPC, MCP) is taken as it is, and must be an integer. Not digits, or given
 * twice (an array): "expected a whole number in decimal digits, given once"; the range checks keep
 * zod's words. The OpenAPI document shows the integer schema (a preprocessed input is described by
 * its target schema).
 */
export const queryInteger = (min: number, max: number, fallback: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && DECIMAL_DIGITS.test(value) ? Number(value) : value),
    z
      .number({
        error: (issue) =>
          issue.code === 'invalid_type' && issue.expected === 'number'
            ? 'expected a whole number in decimal digits, given once'
            : undefined,
      })
      .int()
      .min(min)
      .max(max)
      // Inside the pipe, so that the document shows it (zod-openapi drops a default around a pipe).
      .default(fallback),
  );

/** Query parameters of every list: `limit` (default 20, max 100) and an opaque `cursor`. */
export const listParams = {
  limit: queryInteger(1, 100, 20),
  // Long enough for a memory key's cursor (256 characters of any script).
  cursor: z.string().max(2048).optional(),
};

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });

/** Keyset cursor over (created_at, id): stable under inserts, opaque to clients. */
export interface Cursor {
  at: Date;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.at.toISOString(), c.id])).toString('base64url');
}

function invalidCursor() {
  return invalidRequest('The cursor is not valid.', [{ path: 'cursor', message: 'Invalid cursor' }]);
}

/**
 * The cursor `encodeCursor` issued, or 400 `invalid_request`: anything else (not base64url of
 * exactly `[ISO date, id]` in the service's own spelling, a date outside MIN_DATE..MAX_DATE, an
 * id PostgreSQL cannot store) never reaches a query.
 */
export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  if (!cursor) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalidCursor();
  const [at, id] = parsed as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || id === '' || !isStorableText(id)) throw invalidCursor();
  const date = new Date(at);
  if (!isSaneDate(date) || date.toISOString() !== at) throw invalidCursor();
  const decoded = { at: date, id };
  // Only the exact spelling the service issues (no padding, no stray characters, no other JSON).
  if (encodeCursor(decoded) !== cursor) throw invalidCursor();
  return decoded;
}

/** Turns `limit + 1` fetched rows into a page. */
export function toPage<R extends { createdAt: Date; id: string }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    data: items.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
  };
}

/**
 * The keyset condition for the page after `cursor` in newest-first order over (at, id):
 * rows strictly older, or as old with a smaller id. Undefined (no condition) without a cursor.
 */
export function beforeCursor(atColumn: AnyColumn, idColumn: AnyColumn, cursor: Cursor | undefined): SQL | undefined {
  if (!cursor) return undefined;
  return or(lt(atColumn, cursor.at), and(eq(atColumn, cursor.at), lt(idColumn, cursor.id)));
}
