'use client';

import { useId } from 'react';
import { Checkbox } from '@/components/ui/checkbox';
import { Label } from '@/components/ui/label';
import { formatDateTime } from '@/components/dashboard/format';

/** How far back a recover reaches (the API's limit: 7 days). */
const RECOVER_REACH_MS = 7 * 86_400_000;

/** Where a recover of the window missed since `disabledAt` starts: then, or as far back as a recover reaches (a minute inside it). */
export function recoverSince(disabledAt: Date): string {
  return new Date(Math.max(disabledAt.getTime(), Date.now() - RECOVER_REACH_MS + 60_000)).toISOString();
}

/**
 * The choice, when enabling a disabled webhook again, to recover the events missed meanwhile,
 * with the window it covers. `whatIsSent`: which events, in the words of who is reading.
 */
export function RecoverMissedOption({
  disabledAt,
  checked,
  onCheckedChange,
  whatIsSent,
}: {
  disabledAt: Date;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  whatIsSent: string;
}) {
  const id = useId();
  const disabled = formatDateTime(disabledAt.toISOString());
  return (
    <div className="flex items-start gap-3 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-800">
      <Checkbox
        id={id}
        className="mt-0.5"
        checked={checked}
        onCheckedChange={(v) => onCheckedChange(v === true)}
        aria-describedby={`${id}-meaning`}
      />
      <div className="grid gap-0.5">
        <Label htmlFor={id}>Recover the events missed while it was disabled</Label>
        <span id={`${id}-meaning`} className="text-xs text-slate-600 dark:text-slate-400">
          {Date.now() - disabledAt.getTime() > RECOVER_REACH_MS
            ? `From 7 days ago (the furthest recovery reaches; disabled ${disabled}) until now`
            : `From ${disabled} until now`}
          : {whatIsSent} are sent again, with their original ids.
        </span>
      </div>
    </div>
  );
}
