'use client';

import { useMutation, useQueries, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Trash2 } from 'lucide-react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { Dialog, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { Skeleton, SkeletonRows } from '@/components/ui/skeleton';
import { JsonBlock } from '@/components/dashboard/modules/json-block';
import type { RouterOutputs } from '@/client/trpc/types';
import { LoadMore } from '@/components/dashboard/load-more';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { MEMORY_AGENTS } from '@/components/dashboard/first-queries';

type MemoryPage = RouterOutputs['memory']['list'];
type Entry = MemoryPage['data'][number];

/** The agent id rule of the API (src/memory/schema.ts agentId), checked here only to say it before asking. */
const AGENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PAGE_SIZE = 50;

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * An agent's memory: its entries newest-updated first (memory.list, the same as GET /api/v1/memory),
 * searched by text (`q`: keys and values) or tag, each value viewable, each entry deletable. The
 * agent, query and tag live in the URL, so a view can be bookmarked and reloaded.
 */
export function MemoryView() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const agent = params.get('agent') ?? '';
  const q = params.get('q') ?? '';
  const tag = params.get('tag') ?? '';
  const ids = { agent: useId(), q: useId(), tag: useId() };
  const [draft, setDraft] = useState({ agent, q, tag });
  const [formError, setFormError] = useState<string>();
  const trpc = useTRPC();
  // Issued with the entries' query (same render): one round.
  const agents = useQuery(trpc.memory.agents.queryOptions(MEMORY_AGENTS));
  // A role without memory:write (a viewer) reads entries; each Delete is off, described by the
  // reason under the header.
  const write = useAccess('writeMemory');
  const deniedId = useId();
  const deniedBy = write.allowed === false ? deniedId : undefined;

  const show = (next: { agent: string; q: string; tag: string }) => {
    const search = new URLSearchParams(Object.entries(next).filter(([, v]) => v) as [string, string][]);
    router.replace(`${pathname}?${search.toString()}`);
  };

  const apply = (e: React.FormEvent) => {
    e.preventDefault();
    const next = { agent: draft.agent.trim(), q: draft.q.trim(), tag: draft.tag.trim() };
    if (!AGENT_ID.test(next.agent)) {
      setFormError('Agent ids are 1–128 characters: A-Z, a-z, 0-9, . _ : -');
      return;
    }
    setFormError(undefined);
    show(next);
  };

  return (
    <div className="grid gap-6">
      <PageHeader
        title="Memory"
        description="What your agents remember: browse an agent's entries, search them, read a value, delete what should go."
      />
      {deniedBy ? <DeniedNote id={deniedId} reason={write.reason} /> : null}
      <form
        role="search"
        aria-label="Memory entries"
        className="grid gap-3 sm:grid-cols-[1fr_1fr_10rem_auto] sm:items-end"
        onSubmit={apply}
        noValidate
      >
        <div className="grid gap-2">
          <Label htmlFor={ids.agent}>Agent id</Label>
          <Input
            id={ids.agent}
            value={draft.agent}
            onChange={(e) => setDraft({ ...draft, agent: e.target.value })}
            placeholder="e.g. support-bot"
            aria-invalid={formError ? true : undefined}
            aria-describedby={formError ? `${ids.agent}-error` : undefined}
            autoComplete="off"
          />
        </div>
        <div className="grid gap-2">
          <Label htmlFor={ids.q}>Search keys and values</Label>
          <Input
            id={ids.q}
            type="search"
            value={draft.q}
            onChange={(e) => setDraft({ ...draft, q: e.target.value })}
            placeholder='e.g. invoice, "due date"'
          />
        </div>
        <div className="grid gap-2">
          <Label htmlFor={ids.tag}>Tag</Label>
          <Input id={ids.tag} value={draft.tag} onChange={(e) => setDraft({ ...draft, tag: e.target.value })} placeholder="any" />
        </div>
        <Button type="submit">Show entries</Button>
        {formError ? (
          <p id={`${ids.agent}-error`} className="text-sm font-medium text-red-700 sm:col-span-4 dark:text-red-400" aria-live="polite">
            {formError}
          </p>
        ) : null}
      </form>
      <AgentPicker
        agents={agents}
        current={agent}
        onPick={(id) => {
          setDraft({ agent: id, q: '', tag: '' });
          show({ agent: id, q: '', tag: '' });
        }}
      />
      {agent ? (
        <Entries agent={agent} q={q} tag={tag} deniedBy={deniedBy} />
      ) : (
        <EmptyState title={agents.data?.data.length ? 'Choose an agent' : 'No memory yet'}>
          Memory is kept per agent: enter the agent ID your agent saves its memory under, then search its entries by text or tag.
        </EmptyState>
      )}
    </div>
  );
}

/** The tenant's agents that have entries (memory.agents), one click to browse each. */
function AgentPicker({
  agents,
  current,
  onPick,
}: {
  agents: UseQueryResult<RouterOutputs['memory']['agents'], unknown>;
  current: string;
  onPick: (agent: string) => void;
}) {
  if (agents.isPending) return <Skeleton className="h-8 w-2/3" />;
  if (agents.isError) return <QueryError error={agents.error} retry={() => void agents.refetch()} />;
  if (agents.data.data.length === 0) return null;
  return (
    <div className="grid gap-2">
      <p className="text-sm font-medium" id="agents-label">
        Agents with memory{agents.data.has_more ? ' (the 100 most recently updated)' : ''}
      </p>
      <ul aria-labelledby="agents-label" className="flex flex-wrap gap-2">
        {agents.data.data.map((a) => (
          <li key={a.agent_id}>
            <Button
              size="sm"
              variant={a.agent_id === current ? 'default' : 'secondary'}
              aria-pressed={a.agent_id === current}
              onClick={() => onPick(a.agent_id)}
            >
              <span className="font-mono">{a.agent_id}</span>
              <Badge className="ml-1">{a.entries}</Badge>
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Entries({ agent, q, tag, deniedBy }: { agent: string; q: string; tag: string; deniedBy: string | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { agent_id: agent, limit: PAGE_SIZE, ...(q ? { q } : {}), ...(tag ? { tag } : {}) };
  // Pages read so far: the first, then one per "Load more" (the cursor of the page before).
  const [cursors, setCursors] = useState<string[]>([]);
  const pages = useQueries({
    queries: [undefined, ...cursors].map((cursor) => trpc.memory.list.queryOptions({ ...input, ...(cursor ? { cursor } : {}) })),
  });
  const listKey = trpc.memory.list.queryKey();
  const remove = useMutation(
    trpc.memory.delete.mutationOptions({
      // Optimistic: the row goes at once; back (refetched) if the API refuses.
      onMutate: async (vars) => {
        await queryClient.cancelQueries({ queryKey: listKey });
        queryClient.setQueriesData<MemoryPage>({ queryKey: listKey }, (old) =>
          old ? { ...old, data: old.data.filter((e) => !(e.agent_id === vars.agent_id && e.key === vars.key)) } : old,
        );
      },
      onSuccess: (res) => toast.success(`Deleted “${res.key}”`),
      // The agents' entry counts (the picker's chips) change with a delete too.
      onSettled: () =>
        void Promise.all([
          queryClient.invalidateQueries({ queryKey: listKey }),
          queryClient.invalidateQueries({ queryKey: trpc.memory.agents.queryKey() }),
        ]),
    }),
  );
  const first = pages[0]!;
  const last = pages.at(-1)!;
  // The shape LoadMore reads: a later page that failed shows its error, and retrying refetches it.
  const later = cursors.length > 0;
  const list = {
    // While a page loads, its button stays (with its spinner).
    hasNextPage: later && last.isPending ? true : Boolean(last.data?.next_cursor),
    isFetchingNextPage: later && last.isPending,
    isError: later && last.isError,
    error: last.error,
    fetchNextPage: async () => {
      if (later && last.isError) return last.refetch();
      const next = last.data?.next_cursor;
      if (next) setCursors([...cursors, next]);
    },
  };
  if (first.isPending) return <SkeletonRows rows={5} label="Loading memory entries" />;
  if (first.isError) return <QueryError error={first.error} retry={() => void first.refetch()} />;
  const entries = pages.flatMap((p) => p.data?.data ?? []);

  const columns: ColumnDef<Entry, unknown>[] = [
    { accessorKey: 'key', header: 'Key', cell: ({ row }) => <span className="font-mono text-xs wrap-anywhere">{row.original.key}</span> },
    {
      id: 'value',
      header: 'Value',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="line-clamp-2 max-w-xs font-mono text-xs wrap-anywhere text-slate-700 dark:text-slate-300">
          {JSON.stringify(row.original.value)}
        </span>
      ),
    },
    {
      id: 'tags',
      header: 'Tags',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="flex flex-wrap gap-1">
          {row.original.tags.length ? (
            row.original.tags.map((t) => <Badge key={t}>{t}</Badge>)
          ) : (
            <span className="text-slate-500 dark:text-slate-400">none</span>
          )}
        </span>
      ),
    },
    {
      accessorKey: 'updated_at',
      header: 'Updated',
      cell: ({ row }) => <span className="whitespace-nowrap">{when(row.original.updated_at)}</span>,
    },
    {
      accessorKey: 'expires_at',
      header: 'Expires',
      cell: ({ row }) => <span className="whitespace-nowrap">{row.original.expires_at ? when(row.original.expires_at) : 'Never'}</span>,
    },
    {
      id: 'actions',
      header: () => <span className="sr-only">Actions</span>,
      enableSorting: false,
      cell: ({ row }) => (
        <div className="flex gap-2">
          <Dialog>
            <DialogTrigger asChild>
              <Button size="sm" variant="secondary" aria-label={`View ${row.original.key}`}>
                View
              </Button>
            </DialogTrigger>
            <DialogContent
              title={row.original.key}
              description={`Agent ${agent} · updated ${when(row.original.updated_at)}`}
              className="max-w-2xl"
            >
              <JsonBlock value={row.original.value} label={`Value of ${row.original.key}`} testId="memory-value" />
            </DialogContent>
          </Dialog>
          {deniedBy ? (
            <Button size="sm" variant="ghost" aria-label={`Delete ${row.original.key}`} disabled aria-describedby={deniedBy}>
              <Trash2 aria-hidden="true" className="size-4" />
            </Button>
          ) : (
            <ConfirmDialog
              trigger={
                <Button size="sm" variant="ghost" aria-label={`Delete ${row.original.key}`}>
                  <Trash2 aria-hidden="true" className="size-4" />
                </Button>
              }
              title={`Delete “${row.original.key}”?`}
              description={`The entry is removed from agent ${agent}'s memory for good.`}
              confirmLabel="Delete entry"
              onConfirm={() =>
                remove
                  .mutateAsync({ agent_id: agent, key: row.original.key })
                  .catch((err: unknown) => Promise.reject(new Error(errorMessage(err))))
              }
            />
          )}
        </div>
      ),
    },
  ];

  return (
    <section aria-label={`Memory of ${agent}`} className="grid gap-3">
      <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
        {entries.length} entr{entries.length === 1 ? 'y' : 'ies'} of <span className="font-mono">{agent}</span>
        {q ? ` matching “${q}”` : ''}
        {tag ? ` tagged ${tag}` : ''}
        {list.hasNextPage ? ' so far' : ''}
      </p>
      <DataTable
        columns={columns}
        data={entries}
        caption={`Memory entries of ${agent}`}
        getRowId={(e) => e.key}
        empty={
          <EmptyState title={q || tag ? 'No entry matches' : 'No entries for this agent'}>
            {q || tag ? 'Try other words or another tag.' : 'Check the agent ID: entries appear here once the agent saves them.'}
          </EmptyState>
        }
      />
      <LoadMore list={list} />
    </section>
  );
}
