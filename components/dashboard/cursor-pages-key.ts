/** The cache key of useCursorPages' pages for a procedure's query key (for optimistic updates and server prefetches). */
export const cursorPagesKey = (key: readonly unknown[]) => [...key, 'pages'] as const;
