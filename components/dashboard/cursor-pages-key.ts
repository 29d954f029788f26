/** The cache key of useCursorPages' pages for a procedure's query key (for optimistic updates and server prefetches). */
export const cursorPagesKey = (key: readonly unknown[]) => [...key, 'pages'] as const;

/**
 * The infinite-query options of a "Load more" list: its pages under `cursorPagesKey(key)`, each
 * fetched with the previous page's `next_cursor`. Shared by the browser's useCursorPages and the
 * server's prefetch, so both fill the same cache entry the same way.
 */
export function cursorPagesOptions<P extends { next_cursor: string | null }>(
  key: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<P>,
) {
  return {
    queryKey: cursorPagesKey(key),
    queryFn: ({ pageParam }: { pageParam: string | undefined }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page: P) => page.next_cursor ?? undefined,
  };
}
