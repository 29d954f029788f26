'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Send } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { RecoverMissedOption, recoverSince } from '@/components/dashboard/webhooks/recover-missed';
import { formatCount } from '@/components/dashboard/format';
import { errorMessage } from '@/components/dashboard/query-error';
import type { RouterOutputs } from '@/client/trpc/types';

type DisabledWebhook = RouterOutputs['admin']['disabledWebhooks']['data'][number];
type TestResult = RouterOutputs['admin']['testWebhook'];

/** How far back recover reaches (the API's window limit, as replay's). */

/** A test send's outcome in words: delivered or not, with the receiver's status code and the error. */
export function testOutcome(result: Pick<TestResult, 'delivered' | 'status_code' | 'latency_ms' | 'error'>): string {
  const answer = result.status_code === null ? 'no answer' : `HTTP ${result.status_code}`;
  return result.delivered
    ? `Delivered: the receiver answered ${answer} in ${formatCount(result.latency_ms)} ms.`
    : `Not delivered: ${answer}${result.error ? ` · ${result.error.replace(/\.?$/, '.')}` : '.'} Re-enabling now would likely fail again.`;
}

/**
 * An operator re-enables a tenant's disabled subscription, after confirming: the dialog offers a
 * test send to the receiver first (one signed `webhook.test`, which never counts toward
 * auto-disable) and to recover the events missed while it was disabled (from `disabled_at`, at
 * most 7 days back). `onEnabled` runs once it is enabled: its row leaves the list, and the list
 * takes the focus.
 */
export function ReenableWebhookButton({ webhook, onEnabled }: { webhook: DisabledWebhook; onEnabled: (id: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const test = useMutation(trpc.admin.testWebhook.mutationOptions());
  const enable = useMutation(trpc.admin.enableWebhook.mutationOptions());
  const recover = useMutation(trpc.admin.recoverWebhook.mutationOptions());
  const [recoverMissed, setRecoverMissed] = useState(true);
  const disabledAt = webhook.disabled_at ? new Date(webhook.disabled_at) : null;
  const receiver = webhook.url ?? 'this subscription';

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.admin.disabledWebhooks.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.admin.listTenants.queryKey() }),
    ]);

  const reenable = async () => {
    if (!enable.isSuccess) await enable.mutateAsync({ id: webhook.id });
    try {
      if (recoverMissed && disabledAt) {
        const result = await recover.mutateAsync({ id: webhook.id, since: recoverSince(disabledAt) });
        toast.success(
          `Webhook of ${webhook.agent_name} re-enabled. ${formatCount(result.recovered)} missed ${result.recovered === 1 ? 'event' : 'events'} queued for delivery.`,
        );
      } else {
        toast.success(`Webhook of ${webhook.agent_name} re-enabled. New events are delivered again.`);
      }
    } catch (err) {
      // The row (and this dialog in it) stays until the dialog closes, so the recovery can be retried here.
      throw new Error(`The webhook is enabled, but recovering the missed events failed: ${errorMessage(err)}`, { cause: err });
    }
    onEnabled(webhook.id);
    void refresh();
  };

  return (
    <ConfirmDialog
      onOpenChange={(next) => {
        if (!next && enable.isSuccess) {
          onEnabled(webhook.id);
          void refresh();
        }
        if (next) {
          test.reset();
          enable.reset();
          recover.reset();
          setRecoverMissed(true);
        }
      }}
      trigger={
        <Button size="sm" data-reenable={webhook.id} aria-label={`Re-enable ${receiver} of ${webhook.agent_name}`}>
          Re-enable
        </Button>
      }
      title="Re-enable this webhook?"
      description={
        <>
          New events of {webhook.agent_name} are delivered to {receiver} again, and its count of failures in a row starts over. It was
          disabled after {formatCount(webhook.consecutive_failures)} failed deliveries in a row: check that the receiver answers first.
        </>
      }
      confirmLabel={enable.isSuccess ? 'Retry recovery' : 'Re-enable webhook'}
      confirmVariant="default"
      onConfirm={reenable}
    >
      <div className="grid gap-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-800">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <span className="text-sm font-medium">Check the receiver</span>
          <Button
            size="sm"
            variant="secondary"
            loading={test.isPending}
            disabled={webhook.url === null}
            onClick={() => test.mutate({ id: webhook.id })}
          >
            <Send aria-hidden="true" className="size-4" />
            Send a test event
          </Button>
        </div>
        <p className="text-xs text-slate-600 dark:text-slate-400" role="status" data-testid="reenable-test-result">
          {test.isSuccess
            ? testOutcome(test.data)
            : test.isError
              ? `The test could not be sent: ${errorMessage(test.error)}`
              : 'One signed test event, sent now; it does not count toward disabling the webhook again.'}
        </p>
      </div>
      {disabledAt ? (
        <RecoverMissedOption
          disabledAt={disabledAt}
          checked={recoverMissed}
          onCheckedChange={setRecoverMissed}
          whatIsSent="the events its receiver has not received"
        />
      ) : null}
    </ConfirmDialog>
  );
}
