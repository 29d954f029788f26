'use client';

import * as CheckboxPrimitive from '@radix-ui/react-checkbox';
import { Check } from 'lucide-react';
import type { ComponentProps } from 'react';
import { cn } from './cn';

/** A checkbox (Radix: role=checkbox, Space toggles); label it with a <Label htmlFor> or aria-label. */
export function Checkbox({ className, ...props }: ComponentProps<typeof CheckboxPrimitive.Root>) {
  return (
    <CheckboxPrimitive.Root
      className={cn(
        'peer inline-flex size-4 shrink-0 items-center justify-center rounded border border-slate-500 bg-white text-white focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:border-indigo-600 data-[state=checked]:bg-indigo-600 dark:border-slate-400 dark:bg-slate-900 dark:focus-visible:ring-offset-slate-950 dark:data-[state=checked]:border-indigo-400 dark:data-[state=checked]:bg-indigo-400 dark:data-[state=checked]:text-slate-950',
        className,
      )}
      {...props}
    >
      <CheckboxPrimitive.Indicator>
        <Check aria-hidden="true" className="size-3.5" strokeWidth={3} />
      </CheckboxPrimitive.Indicator>
    </CheckboxPrimitive.Root>
  );
}
