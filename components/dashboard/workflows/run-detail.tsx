'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
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
import { QueryError } from '@/components/dashboard/query-error';
import { isActive, RunStatusBadge, StepStatusBadge, type RunView } from './status';

/** How often an unfinished run's page asks again. */
const POLL_MS = 1_500;

/** One run: its status, each step's status, attempts, timing, resolved input and output; cancel while it runs. */
export function RunDetail({ workflowId, runId }: { workflowId: string; runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const run = useQuery({
    ...trpc.workflows.getRun.queryOptions({ id: workflowId, run_id: runId }),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data.status) ? POLL_MS : false),
  });
  const cancel = useMutation(trpc.workflows.cancelRun.mutationOptions());

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
  return (
    <div className="grid gap-6">
      <PageHeader
        title={`Run ${r.run_id}`}
        description={
          <>
            <Link className="underline" href={`/dashboard/workflows/${encodeURIComponent(workflowId)}`}>
              Workflow {workflowId}
            </Link>
            , version {r.workflow_version}
          </>
        }
        actions={
          isActive(r.status) ? (
            <ConfirmDialog
              trigger={<Button variant="secondary">Cancel run</Button>}
              title="Cancel this run?"
              description="Steps already running finish; nothing new starts, and the run ends as cancelled."
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
          {isActive(r.status) ? (
            <p className="text-slate-600 dark:text-slate-400">Updating every {POLL_MS / 1000} s while the run is active.</p>
          ) : null}
        </CardContent>
      </Card>
      {r.error ? (
        <Alert variant="error" title={`Step ${r.error.step} failed: ${r.error.code}`}>
          {r.error.message}
        </Alert>
      ) : null}
      <section aria-labelledby="run-steps-heading" className="grid gap-3">
        <h2 id="run-steps-heading" className="text-lg font-semibold">
          Steps
        </h2>
        <ol className="grid gap-3">
          {r.steps.map((step) => (
            <StepCard key={step.id} step={step} />
          ))}
        </ol>
      </section>
      <section aria-labelledby="run-io-heading" className="grid gap-3">
        <h2 id="run-io-heading" className="text-lg font-semibold">
          Input and output
        </h2>
        <CollapsibleJson title="Run input" value={r.input} />
        {r.status === 'completed' ? <CollapsibleJson title="Run output (leaf steps)" value={r.output} defaultOpen /> : null}
      </section>
    </div>
  );
}

function StepCard({ step }: { step: RunView['steps'][number] }) {
  return (
    <li
      className="grid gap-2 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
      data-testid={`step-${step.id}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-sm font-semibold">{step.id}</span>
        <span className="font-mono text-xs text-slate-600 dark:text-slate-400">
          {step.module}.{step.action}
        </span>
        <StepStatusBadge status={step.status} />
        <span className="text-xs text-slate-600 dark:text-slate-400">
          {step.attempts} {step.attempts === 1 ? 'attempt' : 'attempts'}
        </span>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {formatDateTime(step.started_at)} → {formatDateTime(step.finished_at)}
      </p>
      {step.error ? (
        <p className="text-sm text-red-800 dark:text-red-300">
          {step.error.code}: {step.error.message}
        </p>
      ) : null}
      {step.execution_ids.length ? (
        <p className="flex flex-wrap gap-2 text-xs">
          Executions:
          {step.execution_ids.map((id) => (
            <Link
              key={id}
              className="font-mono text-indigo-700 hover:underline dark:text-indigo-300"
              href={`/dashboard/executions/${encodeURIComponent(id)}`}
            >
              {id}
            </Link>
          ))}
        </p>
      ) : null}
      {step.input !== null && step.input !== undefined ? (
        <CollapsibleJson title={`Input of ${step.id} (resolved)`} value={step.input} />
      ) : null}
      {step.status === 'succeeded' ? <CollapsibleJson title={`Output of ${step.id}`} value={step.output} /> : null}
    </li>
  );
}
