import type { ReactNode } from 'react';
import { SessionKeeper } from '../../components/session-keeper';

/**
 * The signed-in part of the dashboard. Each page checks the session itself (requireSession), so
 * a visit without one is redirected to /sign-in and comes back afterwards. The session keeper
 * refreshes the identity provider's access token while a page stays open.
 */
export default function DashboardLayout({ children }: { children: ReactNode }) {
  return (
    <SessionKeeper>
      <main id="main" className="mx-auto w-full max-w-5xl px-4 py-8 sm:px-6 sm:py-10">
        {children}
      </main>
    </SessionKeeper>
  );
}
