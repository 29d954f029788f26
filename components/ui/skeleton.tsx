import type { HTMLAttributes } from 'react';
import { cn } from './cn';

/** A placeholder block while data loads (hidden from assistive technology; the region says it is busy). */
export function Skeleton({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div aria-hidden="true" className={cn('animate-pulse rounded-md bg-slate-200 dark:bg-slate-800', className)} {...props} />;
}

/** Rows of skeleton lines for a loading table or list, announced once as loading. */
export function SkeletonRows({ rows = 5, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-live="polite" className="grid gap-2">
      <span className="sr-only">{label}…</span>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className="h-9 w-full" />
      ))}
    </div>
  );
}
