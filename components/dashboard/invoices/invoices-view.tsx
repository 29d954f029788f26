'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { Link } from '@/components/ui/link';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDate } from '@/components/dashboard/format';
import { LoadMore } from '@/components/dashboard/load-more';
import { QueryError } from '@/components/dashboard/query-error';
import { useCursorPages } from '@/components/dashboard/use-cursor-pages';
import { InvoiceStatusBadge } from './invoice-status';
import type { RouterOutputs } from '@/client/trpc/types';
import { INVOICES_LIST } from '@/components/dashboard/first-queries';

type Invoice = RouterOutputs['invoices']['list']['data'][number];

/** The last day of a cycle whose end is exclusive (the first instant of the next month). */
export const lastDayOf = (periodEnd: string) => new Date(new Date(periodEnd).getTime() - 1).toISOString();

const columns: ColumnDef<Invoice, unknown>[] = [
  {
    accessorKey: 'number',
    header: 'Invoice',
    cell: ({ row }) => (
      <Link
        href={`/dashboard/invoices/${encodeURIComponent(row.original.id)}`}
        className="font-mono text-xs text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
      >
        {row.original.number}
      </Link>
    ),
  },
  {
    id: 'period',
    accessorFn: (r) => r.period_start,
    header: 'Period',
    cell: ({ row }) => (
      <span className="whitespace-nowrap">
        {formatDate(row.original.period_start)} – {formatDate(lastDayOf(row.original.period_end))}
      </span>
    ),
  },
  { accessorKey: 'status', header: 'Status', cell: ({ row }) => <InvoiceStatusBadge status={row.original.status} /> },
  {
    id: 'total',
    accessorFn: (r) => Number(r.total_usd),
    header: 'Total',
    cell: ({ row }) => <span className="tabular-nums">${row.original.total_usd}</span>,
  },
  { accessorKey: 'created_at', header: 'Issued', cell: ({ row }) => formatDate(row.original.created_at) },
];

/** The tenant's invoices, newest first: one per closed billing cycle with something to bill. */
export function InvoicesView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const list = useCursorPages(trpc.invoices.list.queryKey(INVOICES_LIST), (cursor) =>
    client.invoices.list.query({ ...INVOICES_LIST, ...(cursor ? { cursor } : {}) }),
  );
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div className="grid gap-6">
      <PageHeader
        title="Invoices"
        description="One invoice per closed billing cycle (a calendar month, UTC): the monthly fee, prorated when the plan changed, and the overage."
      />
      {list.isPending ? (
        <SkeletonRows rows={4} label="Loading invoices" />
      ) : !list.data ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <div className="grid gap-3">
          <DataTable
            columns={columns}
            data={rows}
            caption="Invoices"
            getRowId={(r) => r.id}
            empty={
              <EmptyState title="No invoices yet">
                An invoice is issued when a billing cycle closes with something to bill. See what the current cycle comes to on the{' '}
                <Link className="underline" href="/dashboard/usage">
                  Usage
                </Link>{' '}
                page.
              </EmptyState>
            }
          />
          <LoadMore list={list} />
        </div>
      )}
    </div>
  );
}
