import { Link } from '@/components/ui/link';
import type { DashboardSessionView } from '@/client/session';
import { SignOutButton } from './sign-out-button';
import { Button } from './ui/button';

/** The top bar of every page: the product, where to go, and who is signed in. */
export function SiteHeader({ session }: { session: DashboardSessionView | null }) {
  const who = session ? (session.email ?? `Tenant ${session.tenantId?.slice(0, 8) ?? ''} (API key)`) : null;
  return (
    <header className="border-b border-slate-200 bg-white/80 backdrop-blur dark:border-slate-800 dark:bg-slate-950/80 print:hidden">
      <div className="mx-auto flex h-14 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6">
        <Link
          href="/"
          className="rounded-sm font-semibold tracking-tight focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
        >
          Agent Module Platform
        </Link>
        <nav aria-label="Account" className="flex items-center gap-2 text-sm">
          {session ? (
            <>
              <span className="hidden max-w-56 truncate text-slate-600 sm:inline dark:text-slate-400" data-testid="signed-in-as">
                {who}
                {session.admin ? (
                  <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">
                    Operator
                  </span>
                ) : null}
              </span>
              <Button asChild variant="ghost" size="sm">
                <Link href="/account">Account</Link>
              </Button>
              <SignOutButton />
            </>
          ) : (
            <>
              <Button asChild variant="ghost" size="sm">
                <Link href="/sign-in">Sign in</Link>
              </Button>
              <Button asChild size="sm">
                <Link href="/sign-up">Sign up</Link>
              </Button>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}
