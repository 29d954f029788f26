import { z } from 'zod';

/**
 * The dates a request may name (cursors, `since`/`until` filters): 1970-01-01T00:00:00.000Z up to
 * 9999-12-31T23:59:59.999Z. Nothing the service stores lies outside, and JavaScript's extremes
 * (year -271821, +275760, 0000) are not valid PostgreSQL timestamps: outside is a 400.
 */
export const MIN_DATE = new Date('1970-01-01T00:00:00.000Z');
export const MAX_DATE = new Date('9999-12-31T23:59:59.999Z');

export function isSaneDate(date: Date): boolean {
  const t = date.getTime();
  return t >= MIN_DATE.getTime() && t <= MAX_DATE.getTime();
}

/** An ISO 8601 date-time with `Z` or an offset, between MIN_DATE and MAX_DATE. */
export const isoDateTime = () =>
  z.iso
    .datetime({ offset: true })
    .refine((s) => isSaneDate(new Date(s)), 'Dates must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z');
