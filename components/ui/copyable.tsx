'use client';

import { useState } from 'react';
import { Button } from './button';
import { cn } from './cn';

/** A value in a monospace box with a copy button (secrets shown once, keys, commands). */
export function Copyable({ value, label, className, testId }: { value: string; label: string; className?: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className={cn('flex items-start gap-2', className)}>
      <code
        data-testid={testId}
        className="block min-w-0 flex-1 overflow-x-auto rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs break-all whitespace-pre-wrap text-slate-900 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
      >
        {value}
      </code>
      <Button
        type="button"
        variant="secondary"
        size="sm"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {/* The visible word starts the accessible name ("Copy API key"), as WCAG's label in name asks. */}
        {copied ? 'Copied' : 'Copy'}
        <span className="sr-only"> {label}</span>
      </Button>
      <span className="sr-only" aria-live="polite">
        {copied ? `${label} copied` : ''}
      </span>
    </div>
  );
}
