'use client';

import * as Collapsible from '@radix-ui/react-collapsible';
import { ChevronRight } from 'lucide-react';
import { useState } from 'react';
import { cn } from '@/components/ui/cn';

/** Pretty-printed JSON in a scrolling monospace block. */
export function JsonBlock({ value, label, className, testId }: { value: unknown; label: string; className?: string; testId?: string }) {
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      data-testid={testId}
      className={cn(
        'max-h-96 overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs text-slate-900 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100',
        className,
      )}
    >
      {JSON.stringify(value, null, 2) ?? 'undefined'}
    </pre>
  );
}

/** A titled JSON block that opens on demand (Radix Collapsible: a real button with aria-expanded). */
export function CollapsibleJson({ title, value, defaultOpen = false }: { title: string; value: unknown; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <Collapsible.Root open={open} onOpenChange={setOpen} className="grid min-w-0 gap-2">
      <Collapsible.Trigger className="inline-flex w-fit items-center gap-1 rounded-sm text-sm font-medium text-slate-800 hover:text-indigo-700 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:text-slate-200 dark:hover:text-indigo-300">
        <ChevronRight aria-hidden="true" className={cn('size-4 transition-transform', open && 'rotate-90')} />
        {title}
      </Collapsible.Trigger>
      <Collapsible.Content className="min-w-0">
        <JsonBlock value={value} label={title} />
      </Collapsible.Content>
    </Collapsible.Root>
  );
}
