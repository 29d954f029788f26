'use client';

import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { useTRPC } from '@/client/trpc/react';
import { DataTable } from '@/components/ui/data-table';
import { ForDevelopers } from '@/components/ui/for-developers';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDateTime } from '@/components/dashboard/format';
import { QueryError } from '@/components/dashboard/query-error';
import type { WorkflowView } from './status';

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

/** The tenant's workflow definitions; each opens to its steps and runs. */
export function WorkflowsView() {
  const trpc = useTRPC();
  const list = useQuery(trpc.workflows.list.queryOptions({ limit: 100 }));
  return (
    <div className="grid gap-6">
      <PageHeader
        title="Workflows"
        description={
          <>
            Durable multi-step runs: steps form a graph, run in parallel when their dependencies are done, retry as configured and survive
            restarts. See the{' '}
            <Link className="underline" href="/docs">
              API reference
            </Link>
            .
          </>
        }
      />
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
            <EmptyState title="No workflows yet">
              <p>Workflows are defined by your agents or scripts through the API.</p>
              <ForDevelopers className="mt-3 text-left">
                <p>Define one with a key holding the modules:write scope, for example:</p>
                <pre className="overflow-x-auto rounded-md bg-slate-100 p-3 font-mono text-xs dark:bg-slate-950" tabIndex={0}>
                  {EXAMPLE}
                </pre>
              </ForDevelopers>
            </EmptyState>
          }
        />
      )}
    </div>
  );
}
