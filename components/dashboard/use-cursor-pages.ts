'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { cursorPagesKey, cursorPagesOptions } from './cursor-pages-key';

interface CursorPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export { cursorPagesKey };

/**
 * A list procedure's pages, fetched with its `cursor` ("Load more"). The tRPC integration's own
 * infiniteQueryOptions adds a `direction` field to the input, which the procedures' strict input
 * schemas refuse (as REST refuses an unknown parameter), so the pages are fetched with the plain
 * client and the given input only. `key`: the procedure's query key for that input. The pages keep
 * the procedure's own type (a page may carry more than the cursor fields, e.g. a search's extent).
 */
export function useCursorPages<P extends CursorPage<unknown>>(
  key: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<P>,
) {
  return useInfiniteQuery(cursorPagesOptions(key, fetchPage));
}
