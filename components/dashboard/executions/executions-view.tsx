'use client';

import { Link } from '@/components/ui/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { formatDateTime } from '@/components/dashboard/format';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { LoadMore } from '@/components/dashboard/load-more';
import { QueryError } from '@/components/dashboard/query-error';
import { useCursorPages } from '@/components/dashboard/use-cursor-pages';
import { ExecutionsTable } from './executions-table';
import { SEARCH_MAX_LENGTH } from '@/src/contract/limits';
import { EXECUTIONS_LIST } from '@/components/dashboard/first-queries';

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
type Range = (typeof RANGES)[number]['value'];

/** The filters as the URL carries them (`?q=&module=&status=&range=`), so a view can be bookmarked, shared and reloaded. */
interface Filters {
  q: string;
  module: string;
  status: Status | '';
  range: Range;
}

const PAGE_SIZE = EXECUTIONS_LIST.limit;
/** How long typing pauses before the search runs. */
const SEARCH_DEBOUNCE_MS = 300;
const selectClass =
  'h-10 w-full rounded-md border border-slate-400 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

function readFilters(params: URLSearchParams): Filters {
  const status = params.get('status') ?? '';
  const range = params.get('range') ?? '';
  return {
    q: params.get('q') ?? '',
    module: params.get('module') ?? '',
    status: STATUSES.some((s) => s.value === status) ? (status as Status | '') : '',
    range: RANGES.some((r) => r.value === range) ? (range as Range) : '',
  };
}

/** The start of a time range, fixed when the range is chosen so the query (and its cache key) stays the same while paging. */
const sinceOf = (range: Range) => {
  const ms = RANGES.find((r) => r.value === range)?.ms ?? 0;
  return ms ? new Date(Date.now() - ms).toISOString() : undefined;
};

/** Every execution of the tenant, newest first, searched and filtered by module, status and time, paged with "Load more". */
export function ExecutionsView() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const id = useId();
  const filters = readFilters(params);
  const [moduleDraft, setModuleDraft] = useState(filters.module);
  const [searchDraft, setSearchDraft] = useState(filters.q);
  const [lookup, setLookup] = useState('');
  // The drafts follow the URL when it changes from outside (back/forward, "Clear filters").
  const [seen, setSeen] = useState({ q: filters.q, module: filters.module });
  if (seen.q !== filters.q || seen.module !== filters.module) {
    setSeen({ q: filters.q, module: filters.module });
    if (seen.q !== filters.q) setSearchDraft(filters.q);
    if (seen.module !== filters.module) setModuleDraft(filters.module);
  }
  const [timeWindow, setTimeWindow] = useState(() => ({ range: filters.range, since: sinceOf(filters.range) }));
  if (timeWindow.range !== filters.range) setTimeWindow({ range: filters.range, since: sinceOf(filters.range) });

  const show = (patch: Partial<Filters>) => {
    const next = { ...filters, ...patch };
    const search = new URLSearchParams(Object.entries(next).filter(([, v]) => v) as [string, string][]);
    const query = search.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };

  // The search runs once typing pauses (Enter runs it at once).
  const typed = searchDraft.trim();
  useEffect(() => {
    if (typed === filters.q) return;
    const timer = setTimeout(() => show({ q: typed }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  });

  const input = {
    limit: PAGE_SIZE,
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.module ? { module: filters.module } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(timeWindow.since && timeWindow.range === filters.range ? { since: timeWindow.since } : {}),
  };
  const client = useTRPCClient();
  const list = useCursorPages(trpc.executions.list.queryKey(input), (cursor) =>
    client.executions.list.query({ ...input, ...(cursor ? { cursor } : {}) }),
  );
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const searchedBackTo = list.data?.pages.at(-1)?.searched_back_to;
  const filtered = Boolean(filters.q || filters.module || filters.status || filters.range);

  const applyModule = (e: FormEvent) => {
    e.preventDefault();
    const module = moduleDraft.trim().toLowerCase();
    if (module !== filters.module) show({ module });
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

      <section
        aria-label="Filters"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 sm:grid-cols-3 dark:border-slate-800 dark:bg-slate-900"
      >
        <form
          role="search"
          aria-label="Executions"
          className="grid gap-2 sm:col-span-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (typed !== filters.q) show({ q: typed });
          }}
        >
          <Label htmlFor={`${id}-q`}>Search</Label>
          <Input
            id={`${id}-q`}
            type="search"
            value={searchDraft}
            maxLength={SEARCH_MAX_LENGTH}
            onChange={(e) => setSearchDraft(e.target.value)}
            placeholder="Execution or request id, action, error code or message"
            aria-describedby={`${id}-q-help`}
            autoComplete="off"
            spellCheck={false}
          />
          <p id={`${id}-q-help`} className="text-xs text-slate-600 dark:text-slate-400">
            An exact execution or request id; otherwise actions starting with the text (<code>slug</code> or <code>text.slug</code>), an
            error code (<code>timeout</code>) or words in an error message.
          </p>
        </form>
        <form onSubmit={applyModule} className="grid gap-2">
          <Label htmlFor={`${id}-module`}>Module</Label>
          <div className="flex gap-2">
            <Input
              id={`${id}-module`}
              value={moduleDraft}
              onChange={(e) => setModuleDraft(e.target.value)}
              onBlur={applyModule}
              placeholder="e.g. text"
            />
            <Button type="submit" variant="secondary">
              Filter
            </Button>
          </div>
        </form>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-status`}>Status</Label>
          <select
            id={`${id}-status`}
            className={selectClass}
            value={filters.status}
            onChange={(e) => show({ status: e.target.value as Filters['status'] })}
          >
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
            onChange={(e) => show({ range: e.target.value as Range })}
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
                  title={
                    filters.q
                      ? `No execution matches “${filters.q}”${filters.module || filters.status || filters.range ? ' with these filters' : ''}`
                      : 'No execution matches these filters'
                  }
                  action={
                    <Button variant="secondary" onClick={() => show({ q: '', module: '', status: '', range: '' })}>
                      Clear {filters.q ? 'search and ' : ''}filters
                    </Button>
                  }
                >
                  {filters.q && list.hasNextPage && searchedBackTo
                    ? `Searched the executions back to ${formatDateTime(searchedBackTo)}; load more to search older ones.`
                    : null}
                </EmptyState>
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
            {filters.q ? `${rows.length} found` : `${rows.length} shown`}
            {list.hasNextPage
              ? filters.q && searchedBackTo
                ? `, searched back to ${formatDateTime(searchedBackTo)}; more to search`
                : ', more available'
              : ''}
          </p>
          <LoadMore list={list} />
        </div>
      )}
    </div>
  );
}
