'use client';

import { useId, type ReactNode } from 'react';
import { Input, type InputProps } from './input';
import { Label } from './label';

export interface FormFieldProps extends Omit<InputProps, 'id'> {
  label: string;
  /** Help text under the input, linked with aria-describedby. */
  description?: ReactNode;
  /** The validation message; sets aria-invalid and is announced (aria-live). */
  error?: string;
}

/**
 * A labelled input with its help text and error, wired for assistive technology: the label is
 * bound to the input, the description and error are named by aria-describedby, an error sets
 * aria-invalid and lives in a polite live region so it is read when it appears.
 */
export function FormField({ label, description, error, className, ...input }: FormFieldProps) {
  const id = useId();
  const descriptionId = `${id}-description`;
  const errorId = `${id}-error`;
  const describedBy = [description ? descriptionId : undefined, error ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div className={className ?? 'grid gap-2'}>
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {description ? (
        <p id={descriptionId} className="text-xs text-slate-600 dark:text-slate-400">
          {description}
        </p>
      ) : null}
      <p id={errorId} aria-live="polite" className="min-h-0 text-sm font-medium text-red-700 empty:hidden dark:text-red-400">
        {error ?? ''}
      </p>
    </div>
  );
}
