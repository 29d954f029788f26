'use client';

import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useId } from 'react';
import { useTRPC } from '@/client/trpc/react';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { ForDevelopers } from '@/components/ui/for-developers';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDateTime } from '@/components/dashboard/format';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { QueryError } from '@/components/dashboard/query-error';
import type { WorkflowView } from './status';
import { WORKFLOW_TEMPLATES } from './templates';
import { WORKFLOWS_LIST } from '@/components/dashboard/first-queries';

const columns: ColumnDef<WorkflowView, unknown>[] = [
  {
    accessorKey: 'name',
    header: 'Name',
    cell: ({ row }) => (
      <Link
        className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
        href={`/dashboard/workflows/${encodeURIComponent(row.original.id)}`}
      >
        {row.original.name}
      </Link>
    ),
  },
  { accessorKey: 'version', header: 'Version' },
  { id: 'steps', header: 'Steps', accessorFn: (w) => w.steps.length },
  { accessorKey: 'updated_at', header: 'Updated', cell: ({ row }) => formatDateTime(row.original.updated_at) },
];

const EXAMPLE = `curl -X POST "$BASE/api/v1/workflows" -H "x-api-key: $KEY" -H 'content-type: application/json' -d '{
  "name": "slug then hash",
  "steps": [
    {"id": "slug", "module": "text", "action": "slugify", "input": {"text": "{{input.title}}"}},
    {"id": "hash", "module": "crypto", "action": "hash", "input": {"text": "{{steps.slug.output.slug}}"}, "depends_on": ["slug"]}
  ]
}'`;

/** "New workflow": a link to the editor, or a disabled button with the reason for a role that may not. */
function NewWorkflowButton({ denied, describedBy }: { denied: boolean; describedBy: string }) {
  if (denied)
    return (
      <Button disabled aria-describedby={describedBy}>
        <Plus aria-hidden="true" className="size-4" />
        New workflow
      </Button>
    );
  return (
    <Button asChild>
      <Link href="/dashboard/workflows/new">
        <Plus aria-hidden="true" className="size-4" />
        New workflow
      </Link>
    </Button>
  );
}

/** The tenant's workflow definitions; each opens to its steps and runs. New ones start from a template. */
export function WorkflowsView() {
  const trpc = useTRPC();
  const list = useQuery(trpc.workflows.list.queryOptions(WORKFLOWS_LIST));
  const write = useAccess('writeWorkflows');
  const denied = write.allowed === false;
  const deniedId = useId();
  return (
    <div className="grid min-w-0 gap-6">
      <PageHeader
        title="Workflows"
        description={
          <>
            Steps that run module actions one after another or side by side, each using what the earlier ones produced. A run retries
            failing steps as you set and carries on after a restart. See the{' '}
            <Link className="underline" href="/docs">
              API reference
            </Link>
            .
          </>
        }
        actions={<NewWorkflowButton denied={denied} describedBy={deniedId} />}
      />
      {denied ? <DeniedNote id={deniedId} reason={write.reason} /> : null}
      {list.isPending ? (
        <SkeletonRows rows={4} label="Loading workflows" />
      ) : list.isError ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <DataTable
          caption="Workflows"
          columns={columns}
          data={list.data.data}
          getRowId={(w) => w.id}
          empty={
            <div className="grid min-w-0 gap-4">
              <EmptyState title="No workflows yet" action={denied ? undefined : <NewWorkflowButton denied={false} describedBy="" />}>
                {denied ? (
                  <p>Workflows made by your team appear here.</p>
                ) : (
                  <>
                    <p>Make one in a few clicks, starting from one of these:</p>
                    <ul className="mt-2 grid gap-1">
                      {WORKFLOW_TEMPLATES.map((t) => (
                        <li key={t.id}>
                          <Link
                            className="font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300"
                            href={`/dashboard/workflows/new?template=${encodeURIComponent(t.id)}`}
                          >
                            {t.title}
                          </Link>
                          <span className="text-slate-600 dark:text-slate-400">: {t.summary}</span>
                        </li>
                      ))}
                    </ul>
                  </>
                )}
              </EmptyState>
              <ForDevelopers className="min-w-0">
                <p>Agents and scripts define workflows through the API too, with a key holding the modules:write scope, for example:</p>
                <pre className="max-w-full overflow-x-auto rounded-md bg-slate-100 p-3 font-mono text-xs dark:bg-slate-950" tabIndex={0}>
                  {EXAMPLE}
                </pre>
              </ForDevelopers>
            </div>
          }
        />
      )}
    </div>
  );
}
