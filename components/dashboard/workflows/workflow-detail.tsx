'use client';

import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Pencil } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useId, useState } from 'react';
import { useTRPC } from '@/client/trpc/react';
import { useNow } from '@/components/dashboard/use-now';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDateTime } from '@/components/dashboard/format';
import { CollapsibleJson } from '@/components/dashboard/modules/json-block';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { QueryError } from '@/components/dashboard/query-error';
import { StartRun } from './start-run';
import { definitionOf, RUN_STATUS_FILTERS, RunStatusBadge, type RunStatus, type RunSummary, type WorkflowView } from './status';
import { RunsBulkActions } from './bulk-actions';
import { Triggers } from './triggers';
import { WorkflowLoadError } from './workflow-missing';
import { originShort, stepSummary, type RunOrigin } from './words';
import { WORKFLOW_RUNS_PAGE_SIZE } from '@/components/dashboard/first-queries';

type Step = WorkflowView['steps'][number];

const stepColumns: ColumnDef<Step, unknown>[] = [
  { accessorKey: 'id', header: 'Step', cell: ({ row }) => <span className="font-mono text-xs">{row.original.id}</span> },
  {
    id: 'action',
    header: 'Does',
    accessorFn: stepSummary,
    cell: ({ getValue }) => <span className="text-sm">{String(getValue())}</span>,
  },
  { id: 'depends_on', header: 'Depends on', accessorFn: (s) => (s.depends_on ?? []).join(', ') || '—' },
  {
    id: 'retry',
    header: 'Retry',
    accessorFn: (s) =>
      'retry' in s && s.retry ? `${s.retry.max_attempts} attempts, ${s.retry.backoff} from ${s.retry.backoff_ms} ms` : '—',
  },
  {
    id: 'if',
    header: 'Condition',
    accessorFn: (s) => s.if ?? '—',
    cell: ({ getValue }) => <span className="font-mono text-xs">{String(getValue())}</span>,
  },
];

/** The origin's detail, for the Origin cell's tooltip: the tick, or the event and its kind. */
function originTitle(origin: RunOrigin): string | undefined {
  if (origin.type === 'schedule') return `Schedule tick of ${formatDateTime(origin.tick)}`;
  if (origin.type === 'event') return `Event ${origin.event_id} (${origin.event_type})`;
  if (origin.type === 'replay') return `Replay of run ${origin.run_id}`;
  return undefined;
}

function runColumns(workflowId: string): ColumnDef<RunSummary, unknown>[] {
  return [
    {
      accessorKey: 'run_id',
      header: 'Run',
      cell: ({ row }) => (
        <Link
          className="font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300"
          href={`/dashboard/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(row.original.run_id)}`}
        >
          {row.original.run_id}
        </Link>
      ),
    },
    { accessorKey: 'status', header: 'Status', cell: ({ row }) => <RunStatusBadge status={row.original.status} /> },
    {
      id: 'origin',
      header: 'Origin',
      accessorFn: (r) => originShort(r.origin),
      cell: ({ row }) => <span title={originTitle(row.original.origin)}>{originShort(row.original.origin)}</span>,
    },
    { accessorKey: 'workflow_version', header: 'Version' },
    { accessorKey: 'created_at', header: 'Started', cell: ({ row }) => formatDateTime(row.original.created_at) },
    { accessorKey: 'finished_at', header: 'Finished', cell: ({ row }) => formatDateTime(row.original.finished_at) },
    { id: 'error', header: 'Error', accessorFn: (r) => (r.error ? `${r.error.step}: ${r.error.message}` : '—') },
  ];
}

/** One workflow: its steps, Edit, a form to start a run, and its runs (filterable by status). */
export function WorkflowDetail({ workflowId }: { workflowId: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<RunStatus | ''>('');
  const workflow = useQuery(trpc.workflows.get.queryOptions({ id: workflowId }));
  const runs = useQuery(
    trpc.workflows.listRuns.queryOptions({ id: workflowId, limit: WORKFLOW_RUNS_PAGE_SIZE, ...(status ? { status } : {}) }),
  );
  // Asked with the page's other queries (one batched request): who may edit and who may start runs.
  const write = useAccess('writeWorkflows');
  const execute = useAccess('runModules');
  const filterId = useId();
  // "in 14 min" for the schedule's next run.
  const now = useNow(workflow.dataUpdatedAt);
  const editDeniedId = useId();

  if (workflow.isPending) return <SkeletonRows rows={6} label="Loading the workflow" />;
  if (workflow.isError) return <WorkflowLoadError workflowId={workflowId} error={workflow.error} retry={() => void workflow.refetch()} />;
  const w = workflow.data;
  return (
    <div className="grid gap-6">
      <PageHeader
        title={w.name}
        description={
          <>
            <Badge tone="info" data-testid="workflow-version">
              Version {w.version}
            </Badge>{' '}
            {w.description ?? `${w.steps.length} ${w.steps.length === 1 ? 'step' : 'steps'}.`}
          </>
        }
        actions={
          write.allowed === false ? (
            <Button variant="secondary" disabled aria-describedby={editDeniedId}>
              <Pencil aria-hidden="true" className="size-4" />
              Edit
            </Button>
          ) : (
            <Button variant="secondary" asChild>
              <Link href={`/dashboard/workflows/${encodeURIComponent(w.id)}/edit`}>
                <Pencil aria-hidden="true" className="size-4" />
                Edit
              </Link>
            </Button>
          )
        }
      />
      {write.allowed === false ? <DeniedNote id={editDeniedId} reason={write.reason} /> : null}
      <section aria-labelledby="steps-heading" className="grid gap-3">
        <h2 id="steps-heading" className="text-lg font-semibold">
          Steps <span className="text-sm font-normal text-slate-600 dark:text-slate-400">(version {w.version})</span>
        </h2>
        <DataTable caption="Steps" columns={stepColumns} data={w.steps} getRowId={(s) => s.id} />
        <CollapsibleJson title="Definition as JSON" value={definitionOf(w)} />
      </section>
      <Triggers workflow={w} now={now} />
      <StartRun workflow={w} access={execute} />
      <section aria-labelledby="runs-heading" className="grid gap-3">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="runs-heading" className="text-lg font-semibold">
            Runs
          </h2>
          <div className="flex flex-wrap items-end gap-3">
            <RunsBulkActions workflowId={workflowId} />
            <div className="grid gap-1">
              <label htmlFor={filterId} className="text-sm font-medium">
                Status
              </label>
              <select
                id={filterId}
                value={status}
                onChange={(e) => setStatus(e.target.value as RunStatus | '')}
                className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm dark:border-slate-700 dark:bg-slate-900"
              >
                <option value="">All</option>
                {RUN_STATUS_FILTERS.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
          </div>
        </div>
        {runs.isPending ? (
          <SkeletonRows rows={3} label="Loading runs" />
        ) : runs.isError ? (
          <QueryError error={runs.error} retry={() => void runs.refetch()} />
        ) : (
          <DataTable
            caption="Runs"
            columns={runColumns(workflowId)}
            data={runs.data.data}
            getRowId={(r) => r.run_id}
            empty={<EmptyState title={status ? `No ${status} runs` : 'No runs yet'}>Start one above.</EmptyState>}
          />
        )}
      </section>
    </div>
  );
}
