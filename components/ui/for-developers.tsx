import type { ReactNode } from 'react';
import { cn } from './cn';

/**
 * Developer details (API paths, curl, keys, environment variables) kept out of the page's own
 * words: a closed disclosure. The end-to-end checks read a page's visible text without these.
 */
export function ForDevelopers({
  children,
  summary = 'For developers',
  className,
}: {
  children: ReactNode;
  summary?: string;
  className?: string;
}) {
  return (
    <details data-developer className={cn('group text-sm', className)}>
      <summary className="cursor-pointer font-medium text-slate-700 select-none hover:text-slate-900 dark:text-slate-300 dark:hover:text-slate-100">
        {summary}
      </summary>
      <div className="mt-3 grid gap-3">{children}</div>
    </details>
  );
}
