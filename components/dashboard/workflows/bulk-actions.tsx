'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DeniedNote, useAccess } from '@/components/dashboard/access';

const runs = (n: number) => `${n} ${n === 1 ? 'run' : 'runs'}`;

/**
 * The workflow's runs in bulk: cancel every queued or running run, or replay every failed run from
 * where it stopped (each once). Each asks first; the service takes 500 per call and says when
 * more are left.
 */
export function RunsBulkActions({ workflowId }: { workflowId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const operate = useAccess('operateRuns');
  const cancel = useMutation(trpc.workflows.cancelRuns.mutationOptions());
  const replay = useMutation(trpc.workflows.replayRuns.mutationOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.workflows.listRuns.pathKey() });
  const denied = operate.allowed === false;
  const more = (hasMore: boolean) => (hasMore ? ' More are left: do it again.' : '');
  return (
    <div className="grid gap-1">
      <div className="flex flex-wrap gap-2">
        <ConfirmDialog
          trigger={
            <Button variant="secondary" size="sm" disabled={denied} aria-describedby={denied ? 'bulk-denied' : undefined}>
              Cancel active runs
            </Button>
          }
          title="Cancel every active run?"
          description="Every queued or running run of this workflow stops: steps already running finish, nothing new starts, and waiting steps stop waiting."
          confirmLabel="Cancel runs"
          onConfirm={async () => {
            const done = await cancel.mutateAsync({ id: workflowId });
            toast.success(done.cancelled ? `Cancelled ${runs(done.cancelled)}.${more(done.has_more)}` : 'No run was active.');
            await refresh();
          }}
        />
        <ConfirmDialog
          trigger={
            <Button variant="secondary" size="sm" disabled={denied} aria-describedby={denied ? 'bulk-denied' : undefined}>
              Replay failed runs
            </Button>
          }
          title="Replay every failed run?"
          description="Each failed run starts again from the step that failed; the steps that succeeded are reused, not run again. A run already replayed is not replayed twice."
          confirmLabel="Replay runs"
          onConfirm={async () => {
            const done = await replay.mutateAsync({ id: workflowId });
            toast.success(done.replayed ? `Replaying ${runs(done.replayed)}.${more(done.has_more)}` : 'No run had failed.');
            await refresh();
          }}
        />
      </div>
      {denied ? <DeniedNote id="bulk-denied" reason={operate.reason} /> : null}
    </div>
  );
}
