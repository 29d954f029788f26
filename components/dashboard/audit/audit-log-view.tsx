'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { Download } from 'lucide-react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { formatDateTime, formatRelative } from '@/components/dashboard/format';
import { LoadMore } from '@/components/dashboard/load-more';
import { QueryError } from '@/components/dashboard/query-error';
import { useCursorPages } from '@/components/dashboard/use-cursor-pages';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { AUDIT_LOG_LIST } from '@/components/dashboard/first-queries';

export type AuditEntry = RouterOutputs['auditLog']['list']['data'][number];

/** What a person looks for, as action prefixes (the API's `action` filter takes `key.*`). */
const AREAS = [
  { value: '', label: 'Everything' },
  { value: 'key.*', label: 'API keys' },
  { value: 'webhook.*', label: 'Webhooks' },
  { value: 'member.*', label: 'Members' },
  { value: 'ownership.*', label: 'Ownership' },
  { value: 'module.*', label: 'Modules' },
  { value: 'workflow.*', label: 'Workflows' },
  { value: 'memory.*', label: 'Memory' },
  { value: 'plan.*', label: 'Plan' },
  { value: 'invoice.*', label: 'Invoices' },
  { value: 'tenant.*', label: 'Tenant' },
] as const;

const RANGES = [
  { value: '', label: 'Any time', days: 0 },
  { value: '1d', label: 'Last 24 hours', days: 1 },
  { value: '7d', label: 'Last 7 days', days: 7 },
  { value: '30d', label: 'Last 30 days', days: 30 },
] as const;

const selectClass =
  'h-10 w-full rounded-md border border-slate-400 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

/** Who did it, as a person reads it. */
export function actorLabel(actor: AuditEntry['actor']): string {
  if (actor.type === 'user') return actor.email ?? actor.id;
  if (actor.type === 'key') return `API key ${actor.key_id ?? actor.id}`;
  if (actor.type === 'operator') return actor.email ? `Operator ${actor.email}` : 'Operator (admin token)';
  return 'The platform';
}

/** `key.created` → "Key created". */
const actionLabel = (action: string) => {
  const words = action.replace(/[._]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function changesSummary(changes: Record<string, unknown>): string {
  return Object.entries(changes)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}

/** When and on what, as both audit views show them (this page and the operators' on the admin page). */
type Auditable = Pick<AuditEntry, 'at' | 'target'>;

export function auditWhenColumn<T extends Auditable>(): ColumnDef<T, unknown> {
  return {
    accessorKey: 'at',
    header: 'When',
    cell: ({ row }) => (
      <time dateTime={row.original.at} title={formatDateTime(row.original.at)}>
        {formatRelative(row.original.at)}
      </time>
    ),
  };
}

export function auditTargetColumn<T extends Auditable>(): ColumnDef<T, unknown> {
  return {
    id: 'target',
    header: 'On',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="font-mono text-xs break-all">
        {row.original.target.type} {row.original.target.id}
      </span>
    ),
  };
}

const columns: ColumnDef<AuditEntry, unknown>[] = [
  auditWhenColumn<AuditEntry>(),
  {
    id: 'actor',
    header: 'Who',
    enableSorting: false,
    cell: ({ row }) => <span className="wrap-anywhere">{actorLabel(row.original.actor)}</span>,
  },
  { accessorKey: 'action', header: 'What', cell: ({ row }) => actionLabel(row.original.action) },
  auditTargetColumn<AuditEntry>(),
  {
    id: 'changes',
    header: 'Details',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="text-xs break-words text-slate-700 dark:text-slate-300">{changesSummary(row.original.changes)}</span>
    ),
  },
  {
    id: 'ip',
    header: 'From',
    enableSorting: false,
    cell: ({ row }) => <span className="font-mono text-xs">{row.original.ip ?? '—'}</span>,
  },
];

function readFilters(params: URLSearchParams) {
  const area = params.get('area') ?? '';
  const range = params.get('range') ?? '';
  return {
    area: AREAS.some((a) => a.value === area) ? area : '',
    range: RANGES.some((r) => r.value === range) ? range : '',
    actor: params.get('actor') ?? '',
  };
}

const sinceOf = (range: string) => {
  const days = RANGES.find((r) => r.value === range)?.days ?? 0;
  return days ? new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10) : undefined;
};

/** Saves a file the API answered base64-encoded. */
function save(file: { filename: string; content_type: string; data_base64: string }) {
  const bytes = Uint8Array.from(atob(file.data_base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: file.content_type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The tenant's audit log: who changed what, filtered by area, person and time, exported as CSV. */
export function AuditLogView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const id = useId();
  const filters = readFilters(params);
  const [actorDraft, setActorDraft] = useState(filters.actor);
  const [exporting, setExporting] = useState(false);

  const show = (patch: Partial<typeof filters>) => {
    const next = { ...filters, ...patch };
    const search = new URLSearchParams(Object.entries(next).filter(([, v]) => v) as [string, string][]).toString();
    router.replace(search ? `${pathname}?${search}` : pathname, { scroll: false });
  };

  const since = sinceOf(filters.range);
  const query = {
    ...(filters.area ? { action: filters.area } : {}),
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(since ? { since } : {}),
  };
  const input = { ...AUDIT_LOG_LIST, ...query };
  const list = useCursorPages(trpc.auditLog.list.queryKey(input), (cursor) =>
    client.auditLog.list.query({ ...input, ...(cursor ? { cursor } : {}) }),
  );
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Boolean(filters.area || filters.actor || filters.range);

  async function exportCsv() {
    setExporting(true);
    try {
      save(await client.auditLog.csv.query(query));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'The export failed; try again.');
    } finally {
      setExporting(false);
    }
  }

  return (
    <div className="grid gap-6">
      <PageHeader
        title="Audit log"
        description="Who changed what in this tenant, and when: keys, webhooks, members, modules, workflows, plan and billing. Secrets never appear here."
      />
      <div className="flex flex-wrap items-end gap-3">
        <div className="grid w-full gap-2 sm:w-48">
          <Label htmlFor={`${id}-area`}>Area</Label>
          <select id={`${id}-area`} className={selectClass} value={filters.area} onChange={(e) => show({ area: e.target.value })}>
            {AREAS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </div>
        <form
          className="grid w-full gap-2 sm:w-64"
          onSubmit={(e) => {
            e.preventDefault();
            show({ actor: actorDraft.trim() });
          }}
        >
          <Label htmlFor={`${id}-actor`}>Person or key</Label>
          <Input
            id={`${id}-actor`}
            placeholder="Email, user id or key id"
            value={actorDraft}
            maxLength={320}
            onChange={(e) => setActorDraft(e.target.value)}
            onBlur={() => actorDraft.trim() !== filters.actor && show({ actor: actorDraft.trim() })}
          />
        </form>
        <div className="grid w-full gap-2 sm:w-44">
          <Label htmlFor={`${id}-range`}>When</Label>
          <select id={`${id}-range`} className={selectClass} value={filters.range} onChange={(e) => show({ range: e.target.value })}>
            {RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <Button variant="secondary" onClick={() => void exportCsv()} loading={exporting}>
          <Download aria-hidden="true" className="size-4" />
          Export CSV
        </Button>
      </div>
      {list.isPending ? (
        <SkeletonRows rows={6} />
      ) : list.isError && rows.length === 0 ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <>
          <DataTable
            columns={columns}
            data={rows}
            caption="Audit log entries, newest first"
            getRowId={(r) => r.id}
            empty={
              <EmptyState title={filtered ? 'Nothing matches these filters' : 'Nothing recorded yet'}>
                {filtered
                  ? 'Try another area, person or time range.'
                  : 'Changes to keys, webhooks, members, modules, workflows and the plan appear here as they happen.'}
              </EmptyState>
            }
          />
          <LoadMore list={list} />
        </>
      )}
    </div>
  );
}
