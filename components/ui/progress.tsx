'use client';

import * as ProgressPrimitive from '@radix-ui/react-progress';
import { cn } from './cn';

/** A labelled progress bar (Radix: role=progressbar with aria-valuenow/max). */
export function Progress({
  value,
  max = 100,
  label,
  tone = 'default',
  className,
}: {
  value: number;
  max?: number;
  label: string;
  tone?: 'default' | 'warning' | 'danger';
  className?: string;
}) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  const bar = tone === 'danger' ? 'bg-red-600' : tone === 'warning' ? 'bg-amber-500' : 'bg-indigo-600 dark:bg-indigo-400';
  return (
    <ProgressPrimitive.Root
      aria-label={label}
      value={Math.min(value, max)}
      max={max}
      className={cn('relative h-2.5 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800', className)}
    >
      <ProgressPrimitive.Indicator className={cn('h-full transition-all', bar)} style={{ width: `${pct}%` }} />
    </ProgressPrimitive.Root>
  );
}
