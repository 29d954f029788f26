'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { Link } from '@/components/ui/link';
import type { ReactNode } from 'react';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime, formatMs, formatRelative } from '@/components/dashboard/format';
import { ExecutionStatusBadge } from './status-badge';
import type { RouterOutputs } from '@/client/trpc/types';

export type ExecutionRow = RouterOutputs['executions']['list']['data'][number];

const columns: ColumnDef<ExecutionRow, unknown>[] = [
  {
    accessorKey: 'execution_id',
    header: 'Execution',
    enableSorting: false,
    cell: ({ row }) => (
      <Link
        href={`/dashboard/executions/${encodeURIComponent(row.original.execution_id)}`}
        className="font-mono text-xs text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
      >
        {row.original.execution_id}
      </Link>
    ),
  },
  {
    id: 'action',
    accessorFn: (r) => `${r.module}.${r.action}`,
    header: 'Action',
    cell: ({ getValue }) => <span className="font-mono text-xs">{String(getValue())}</span>,
  },
  { accessorKey: 'status', header: 'Status', cell: ({ row }) => <ExecutionStatusBadge status={row.original.status} /> },
  {
    accessorKey: 'latency_ms',
    header: 'Latency',
    cell: ({ row }) => <span className="tabular-nums">{formatMs(row.original.latency_ms)}</span>,
  },
  { accessorKey: 'source', header: 'Source' },
  {
    accessorKey: 'created_at',
    header: 'Started',
    cell: ({ row }) => (
      <time dateTime={row.original.created_at} title={formatDateTime(row.original.created_at)} className="whitespace-nowrap">
        {formatRelative(row.original.created_at)}
      </time>
    ),
  },
];

/** Executions as a sortable table; each id links to its detail page. */
export function ExecutionsTable({ rows, caption, empty }: { rows: ExecutionRow[]; caption: string; empty?: ReactNode }) {
  return <DataTable columns={columns} data={rows} caption={caption} empty={empty} getRowId={(r) => r.execution_id} />;
}
