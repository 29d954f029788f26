'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ChevronDown, KeyRound, Plus } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useId, useState, type BaseSyntheticEvent, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'sonner';
import { z } from 'zod';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import { DEFAULT_KEY_SCOPES, missingScope, type Scope } from '@/src/contract/scopes';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Copyable } from '@/components/ui/copyable';
import { DataTable } from '@/components/ui/data-table';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { ActionMenu, ActionMenuItem, ActionMenuSeparator } from '@/components/ui/dropdown-menu';
import { EmptyState } from '@/components/ui/empty-state';
import { FormField } from '@/components/ui/form-field';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDate, formatDateTime, formatRelative } from '@/components/dashboard/format';
import { LoadMore } from '@/components/dashboard/load-more';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, keyScopeDenied, useAccess, useCaller, type Caller } from '@/components/dashboard/access';
import { cursorPagesKey, useCursorPages } from '@/components/dashboard/use-cursor-pages';
import { KeyUsageDialog } from './key-usage-dialog';
import { policySummary } from './policy';
import { KeyPolicyDialog } from './policy-dialog';
import { MULTIPLE_KEYS_PLAN, SCOPE_MEANINGS, SCOPES } from './scopes';
import type { RouterOutputs } from '@/client/trpc/types';
import { atMostCharacters } from '@/components/forms/fields';
import { KEY_GRACE_MAX_SECONDS, KEY_NAME_MAX_LENGTH } from '@/src/contract/limits';
import { KEYS_LIST } from '@/components/dashboard/first-queries';

type KeySummary = RouterOutputs['keys']['list']['data'][number];
type KeyList = RouterOutputs['keys']['list'];

/** Keys per page (KEYS_PAGE_SIZE), newest first; "Load more" reaches every key (the API's cursor). */
const LIST_INPUT = KEYS_LIST;
/** Seconds the old secret keeps working after a rotation, unless the user picks otherwise. */
const DEFAULT_GRACE_SECONDS = 3600;

/**
 * The tenant's API keys: list with each key's policy in short, create with a scope picker (secret
 * shown once), edit a key's policy, see its usage this cycle, rotate with a grace period, revoke
 * with confirmation (optimistic, rolled back on error). On the free plan the
 * create button explains why it is unavailable.
 */
export function KeysView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  // Both queries start together (one round of requests).
  const me = useQuery(trpc.tenants.me.queryOptions({}));
  const keys = useCursorPages(trpc.keys.list.queryKey(LIST_INPUT), (cursor) =>
    client.keys.list.query({ ...LIST_INPUT, ...(cursor ? { cursor } : {}) }),
  );
  const rows = keys.data?.pages.flatMap((p) => p.data) ?? [];
  const [creating, setCreating] = useState(false);
  const planLimited = me.data?.plan === 'free';
  const limitId = useId();
  // A role without keys:manage (a viewer) sees the keys, never changes them: the reason is beside the button.
  const manage = useAccess('manageKeys');
  const roleId = useId();
  const denied = manage.allowed === false;

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="API keys"
        description="Keys let your agents and scripts call the API. Each key carries only the scopes you give it."
        actions={
          <Button
            onClick={() => setCreating(true)}
            disabled={!me.data || planLimited || denied}
            aria-describedby={denied ? roleId : planLimited ? limitId : undefined}
          >
            <Plus aria-hidden="true" className="size-4" />
            Create key
          </Button>
        }
      />
      {denied ? <DeniedNote id={roleId} reason={manage.reason} /> : null}
      {planLimited && !denied ? (
        <Alert title="Your plan includes one key" id={limitId} data-testid="keys-plan-limit">
          <p>
            The free plan comes with one API key: the primary key, with full access (scope <code>*</code>). Creating additional keys with
            their own scopes needs the <span className="font-medium capitalize">{MULTIPLE_KEYS_PLAN}</span> plan or above.
          </p>
          <p className="mt-2">
            <Link href="/dashboard/usage" className="font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
              See your usage and change plan
            </Link>
          </p>
        </Alert>
      ) : null}
      {keys.isPending || me.isPending ? (
        <SkeletonRows rows={3} label="Loading your keys" />
      ) : !keys.data ? (
        <QueryError error={keys.error} retry={() => void keys.refetch()} />
      ) : me.isError ? (
        <QueryError error={me.error} retry={() => void me.refetch()} />
      ) : (
        <div className="grid grid-cols-1 gap-3">
          <KeysTable keys={rows} />
          {keys.hasNextPage ? (
            <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite" data-testid="keys-count">
              The newest {rows.length} keys shown; older ones follow.
            </p>
          ) : null}
          <LoadMore list={keys} />
        </div>
      )}
      <CreateKeyDialog open={creating} onOpenChange={setCreating} />
    </div>
  );
}

function ScopeBadges({ scopes }: { scopes: string[] }) {
  return (
    <ul className="flex max-w-xs flex-wrap gap-1" aria-label="Scopes">
      {scopes.map((s) => (
        <li key={s}>
          <Badge tone={s === '*' ? 'info' : 'neutral'} className="font-mono">
            {s}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

/** Module-level, so each cell keeps its identity across renders (a row's open dialog survives a refetch). */
const columns: ColumnDef<KeySummary, unknown>[] = [
  {
    accessorKey: 'name',
    header: 'Name',
    cell: ({ row }) => (
      <div className="grid max-w-xs min-w-32 grid-cols-1 gap-1">
        <span className="font-medium [overflow-wrap:anywhere]">{row.original.name}</span>
        {row.original.primary ? <span className="text-xs text-slate-600 dark:text-slate-400">Primary key</span> : null}
      </div>
    ),
  },
  {
    accessorKey: 'prefix',
    header: 'Prefix',
    cell: ({ row }) => <code className="font-mono text-xs whitespace-nowrap">{row.original.prefix}…</code>,
  },
  { id: 'scopes', header: 'Scopes', enableSorting: false, cell: ({ row }) => <ScopeBadges scopes={row.original.scopes} /> },
  {
    id: 'policy',
    header: 'Policy',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="block max-w-[16rem] text-sm" data-testid="key-policy-summary">
        {policySummary(row.original.policy, formatDate)}
      </span>
    ),
  },
  {
    id: 'state',
    header: 'State',
    enableSorting: false,
    cell: ({ row }) =>
      row.original.suspended ? (
        <div className="grid max-w-[14rem] gap-1">
          <Badge tone="warning">Suspended</Badge>
          <span className="text-xs text-slate-600 dark:text-slate-400">Refused with 403 until the plan allows more keys again.</span>
        </div>
      ) : (
        <Badge tone="success">Active</Badge>
      ),
  },
  {
    accessorKey: 'created_at',
    header: 'Created',
    cell: ({ row }) => (
      <time dateTime={row.original.created_at} title={formatDateTime(row.original.created_at)} className="whitespace-nowrap">
        {formatDate(row.original.created_at)}
      </time>
    ),
  },
  {
    accessorKey: 'last_used_at',
    header: 'Last used',
    cell: ({ row }) =>
      row.original.last_used_at ? (
        <time dateTime={row.original.last_used_at} title={formatDateTime(row.original.last_used_at)} className="whitespace-nowrap">
          {formatRelative(row.original.last_used_at)}
        </time>
      ) : (
        'Never'
      ),
  },
  {
    id: 'actions',
    header: () => <span className="sr-only">Actions</span>,
    enableSorting: false,
    cell: ({ row }) => <KeyActions keyRow={row.original} />,
  },
];

function KeysTable({ keys }: { keys: KeySummary[] }) {
  return (
    <DataTable
      columns={columns}
      data={keys}
      caption="Your API keys"
      getRowId={(k) => k.key_id}
      empty={<EmptyState title="No keys yet">Create a key to call the API from your agents and scripts.</EmptyState>}
    />
  );
}

function KeyActions({ keyRow }: { keyRow: KeySummary }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const listKey = cursorPagesKey(trpc.keys.list.queryKey(LIST_INPUT));
  // Optimistic: the row goes at once and comes back, with the API's message, if the API refuses.
  // The callbacks belong to the mutation, not to mutate(): the row (this component) is gone before they run.
  const revoke = useMutation({
    ...trpc.keys.revoke.mutationOptions(),
    onMutate: async () => {
      await queryClient.cancelQueries({ queryKey: listKey });
      const previous = queryClient.getQueryData<InfiniteData<KeyList>>(listKey);
      queryClient.setQueryData<InfiniteData<KeyList>>(listKey, (old) =>
        old ? { ...old, pages: old.pages.map((p) => ({ ...p, data: p.data.filter((k) => k.key_id !== keyRow.key_id) })) } : old,
      );
      return { previous };
    },
    onSuccess: () => void toast.success(`Key “${keyRow.name}” revoked. It stops working on the next request.`),
    onError: (err, _input, context) => {
      queryClient.setQueryData(listKey, context?.previous);
      toast.error(errorMessage(err));
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() }),
  });
  const [rotating, setRotating] = useState(false);
  const [editingPolicy, setEditingPolicy] = useState(false);
  const [viewingUsage, setViewingUsage] = useState(false);
  const [revoking, setRevoking] = useState(false);
  const manage = useAccess('manageKeys');

  if (manage.allowed === false)
    return (
      <div>
        <Button size="sm" variant="secondary" aria-label={`Usage of ${keyRow.name}`} onClick={() => setViewingUsage(true)}>
          Usage
        </Button>
        <KeyUsageDialog keyRow={keyRow} open={viewingUsage} onOpenChange={setViewingUsage} />
      </div>
    );

  return (
    <div>
      <ActionMenu
        trigger={
          <Button size="sm" variant="secondary" aria-label={`Manage ${keyRow.name}`}>
            Manage
            <ChevronDown aria-hidden="true" className="size-4" />
          </Button>
        }
      >
        <ActionMenuItem onPick={() => setEditingPolicy(true)}>Policy…</ActionMenuItem>
        <ActionMenuItem onPick={() => setViewingUsage(true)}>Usage…</ActionMenuItem>
        <ActionMenuItem onPick={() => setRotating(true)}>Rotate…</ActionMenuItem>
        <ActionMenuSeparator />
        <ActionMenuItem destructive onPick={() => setRevoking(true)}>
          Revoke…
        </ActionMenuItem>
      </ActionMenu>
      <ConfirmDialog
        open={revoking}
        onOpenChange={setRevoking}
        title={`Revoke “${keyRow.name}”?`}
        description={
          <>
            Every client using the key <code className="font-mono">{keyRow.prefix}…</code> is refused from its next request, on every
            instance. This cannot be undone.
          </>
        }
        confirmLabel="Revoke key"
        onConfirm={async () => void revoke.mutate({ key_id: keyRow.key_id })}
      />
      <RotateKeyDialog keyRow={keyRow} open={rotating} onOpenChange={setRotating} />
      <KeyPolicyDialog keyRow={keyRow} open={editingPolicy} onOpenChange={setEditingPolicy} />
      <KeyUsageDialog keyRow={keyRow} open={viewingUsage} onOpenChange={setViewingUsage} />
    </div>
  );
}

/** The secret, once: copy it now, it is never shown again. */
function OneTimeSecret({ value, label, children }: { value: string; label: string; children?: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-3">
      <Alert variant="success" title="Copy the secret now">
        It is shown only this once; the dashboard and the API keep only its hash. Store it in your secret manager.
        {children}
      </Alert>
      <Copyable value={value} label={label} testId="new-key-secret" />
    </div>
  );
}

const createSchema = z.object({
  name: z.string().trim().min(1, 'Name the key.').max(KEY_NAME_MAX_LENGTH, atMostCharacters(KEY_NAME_MAX_LENGTH)),
  scopes: z.array(z.enum(SCOPES as [Scope, ...Scope[]])).min(1, 'Choose at least one scope.'),
});
type CreateValues = z.infer<typeof createSchema>;

function CreateKeyDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.keys.create.mutationOptions());
  const [secret, setSecret] = useState<string>();
  const form = useForm<CreateValues>({ resolver: zodResolver(createSchema), defaultValues: { name: '', scopes: DEFAULT_KEY_SCOPES } });
  const chosen = form.watch('scopes');
  const scopesError = form.formState.errors.scopes?.message;
  const legendId = useId();
  // A key holds no scope its creator lacks (a developer gives no `*`, billing:read or audit:read):
  // those boxes are off, each with the reason under its meaning.
  const caller = useCaller().data as Caller | undefined;

  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      setSecret(undefined);
      create.reset();
      form.reset();
    }
  };
  const submit = form.handleSubmit(async (values) => {
    try {
      const key = await create.mutateAsync(values);
      setSecret(key.api_key);
      void queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
    } catch {
      // Shown below, verbatim, from create.error.
    }
  });
  // A new attempt: the last answer's error no longer applies (field errors show under their fields).
  const onSubmit = (event?: BaseSyntheticEvent) => {
    create.reset();
    return submit(event);
  };
  const toggle = (scope: Scope, on: boolean) => {
    const next = on ? [...chosen, scope] : chosen.filter((s) => s !== scope);
    form.setValue('scopes', next, { shouldValidate: form.formState.isSubmitted });
  };

  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent
        title={secret ? 'Your new key' : 'Create an API key'}
        description={secret ? undefined : 'Give the key a name and only the scopes its client needs.'}
        className="max-w-xl"
      >
        {secret ? (
          <div className="grid grid-cols-1 gap-4">
            <OneTimeSecret value={secret} label="API key" />
            <div className="flex justify-end">
              <Button onClick={() => close(false)}>Done</Button>
            </div>
          </div>
        ) : (
          <form onSubmit={onSubmit} noValidate className="grid grid-cols-1 gap-4">
            {create.isError ? <Alert variant="error">{errorMessage(create.error)}</Alert> : null}
            <FormField
              label="Name"
              autoComplete="off"
              placeholder="e.g. research-bot production"
              required
              error={form.formState.errors.name?.message}
              {...form.register('name')}
            />
            <fieldset className="grid grid-cols-1 gap-2" aria-describedby={scopesError ? `${legendId}-error` : undefined}>
              <legend id={legendId} className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">
                Scopes
              </legend>
              {SCOPES.map((scope) => {
                const id = `${legendId}-${scope}`;
                const denied = caller ? keyScopeDenied(caller, scope, 'give') : undefined;
                return (
                  <div key={scope} className="flex items-start gap-3 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-800">
                    <Checkbox
                      id={id}
                      className="mt-0.5"
                      checked={chosen.includes(scope)}
                      disabled={Boolean(denied)}
                      onCheckedChange={(v) => toggle(scope, v === true)}
                      aria-describedby={denied ? `${id}-meaning ${id}-denied` : `${id}-meaning`}
                    />
                    <div className="grid grid-cols-1 gap-0.5">
                      <Label htmlFor={id} className="font-mono">
                        {scope}
                      </Label>
                      <span id={`${id}-meaning`} className="text-xs text-slate-600 dark:text-slate-400">
                        {SCOPE_MEANINGS[scope]}
                      </span>
                      {denied ? <DeniedNote id={`${id}-denied`} reason={denied} className="text-xs" /> : null}
                    </div>
                  </div>
                );
              })}
              <p id={`${legendId}-error`} aria-live="polite" className="text-sm font-medium text-red-700 empty:hidden dark:text-red-400">
                {scopesError ?? ''}
              </p>
            </fieldset>
            <div className="flex justify-end gap-2">
              <Button type="button" variant="secondary" onClick={() => close(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                <KeyRound aria-hidden="true" className="size-4" />
                Create key
              </Button>
            </div>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}

const rotateSchema = z.object({
  grace: z
    .string()
    .trim()
    .regex(/^\d+$/, 'Enter whole seconds, 0 or more.')
    .transform(Number)
    .pipe(z.number().max(KEY_GRACE_MAX_SECONDS, `At most ${KEY_GRACE_MAX_SECONDS.toLocaleString('en-US')} seconds (one day).`)),
});

function RotateKeyDialog({ keyRow, open, onOpenChange }: { keyRow: KeySummary; open: boolean; onOpenChange: (open: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rotate = useMutation(trpc.keys.rotate.mutationOptions());
  const [result, setResult] = useState<{ secret: string; oldUntil: string | null }>();
  const form = useForm<z.input<typeof rotateSchema>, unknown, z.output<typeof rotateSchema>>({
    resolver: zodResolver(rotateSchema),
    defaultValues: { grace: String(DEFAULT_GRACE_SECONDS) },
  });

  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      setResult(undefined);
      rotate.reset();
      form.reset();
    }
  };
  const submit = form.handleSubmit(async ({ grace }) => {
    try {
      const rotated = await rotate.mutateAsync({ key_id: keyRow.key_id, grace_seconds: grace });
      setResult({ secret: rotated.api_key, oldUntil: rotated.previous_key_expires_at });
      void queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
    } catch {
      // Shown below, verbatim, from rotate.error.
    }
  });
  const onSubmit = (event?: BaseSyntheticEvent) => {
    rotate.reset();
    return submit(event);
  };
  // Rotating needs every scope of the key (no escalation through rotation): off, with the reason.
  const caller = useCaller().data as Caller | undefined;
  const lacking = caller ? missingScope(caller.scopes, keyRow.scopes) : undefined;
  const denied = caller && lacking ? keyScopeDenied(caller, lacking, 'rotate') : undefined;
  const deniedId = useId();

  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent
        title={`Rotate “${keyRow.name}”`}
        description={result ? undefined : 'Issues a new secret for the same key (same id, name and scopes).'}
      >
        {result ? (
          <div className="grid grid-cols-1 gap-4">
            <OneTimeSecret value={result.secret} label="new API key">
              <p className="mt-1">
                {result.oldUntil
                  ? `The old secret keeps working until ${formatDateTime(result.oldUntil)}.`
                  : 'The old secret stopped working now.'}
              </p>
            </OneTimeSecret>
            <div className="flex justify-end">
              <Button onClick={() => close(false)}>Done</Button>
            </div>
          </div>
        ) : (
          <form onSubmit={onSubmit} noValidate className="grid grid-cols-1 gap-4">
            {rotate.isError ? <Alert variant="error">{errorMessage(rotate.error)}</Alert> : null}
            <FormField
              label="Grace period (seconds)"
              type="number"
              inputMode="numeric"
              min={0}
              max={KEY_GRACE_MAX_SECONDS}
              step={1}
              required
              description={`How long the old secret keeps working, so clients can switch without downtime: 0 ends it at once, at most ${KEY_GRACE_MAX_SECONDS.toLocaleString('en-US')} (one day).`}
              error={form.formState.errors.grace?.message}
              {...form.register('grace')}
            />
            {denied ? <DeniedNote id={deniedId} reason={denied} /> : null}
            <div className="flex justify-end gap-2">
              <Button type="button" variant="secondary" onClick={() => close(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={rotate.isPending} disabled={Boolean(denied)} aria-describedby={denied ? deniedId : undefined}>
                Rotate key
              </Button>
            </div>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
