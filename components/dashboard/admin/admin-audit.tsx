'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { actorLabel, auditTargetColumn, auditWhenColumn } from '@/components/dashboard/audit/audit-log-view';
import { LoadMore } from '@/components/dashboard/load-more';
import { QueryError } from '@/components/dashboard/query-error';
import { useCursorPages } from '@/components/dashboard/use-cursor-pages';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { SkeletonRows } from '@/components/ui/skeleton';
import { ADMIN_AUDIT_LOG } from '@/components/dashboard/first-queries';

type Entry = RouterOutputs['admin']['auditLog']['data'][number];

const columns: ColumnDef<Entry, unknown>[] = [
  auditWhenColumn<Entry>(),
  {
    id: 'tenant',
    header: 'Tenant',
    enableSorting: false,
    cell: ({ row }) => <span className="font-mono text-xs break-all">{row.original.tenant_id ?? '—'}</span>,
  },
  {
    id: 'actor',
    header: 'Who',
    enableSorting: false,
    cell: ({ row }) => <span className="wrap-anywhere">{actorLabel(row.original.actor)}</span>,
  },
  { accessorKey: 'action', header: 'What', enableSorting: false },
  auditTargetColumn<Entry>(),
];

/** The operator's view of the audit log: every tenant's entries and the operators' own, newest first. */
export function AdminAuditLog() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const input = ADMIN_AUDIT_LOG;
  const list = useCursorPages(trpc.admin.auditLog.queryKey(input), (cursor) =>
    client.admin.auditLog.query({ ...input, ...(cursor ? { cursor } : {}) }),
  );
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  if (list.isPending) return <SkeletonRows rows={4} label="Loading the audit log" />;
  if (list.isError && rows.length === 0) return <QueryError error={list.error} retry={() => void list.refetch()} />;
  return (
    <>
      <DataTable
        columns={columns}
        data={rows}
        caption="Audit log of every tenant, newest first"
        getRowId={(r) => r.id}
        empty={<EmptyState title="Nothing recorded yet">Changes made by tenants and operators appear here.</EmptyState>}
      />
      <LoadMore list={list} />
    </>
  );
}
