'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, useState, type FormEvent } from 'react';
import { useTRPC, useTRPCClient } from '../../../app/_lib/trpc-react';
import { Button } from '../../ui/button';
import { EmptyState } from '../../ui/empty-state';
import { Input } from '../../ui/input';
import { Label } from '../../ui/label';
import { PageHeader } from '../../ui/page-header';
import { SkeletonRows } from '../../ui/skeleton';
import { LoadMore } from '../load-more';
import { QueryError } from '../query-error';
import { useCursorPages } from '../use-cursor-pages';
import { ExecutionsTable } from './executions-table';

const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'success', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
  { value: 'running', label: 'Running' },
] as const;

const RANGES = [
  { value: '', label: 'Any time', ms: 0 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

type Status = Exclude<(typeof STATUSES)[number]['value'], ''>;

interface Filters {
  module: string;
  status: Status | '';
  range: string;
  /** Fixed when the range is chosen, so the query (and its cache key) stays the same while paging. */
  since?: string;
}

const PAGE_SIZE = 25;
const selectClass =
  'h-10 w-full rounded-md border border-slate-400 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

/** Every execution of the tenant, newest first, filtered by module, status and time, paged with "Load more". */
export function ExecutionsView() {
  const trpc = useTRPC();
  const router = useRouter();
  const id = useId();
  const [filters, setFilters] = useState<Filters>({ module: '', status: '', range: '' });
  const [moduleDraft, setModuleDraft] = useState('');
  const [lookup, setLookup] = useState('');

  const input = {
    limit: PAGE_SIZE,
    ...(filters.module ? { module: filters.module } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.since ? { since: filters.since } : {}),
  };
  const client = useTRPCClient();
  const list = useCursorPages(trpc.executions.list.queryKey(input), (cursor) => client.executions.list.query({ ...input, ...(cursor ? { cursor } : {}) }));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Boolean(filters.module || filters.status || filters.range);

  const applyModule = (e: FormEvent) => {
    e.preventDefault();
    setFilters((f) => ({ ...f, module: moduleDraft.trim().toLowerCase() }));
  };

  return (
    <div className="grid gap-6">
      <PageHeader title="Executions" description="Every action run by your keys, tokens, agents and workflows, newest first." />

      <form
        className="flex flex-wrap items-end gap-2"
        aria-label="Find an execution by its id"
        onSubmit={(e) => {
          e.preventDefault();
          const value = lookup.trim();
          if (value) router.push(`/dashboard/executions/${encodeURIComponent(value)}`);
        }}
      >
        <div className="grid min-w-0 flex-1 gap-2 sm:max-w-md">
          <Label htmlFor={`${id}-lookup`}>Execution ID</Label>
          <Input id={`${id}-lookup`} value={lookup} onChange={(e) => setLookup(e.target.value)} placeholder="exe_…" className="font-mono" />
        </div>
        <Button type="submit" variant="secondary">
          Open
        </Button>
      </form>

      <section aria-label="Filters" className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 sm:grid-cols-3 dark:border-slate-800 dark:bg-slate-900">
        <form onSubmit={applyModule} className="grid gap-2">
          <Label htmlFor={`${id}-module`}>Module</Label>
          <div className="flex gap-2">
            <Input id={`${id}-module`} value={moduleDraft} onChange={(e) => setModuleDraft(e.target.value)} onBlur={applyModule} placeholder="e.g. text" />
            <Button type="submit" variant="secondary">
              Filter
            </Button>
          </div>
        </form>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-status`}>Status</Label>
          <select id={`${id}-status`} className={selectClass} value={filters.status} onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as Filters['status'] }))}>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-range`}>Time</Label>
          <select
            id={`${id}-range`}
            className={selectClass}
            value={filters.range}
            onChange={(e) => {
              const range = RANGES.find((r) => r.value === e.target.value) ?? RANGES[0];
              setFilters((f) => ({ ...f, range: range.value, since: range.ms ? new Date(Date.now() - range.ms).toISOString() : undefined }));
            }}
          >
            {RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
      </section>

      {list.isPending ? (
        <SkeletonRows rows={6} label="Loading executions" />
      ) : !list.data ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <div className="grid gap-3">
          <ExecutionsTable
            rows={rows}
            caption="Executions"
            empty={
              filtered ? (
                <EmptyState
                  title="No execution matches these filters"
                  action={
                    <Button
                      variant="secondary"
                      onClick={() => {
                        setFilters({ module: '', status: '', range: '' });
                        setModuleDraft('');
                      }}
                    >
                      Clear filters
                    </Button>
                  }
                />
              ) : (
                <EmptyState title="No executions yet">
                  Run an action with your API key or in a module&apos;s{' '}
                  <Link className="underline" href="/dashboard/modules">
                    playground
                  </Link>
                  .
                </EmptyState>
              )
            }
          />
          <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite" data-testid="executions-count">
            {rows.length} shown{list.hasNextPage ? ', more available' : ''}
          </p>
          <LoadMore list={list} />
        </div>
      )}
    </div>
  );
}
