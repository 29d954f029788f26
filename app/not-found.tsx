// Any path no page answers (Next's own 404 page had no landmark, navigation or way back).
import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { Button } from '@/components/ui/button';

export const metadata: Metadata = { title: 'Page not found' };

export default function NotFound() {
  return (
    <main id="main" className="mx-auto flex w-full max-w-3xl flex-col px-6 py-14 sm:py-20">
      <p className="text-sm font-semibold tracking-wider text-indigo-700 uppercase dark:text-indigo-300">404</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight">Page not found</h1>
      <p className="mt-4 text-slate-700 dark:text-slate-300">
        There is no page at this address. It may have moved, or the link may be mistyped.
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <Button asChild>
          <Link href="/dashboard">Go to the dashboard</Link>
        </Button>
        <Button asChild variant="secondary">
          <Link href="/">Home</Link>
        </Button>
      </div>
    </main>
  );
}
