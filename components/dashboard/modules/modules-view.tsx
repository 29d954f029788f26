'use client';

import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { Search } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useEffect, useId, useState } from 'react';
import { useTRPC } from '@/client/trpc/react';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { InstallButton } from './install-button';
import { TrustBadges } from './trust-badges';
import type { RouterOutputs } from '@/client/trpc/types';
import { SEARCH_MAX_LENGTH } from '@/src/contract/limits';
import { MODULES_LIST } from '@/components/dashboard/first-queries';

const selectClass =
  'h-10 w-full rounded-md border border-slate-400 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

/** The query typed in the search box, settled for 300 ms (one search per pause, not per keystroke). */
function useSettled(value: string, ms = 300): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/**
 * The catalog: every module visible to the tenant, by category and installed state, or the ranked
 * catalog search (`catalog.search`, the same as GET /api/v1/catalog/search) while a query is typed.
 */
export function ModulesView() {
  const trpc = useTRPC();
  const ids = { search: useId(), category: useId(), installed: useId() };
  const [typed, setTyped] = useState('');
  const [category, setCategory] = useState('');
  const [installedOnly, setInstalledOnly] = useState(false);
  const q = useSettled(typed.trim());

  // One round: the list and (while a query is typed) the search are issued together.
  const all = useQuery(trpc.modules.list.queryOptions(MODULES_LIST));
  const filtered = useQuery({
    ...trpc.modules.list.queryOptions({
      limit: 100,
      ...(category ? { category } : {}),
      ...(installedOnly ? { installed: 'true' as const } : {}),
    }),
    enabled: Boolean(category || installedOnly),
  });
  const search = useQuery({
    ...trpc.catalog.search.queryOptions({ q, limit: 50, ...(category ? { category } : {}) }),
    enabled: q.length > 0,
  });
  // A role without modules:install (a viewer) browses the catalog; Install and Uninstall are off,
  // each described by the reason under the header. Asked here, so it joins the page's one round.
  const install = useAccess('installModules');
  const deniedId = useId();
  const deniedBy = install.allowed === false ? deniedId : undefined;

  const categories = [...new Set((all.data?.data ?? []).map((m) => m.category))].sort();
  const list = category || installedOnly ? filtered : all;

  return (
    <div className="grid gap-6">
      <PageHeader title="Modules" description="Browse the catalog, install what your agents need, and try each action in the playground." />
      {deniedBy ? <DeniedNote id={deniedId} reason={install.reason} /> : null}

      <form role="search" className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-end" onSubmit={(e) => e.preventDefault()}>
        <div className="grid gap-2">
          <Label htmlFor={ids.search}>Search actions</Label>
          <div className="relative">
            <Search aria-hidden="true" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500" />
            <Input
              id={ids.search}
              type="search"
              className="pl-9"
              placeholder='e.g. slugify, "json schema", -xml'
              maxLength={SEARCH_MAX_LENGTH}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
            />
          </div>
        </div>
        <div className="grid gap-2">
          <Label htmlFor={ids.category}>Category</Label>
          <select id={ids.category} className={selectClass} value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <label className="flex h-10 items-center gap-2 text-sm font-medium" htmlFor={ids.installed}>
          <input
            id={ids.installed}
            type="checkbox"
            className="size-4 accent-indigo-600"
            checked={installedOnly}
            onChange={(e) => setInstalledOnly(e.target.checked)}
          />
          Installed only
        </label>
      </form>

      {q ? (
        <SearchResults
          query={search}
          installedOnly={installedOnly}
          installed={new Set((all.data?.data ?? []).filter((m) => m.installed).map((m) => m.name))}
        />
      ) : (
        <ModuleGrid query={list} filteredBy={category || installedOnly ? { category, installedOnly } : null} deniedBy={deniedBy} />
      )}
    </div>
  );
}

function ModuleGrid({
  query,
  filteredBy,
  deniedBy,
}: {
  query: UseQueryResult<RouterOutputs['modules']['list'], unknown>;
  filteredBy: { category: string; installedOnly: boolean } | null;
  deniedBy: string | undefined;
}) {
  if (query.isPending) return <SkeletonRows rows={6} label="Loading modules" />;
  if (query.isError) return <QueryError error={query.error} retry={() => void query.refetch()} />;
  const modules = query.data.data;
  if (modules.length === 0) {
    return filteredBy?.installedOnly ? (
      <EmptyState title="No module installed yet">
        Install a module below (clear the filter), or simply execute one of its actions: the first execution installs it.
      </EmptyState>
    ) : (
      <EmptyState title="No module matches">Choose another category or clear the filters.</EmptyState>
    );
  }
  return (
    <section aria-label="Modules">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
        {query.data.total} module{query.data.total === 1 ? '' : 's'}
        {query.data.has_more ? ` (the first ${modules.length} shown)` : ''}
      </p>
      <ul className="grid gap-4 md:grid-cols-2">
        {modules.map((m) => (
          <li key={m.name}>
            <Card className="flex h-full flex-col gap-3 p-5" data-testid={`module-card-${m.name}`}>
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <h2 className="text-base font-semibold">
                    <Link
                      className="rounded-sm hover:underline focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
                      href={`/dashboard/modules/${encodeURIComponent(m.name)}`}
                    >
                      {m.title}
                    </Link>
                  </h2>
                  <p className="font-mono text-xs text-slate-600 dark:text-slate-400">
                    {m.name} · v{m.version} · {m.publisher}
                  </p>
                </div>
                {m.installed ? <Badge tone="success">Installed</Badge> : null}
              </div>
              <p className="line-clamp-3 text-sm text-slate-700 dark:text-slate-300">{m.description}</p>
              <div className="mt-auto flex flex-wrap items-center justify-between gap-2">
                <span className="inline-flex flex-wrap items-center gap-1">
                  <Badge>{m.category}</Badge>
                  <Badge>
                    {m.actions.length} action{m.actions.length === 1 ? '' : 's'}
                  </Badge>
                  <TrustBadges score={m.trust_score} tier={m.certification_tier} />
                </span>
                <InstallButton module={m} deniedBy={deniedBy} />
              </div>
            </Card>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SearchResults({
  query,
  installedOnly,
  installed,
}: {
  query: UseQueryResult<RouterOutputs['catalog']['search'], unknown>;
  installedOnly: boolean;
  installed: Set<string>;
}) {
  if (query.isPending) return <SkeletonRows rows={4} label="Searching" />;
  if (query.isError) return <QueryError error={query.error} retry={() => void query.refetch()} />;
  const hits = installedOnly ? query.data.data.filter((h) => installed.has(h.module)) : query.data.data;
  if (hits.length === 0) {
    return (
      <EmptyState title={`No action matches “${query.data.query}”`}>
        Try fewer or other words; quote a phrase (&quot;json schema&quot;) or exclude a word with a minus (-xml).
      </EmptyState>
    );
  }
  return (
    <section aria-label="Search results">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
        {query.data.total} action{query.data.total === 1 ? '' : 's'} match, best first
        {installedOnly ? ` (${hits.length} in installed modules)` : ''}
      </p>
      <ol className="grid gap-2">
        {hits.map((h) => (
          <li key={`${h.module}/${h.action}`}>
            <Card className="flex flex-wrap items-center justify-between gap-3 p-4" data-testid="search-hit">
              <div className="min-w-0">
                <p className="font-medium">
                  <Link
                    className="rounded-sm hover:underline focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
                    href={`/dashboard/modules/${encodeURIComponent(h.module)}/${encodeURIComponent(h.action)}`}
                  >
                    {h.module}.{h.action}
                  </Link>
                  <span className="ml-2 text-sm font-normal text-slate-600 dark:text-slate-400">{h.title}</span>
                </p>
                <p className="text-sm text-slate-700 dark:text-slate-300">{h.description}</p>
              </div>
              <Link
                className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                href={`/dashboard/modules/${encodeURIComponent(h.module)}`}
              >
                Module details
              </Link>
            </Card>
          </li>
        ))}
      </ol>
    </section>
  );
}
