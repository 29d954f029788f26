import { inArray } from 'drizzle-orm';
import type { Executor } from '../db';
import { events } from '../db/schema';
import { compileFilter, FilterSyntaxError, matchesFilter } from '../lib/event-filter';
import { invalidRequest } from '../lib/errors';

export { matchesFilter };

/** Events whose data are loaded at once to test a filter (a recorded event's data is up to 64 KB). */
const DATA_CHUNK = 500;

/**
 * The recorded events (in their order) that the subscription's filter takes, for the paths that
 * send recorded events again (replay, recover): without a filter, `rows` as they are; with one,
 * each event's data is read (DATA_CHUNK at a time) and tested as a new event would be.
 */
export async function matchingEvents<T extends { id: string; type: string }>(
  db: Executor,
  subscription: { filter: string | null },
  rows: T[],
): Promise<T[]> {
  if (subscription.filter === null || rows.length === 0) return rows;
  const kept: T[] = [];
  for (let i = 0; i < rows.length; i += DATA_CHUNK) {
    const chunk = rows.slice(i, i + DATA_CHUNK);
    const found = await db
      .select({ id: events.id, data: events.data })
      .from(events)
      .where(
        inArray(
          events.id,
          chunk.map((r) => r.id),
        ),
      );
    const data = new Map(found.map((r) => [r.id, r.data]));
    for (const row of chunk) if (matchesFilter(subscription, { type: row.type, data: data.get(row.id) ?? null })) kept.push(row);
  }
  return kept;
}

/** A filter as saved: trimmed, null for none; 400 with the position and reason when it does not parse. */
export function checkFilter(filter: string | null | undefined): string | null | undefined {
  if (filter === undefined || filter === null) return filter;
  try {
    compileFilter(filter);
  } catch (err) {
    if (!(err instanceof FilterSyntaxError)) throw err;
    const message = `The filter is not valid: ${err.reason} at position ${err.position}.`;
    throw invalidRequest(message, [{ path: 'filter', message }]);
  }
  return filter;
}
