'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { RecoverMissedOption, recoverSince } from './recover-missed';
import { formatCount, formatDateTime } from '@/components/dashboard/format';
import { errorMessage } from '@/components/dashboard/query-error';

/** How far back recover reaches (the API's window limit, as replay's). */

/**
 * Enable a disabled subscription, offering in the same dialog to recover the window it missed
 * (from `disabled_at` until now, at most 7 days back): enable first (recover needs an active
 * subscription), then POST …/recover, which queues only the events the receiver has not got.
 */
export function EnableWebhookDialog({ webhook }: { webhook: { id: string; url: string | null; disabled_at: string | null } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const enable = useMutation(trpc.webhooks.enable.mutationOptions());
  const recover = useMutation(trpc.webhooks.recover.mutationOptions());
  const [open, setOpen] = useState(false);
  const [recoverMissed, setRecoverMissed] = useState(true);
  const disabledAt = webhook.disabled_at ? new Date(webhook.disabled_at) : null;
  const failure = enable.error ?? recover.error;

  const close = (next: boolean) => {
    setOpen(next);
    if (!next) {
      enable.reset();
      recover.reset();
      setRecoverMissed(true);
    }
  };
  const invalidate = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: webhook.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.stats.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.health.queryKey() }),
    ]);

  const submit = async () => {
    try {
      if (!enable.isSuccess) await enable.mutateAsync({ id: webhook.id });
      if (recoverMissed && disabledAt) {
        const result = await recover.mutateAsync({ id: webhook.id, since: recoverSince(disabledAt) });
        toast.success(
          `Webhook enabled. ${formatCount(result.recovered)} missed ${result.recovered === 1 ? 'event' : 'events'} queued for delivery.` +
            (result.has_more && result.next_since ? ` More remain: recover again from ${formatDateTime(result.next_since)}.` : ''),
        );
      } else {
        toast.success('Webhook enabled. New events are delivered again.');
      }
      close(false);
    } catch {
      // Shown in the dialog, verbatim; a failed recover after a successful enable can be retried here.
    } finally {
      void invalidate();
    }
  };

  return (
    <Dialog open={open} onOpenChange={close}>
      <Button className="mt-3" size="sm" onClick={() => setOpen(true)}>
        Enable
      </Button>
      <DialogContent
        title="Enable this webhook?"
        description={
          <>New events are delivered to {webhook.url ?? 'this subscription'} again, and its count of failures in a row starts over.</>
        }
      >
        <div className="grid grid-cols-1 gap-4">
          {failure ? (
            <Alert variant="error">
              {enable.isSuccess ? 'The webhook is enabled, but recovering the missed events failed: ' : null}
              {errorMessage(failure)}
            </Alert>
          ) : null}
          {disabledAt ? (
            <RecoverMissedOption
              disabledAt={disabledAt}
              checked={recoverMissed}
              onCheckedChange={setRecoverMissed}
              whatIsSent="the events of its kinds your receiver has not received"
            />
          ) : null}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => close(false)}>
              Cancel
            </Button>
            <Button loading={enable.isPending || recover.isPending} onClick={() => void submit()}>
              {enable.isSuccess ? 'Retry recovery' : 'Enable webhook'}
            </Button>
          </div>
        </div>
      </DialogContent>
    </Dialog>
  );
}
