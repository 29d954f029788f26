'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { useRouter } from 'next/navigation';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { useNow } from '@/components/dashboard/use-now';
import { statusOf } from '@/client/trpc/client';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDateTime } from '@/components/dashboard/format';
import { CollapsibleJson } from '@/components/dashboard/modules/json-block';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { RunTimeline } from './run-timeline';
import { isActive, RunStatusBadge } from './status';
import { errorWords, formatDuration, waitingLabel, type RunOrigin } from './words';

/** How often an unfinished run's page asks again. */
const POLL_MS = 1_500;

/**
 * One run: how it started, its status, and its steps as a timeline (what each does or waits for,
 * timing, attempts, errors, outputs); a waiting approval is decided here; cancel while it runs;
 * replay from where it stopped once it failed or was cancelled (the steps that succeeded are reused).
 */
export function RunDetail({ workflowId, runId }: { workflowId: string; runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const run = useQuery({
    ...trpc.workflows.getRun.queryOptions({ id: workflowId, run_id: runId }),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data.status) ? POLL_MS : false),
  });
  const cancel = useMutation(trpc.workflows.cancelRun.mutationOptions());
  const replay = useMutation(trpc.workflows.replayRun.mutationOptions());
  const operate = useAccess('operateRuns');
  const router = useRouter();
  // Asked with the run (one batched request): whether the caller may approve or reject.
  const decide = useAccess('decideApprovals');
  // The run as read is never ahead of "now": a step that began after the last tick reads "just now", not "in 0 s".
  const now = useNow(run.dataUpdatedAt, 15_000);

  if (run.isPending) return <SkeletonRows rows={6} label="Loading the run" />;
  if (run.isError) {
    if (statusOf(run.error) === 404) {
      return (
        <EmptyState
          title="Run not found"
          action={
            <Link className="underline" href={`/dashboard/workflows/${encodeURIComponent(workflowId)}`}>
              Back to the workflow
            </Link>
          }
        >
          There is no run {runId} of workflow {workflowId} in your tenant.
        </EmptyState>
      );
    }
    return <QueryError error={run.error} retry={() => void run.refetch()} />;
  }
  const r = run.data;
  const done = r.steps.filter((s) => s.status === 'succeeded' || s.status === 'skipped').length;
  const waiting = r.steps.filter((s) => s.status === 'waiting');
  const took = r.started_at ? formatDuration(new Date(r.finished_at ?? now).getTime() - new Date(r.started_at).getTime()) : null;
  return (
    <div className="grid min-w-0 gap-6">
      <PageHeader
        title={`Run ${r.run_id}`}
        description={
          <>
            <span data-testid="run-origin">
              <OriginWords origin={r.origin} workflowId={workflowId} />
            </span>{' '}
            ·{' '}
            <Link className="underline" href={`/dashboard/workflows/${encodeURIComponent(workflowId)}`}>
              Workflow {workflowId}
            </Link>
            , version {r.workflow_version}
          </>
        }
        actions={
          r.status === 'failed' || r.status === 'cancelled' ? (
            <div className="grid justify-items-end gap-1">
              <Button
                disabled={operate.allowed === false || replay.isPending}
                aria-describedby={operate.allowed === false ? 'replay-denied' : undefined}
                onClick={async () => {
                  try {
                    const replayed = await replay.mutateAsync({ id: workflowId, run_id: runId });
                    toast.success('Replaying the run from where it stopped');
                    router.push(`/dashboard/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(replayed.run_id)}`);
                  } catch (err) {
                    toast.error(errorMessage(err));
                  }
                }}
              >
                Replay from where it stopped
              </Button>
              {operate.allowed === false ? <DeniedNote id="replay-denied" reason={operate.reason} /> : null}
            </div>
          ) : isActive(r.status) ? (
            <ConfirmDialog
              trigger={<Button variant="secondary">Cancel run</Button>}
              title="Cancel this run?"
              description="Steps already running finish; nothing new starts (waiting steps stop waiting), and the run ends as cancelled."
              confirmLabel="Cancel run"
              onConfirm={async () => {
                await cancel.mutateAsync({ id: workflowId, run_id: runId }); // a refusal's message is shown in the dialog
                toast.success('Run cancelled');
                await queryClient.invalidateQueries({ queryKey: trpc.workflows.getRun.queryKey({ id: workflowId, run_id: runId }) });
              }}
            />
          ) : null
        }
      />
      <Card>
        <CardContent className="grid gap-2 pt-6 text-sm sm:grid-cols-2">
          <p>
            Status: <RunStatusBadge status={r.status} />{' '}
            <span className="text-slate-600 dark:text-slate-400" data-testid="run-progress">
              {done} of {r.steps.length} steps done
            </span>
          </p>
          <p>Started: {formatDateTime(r.started_at ?? r.created_at)}</p>
          <p>Finished: {formatDateTime(r.finished_at)}</p>
          {took ? <p>{r.finished_at ? `Took ${took}` : `Running for ${took}`}</p> : null}
          {isActive(r.status) ? (
            <p className="text-slate-600 sm:col-span-2 dark:text-slate-400">Updating every {POLL_MS / 1000} s while the run is active.</p>
          ) : null}
        </CardContent>
      </Card>
      {waiting.length ? (
        <Alert title="This run is waiting" data-testid="run-waiting">
          <ul className="grid gap-1">
            {waiting.map((s) => (
              <li key={s.id}>
                <a className="font-mono underline" href={`#step-${s.id}`}>
                  {s.id}
                </a>
                : {waitingLabel(s).toLowerCase()}
                {s.kind === 'approval' ? ' (decide below)' : ''}
              </li>
            ))}
          </ul>
        </Alert>
      ) : null}
      {r.error ? (
        <Alert variant="error" title={`${errorWords(r.error.code)} at step ${r.error.step}`} data-testid="run-error">
          <span className="[overflow-wrap:anywhere]">{r.error.message}</span>
        </Alert>
      ) : null}
      <section aria-labelledby="run-steps-heading" className="grid min-w-0 gap-3">
        <h2 id="run-steps-heading" className="text-lg font-semibold">
          Steps
        </h2>
        <RunTimeline workflowId={workflowId} runId={runId} steps={r.steps} decideAccess={decide} now={now} />
      </section>
      <section aria-labelledby="run-io-heading" className="grid min-w-0 gap-3">
        <h2 id="run-io-heading" className="text-lg font-semibold">
          Input and output
        </h2>
        <CollapsibleJson title="Run input" value={r.input} />
        {r.status === 'completed' ? <CollapsibleJson title="Run output (the last steps' outputs)" value={r.output} defaultOpen /> : null}
      </section>
    </div>
  );
}

/** How the run started, in words: by a call, a schedule tick, an event, or as a replay of another run. */
function OriginWords({ origin, workflowId }: { origin: RunOrigin; workflowId: string }) {
  switch (origin.type) {
    case 'schedule':
      return <>Started by the schedule tick of {formatDateTime(origin.tick)}</>;
    case 'event':
      return (
        <>
          Started by event <span className="font-mono [overflow-wrap:anywhere]">{origin.event_id}</span> ({origin.event_type})
        </>
      );
    case 'replay':
      return (
        <>
          Started as a replay of run{' '}
          <Link
            className="font-mono underline"
            href={`/dashboard/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(origin.run_id)}`}
          >
            {origin.run_id}
          </Link>
        </>
      );
    default:
      return <>Started by a call</>;
  }
}
