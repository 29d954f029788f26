'use client';

import { useEffect, useState } from 'react';

/**
 * The current time for words like "in 14 min", the same in the server's render and the browser's
 * first one: `readAt` (when the page's data was read: a query's `dataUpdatedAt`, which the server
 * hands over with the data) until the page is mounted, then the clock, moved every `everyMs` when
 * given, and never before `readAt`. A clock read during the first render differs between server
 * and browser; React then discards the server's HTML and renders the page again, and whatever was
 * typed into it before it hydrated is lost.
 */
export function useNow(readAt: number, everyMs?: number): number {
  const [clock, setClock] = useState<number>();
  useEffect(() => {
    setClock(Date.now());
    if (!everyMs) return;
    const timer = setInterval(() => setClock(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return Math.max(clock ?? readAt, readAt);
}
