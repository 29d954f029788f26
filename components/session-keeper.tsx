'use client';

import { SessionProvider } from 'next-auth/react';
import type { ReactNode } from 'react';

/**
 * next-auth's session provider: it reads /api/auth/session when a page opens, every few
 * minutes and when the window regains focus; each read refreshes the access token shortly
 * before it expires and writes the session cookie back (server components cannot).
 */
export function SessionKeeper({ children }: { children: ReactNode }) {
  return (
    <SessionProvider refetchInterval={4 * 60} refetchOnWindowFocus>
      {children}
    </SessionProvider>
  );
}
