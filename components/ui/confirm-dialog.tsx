'use client';

import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { useState, type ReactNode } from 'react';
import { Alert } from './alert';
import { Button, buttonVariants } from './button';

/**
 * An action behind a confirmation (Radix AlertDialog: focus starts on Cancel): destructive unless
 * `confirmVariant` says otherwise; `children` (e.g. options of the action) go under the description.
 * `onConfirm` may throw: its message is shown in the dialog, which stays open.
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  onConfirm,
  open: openProp,
  onOpenChange,
  confirmVariant = 'destructive',
  children,
}: {
  /** The button that opens it; without one, `open` and `onOpenChange` control it (e.g. from a menu). */
  trigger?: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  confirmVariant?: 'destructive' | 'default';
  children?: ReactNode;
}) {
  const [openState, setOpenState] = useState(false);
  const open = openProp ?? openState;
  const setOpen = (next: boolean) => {
    setOpenState(next);
    onOpenChange?.(next);
  };
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) setError(undefined);
      }}
    >
      {trigger ? <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger> : null}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-950/50 backdrop-blur-sm" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 grid w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 gap-4 rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900">
          <AlertDialog.Title className="text-lg font-semibold [overflow-wrap:anywhere]">{title}</AlertDialog.Title>
          <AlertDialog.Description className="text-sm text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
            {description}
          </AlertDialog.Description>
          {children}
          {error ? <Alert variant="error">{error}</Alert> : null}
          <div className="flex justify-end gap-2">
            <AlertDialog.Cancel className={buttonVariants({ variant: 'secondary' })}>Cancel</AlertDialog.Cancel>
            <Button
              variant={confirmVariant}
              loading={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await onConfirm();
                  setOpen(false);
                } catch (err) {
                  setError(err instanceof Error ? err.message : String(err));
                } finally {
                  setBusy(false);
                }
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
