'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ChevronDown, Search } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'sonner';
import { z } from 'zod';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { Dialog, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import type { RouterInputs, RouterOutputs } from '@/client/trpc/types';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { REQUESTS_PER_MINUTE_MAX } from '@/src/contract/limits';
import { AdminAuditLog } from './admin-audit';
import { ReenableWebhookButton } from './reenable-webhook';
import { PLAN_NAMES } from '@/src/contract/plans';
import { ADMIN_DISABLED_WEBHOOKS, ADMIN_FAILED_DELIVERIES, ADMIN_TENANTS } from '@/components/dashboard/first-queries';

type Tenant = RouterOutputs['admin']['listTenants']['data'][number];
type DisabledWebhook = RouterOutputs['admin']['disabledWebhooks']['data'][number];
type FailedDelivery = RouterOutputs['admin']['failedDeliveries']['data'][number];
type Plan = RouterInputs['admin']['changePlan']['plan'];

/** The plans an operator can set (PLAN_NAMES in src/tenants/plans.ts; the API refuses any other). */
const PLANS: Plan[] = ['free', 'pro', 'business', 'enterprise'];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—');
const count = (n: number) => n.toLocaleString();
/** With seconds: the deliveries of one endpoint often fail within the same minute. */
const whenExact = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The operator's page: every tenant, every disabled webhook (re-enable), the latest failed deliveries. */
export function AdminView() {
  const trpc = useTRPC();
  // One round: the three lists are requested together.
  const tenants = useQuery(trpc.admin.listTenants.queryOptions(ADMIN_TENANTS));
  const disabled = useQuery(trpc.admin.disabledWebhooks.queryOptions(ADMIN_DISABLED_WEBHOOKS));
  const failed = useQuery(trpc.admin.failedDeliveries.queryOptions(ADMIN_FAILED_DELIVERIES));

  return (
    <div className="grid gap-8">
      <PageHeader
        title="Admin"
        description="Operators only: every tenant with its plan and usage, disabled webhooks to test and re-enable, recent failed deliveries grouped by receiver, and the audit log of every tenant."
      />
      <section aria-labelledby="tenants-heading" className="grid gap-3">
        <h2 id="tenants-heading" className="text-lg font-semibold">
          Tenants
        </h2>
        {tenants.isPending ? (
          <SkeletonRows rows={5} label="Loading tenants" />
        ) : tenants.isError ? (
          <QueryError error={tenants.error} retry={() => void tenants.refetch()} />
        ) : (
          <TenantsTable data={tenants.data} />
        )}
      </section>
      <section aria-labelledby="disabled-heading" className="grid gap-3">
        <h2 id="disabled-heading" tabIndex={-1} className="text-lg font-semibold focus:outline-none">
          Disabled webhooks
        </h2>
        {disabled.isPending ? (
          <SkeletonRows rows={3} label="Loading disabled webhooks" />
        ) : disabled.isError ? (
          <QueryError error={disabled.error} retry={() => void disabled.refetch()} />
        ) : (
          <DisabledTable data={disabled.data} />
        )}
      </section>
      <section aria-labelledby="failed-heading" className="grid gap-3">
        <h2 id="failed-heading" className="text-lg font-semibold">
          Recent failed deliveries
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Deliveries whose every attempt failed, one row per receiver: how many failed, the latest failure and why, and the events involved.
          Open a row to see its deliveries.
        </p>
        {failed.isPending ? (
          <SkeletonRows rows={3} label="Loading failed deliveries" />
        ) : failed.isError ? (
          <QueryError error={failed.error} retry={() => void failed.refetch()} />
        ) : (
          <FailedDeliveries data={failed.data} />
        )}
      </section>
      <section aria-labelledby="audit-heading" className="grid gap-3">
        <h2 id="audit-heading" className="text-lg font-semibold">
          Audit log
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          What tenants&apos; members and keys changed, and what operators did to them (plan changes, re-enabled webhooks, restores), newest
          first.
        </p>
        <AdminAuditLog />
      </section>
    </div>
  );
}

function TenantsTable({ data }: { data: RouterOutputs['admin']['listTenants'] }) {
  const columns: ColumnDef<Tenant, unknown>[] = [
    {
      accessorKey: 'agent_name',
      header: 'Tenant',
      cell: ({ row }) => (
        <div className="min-w-40">
          <p className="font-medium">
            <Link
              href={`/dashboard/admin/tenants/${row.original.tenant_id}`}
              className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300"
            >
              {row.original.agent_name}
            </Link>
          </p>
          <p className="text-xs text-slate-600 dark:text-slate-400">{row.original.owner_email}</p>
          <p className="font-mono text-[11px] text-slate-600 dark:text-slate-400">{row.original.tenant_id}</p>
          <p className="text-xs text-slate-600 dark:text-slate-400">Since {when(row.original.created_at)}</p>
        </div>
      ),
    },
    {
      accessorKey: 'plan',
      header: 'Plan',
      cell: ({ row }) => <Badge tone={row.original.plan === 'free' ? 'neutral' : 'info'}>{row.original.plan}</Badge>,
    },
    {
      accessorKey: 'executions_this_cycle',
      header: 'Executions (cycle)',
      cell: ({ row }) => {
        const quota = row.original.terms.executions_per_month;
        return (
          <span className="whitespace-nowrap">
            {count(row.original.executions_this_cycle)} / {quota === null ? 'unlimited' : count(quota)}
          </span>
        );
      },
    },
    {
      accessorKey: 'requests_per_minute',
      header: 'Requests / min',
      cell: ({ row }) => (
        <span className="whitespace-nowrap">
          {count(row.original.requests_per_minute)}
          {row.original.requests_per_minute_override !== null ? (
            <Badge tone="warning" className="ml-1">
              override
            </Badge>
          ) : null}
        </span>
      ),
    },
    { id: 'status', header: 'Status', enableSorting: false, cell: ({ row }) => <TenantStatus tenant={row.original} /> },
    {
      id: 'actions',
      header: () => <span className="sr-only">Actions</span>,
      enableSorting: false,
      cell: ({ row }) => <ChangePlanDialog tenant={row.original} />,
    },
  ];
  return (
    <>
      <DataTable
        columns={columns}
        data={data.data}
        caption="Tenants"
        getRowId={(t) => t.tenant_id}
        empty={<EmptyState title="No tenants yet">Tenants appear here as they register.</EmptyState>}
      />
      {data.has_more ? <p className="text-xs text-slate-600 dark:text-slate-400">The newest 100 tenants are shown.</p> : null}
    </>
  );
}

function TenantStatus({ tenant }: { tenant: Tenant }) {
  const quota = tenant.terms.executions_per_month;
  const badges = [];
  if (quota !== null && tenant.executions_this_cycle >= quota)
    badges.push(
      <Badge key="q" tone={tenant.terms.overage === 'pause' ? 'danger' : 'warning'}>
        {tenant.terms.overage === 'pause' ? 'Quota reached: paused' : 'In overage'}
      </Badge>,
    );
  if (tenant.disabled_webhooks)
    badges.push(
      <Badge key="w" tone="danger">
        {tenant.disabled_webhooks} disabled webhook{tenant.disabled_webhooks === 1 ? '' : 's'}
      </Badge>,
    );
  return <span className="flex flex-wrap gap-1">{badges.length ? badges : <Badge tone="success">OK</Badge>}</span>;
}

/** changePlanInput's limits (src/tenants/schema.ts), for the fields this form sends. */
const planForm = z.object({
  plan: z.enum(PLAN_NAMES),
  requests_per_minute: z
    .string()
    .trim()
    .refine(
      (v) => v === '' || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= REQUESTS_PER_MINUTE_MAX),
      `A whole number from 1 to ${REQUESTS_PER_MINUTE_MAX.toLocaleString('en-US')}, or empty for the plan’s limit`,
    ),
});
type PlanForm = z.infer<typeof planForm>;

function ChangePlanDialog({ tenant }: { tenant: Tenant }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [apiError, setApiError] = useState<string>();
  const form = useForm<PlanForm>({
    resolver: zodResolver(planForm),
    defaultValues: {
      plan: tenant.plan,
      requests_per_minute: tenant.requests_per_minute_override === null ? '' : String(tenant.requests_per_minute_override),
    },
  });
  const change = useMutation(
    trpc.admin.changePlan.mutationOptions({
      onSuccess: (res) => {
        const suspended = res.suspended.keys.length + res.suspended.webhooks.length;
        const restored = res.restored.keys.length + res.restored.webhooks.length;
        toast.success(
          res.changed
            ? `${res.agent_name} is on ${res.plan}${suspended ? `; ${suspended} key(s)/webhook(s) suspended` : ''}${restored ? `; ${restored} restored` : ''}`
            : `${res.agent_name}: nothing changed`,
        );
        setOpen(false);
        void queryClient.invalidateQueries({ queryKey: trpc.admin.listTenants.queryKey() });
      },
      onError: (err) => setApiError(errorMessage(err)),
    }),
  );
  const planId = `plan-${tenant.tenant_id}`;
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) {
          setApiError(undefined);
          form.reset({
            plan: tenant.plan,
            requests_per_minute: tenant.requests_per_minute_override === null ? '' : String(tenant.requests_per_minute_override),
          });
        }
      }}
    >
      <DialogTrigger asChild>
        <Button size="sm" variant="secondary" aria-label={`Change plan of ${tenant.agent_name}`}>
          Change plan
        </Button>
      </DialogTrigger>
      <DialogContent
        title={`Change plan: ${tenant.agent_name}`}
        description={`${tenant.owner_email} is on ${tenant.plan}. The change takes effect at once and is prorated on the invoice.`}
      >
        <form
          className="grid gap-4"
          noValidate
          onSubmit={form.handleSubmit((values) => {
            setApiError(undefined);
            change.mutate({
              tenant_id: tenant.tenant_id,
              plan: values.plan,
              requests_per_minute: values.requests_per_minute === '' ? null : Number(values.requests_per_minute),
            });
          })}
        >
          {apiError ? <Alert variant="error">{apiError}</Alert> : null}
          <div className="grid gap-2">
            <Label htmlFor={planId}>Plan</Label>
            <select
              id={planId}
              className="h-10 rounded-md border border-slate-400 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
              {...form.register('plan')}
            >
              {PLANS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
          <FormField
            label="Request limit override (per minute)"
            inputMode="numeric"
            description={`Empty: the plan's limit. Now ${tenant.requests_per_minute}/min${tenant.requests_per_minute_override === null ? ' (the plan’s)' : ' (an override)'}.`}
            error={form.formState.errors.requests_per_minute?.message}
            {...form.register('requests_per_minute')}
          />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" loading={change.isPending}>
              Save
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** The visible Re-enable buttons of the list, in the order they are shown. */
const reenableButtons = (list: HTMLElement | null) =>
  [...(list?.querySelectorAll<HTMLButtonElement>('button[data-reenable]') ?? [])].filter((b) => b.offsetParent !== null);

function DisabledTable({ data }: { data: RouterOutputs['admin']['disabledWebhooks'] }) {
  const list = useRef<HTMLDivElement>(null);
  // The webhook just re-enabled and where its row was: once the row has left the list, the focus
  // goes to the row now in its place (or the list's heading when none is left), never to <body>.
  const leaving = useRef<{ id: string; index: number } | null>(null);
  const onEnabled = (id: string) => {
    leaving.current = {
      id,
      index: Math.max(
        0,
        reenableButtons(list.current).findIndex((b) => b.dataset.reenable === id),
      ),
    };
  };
  useEffect(() => {
    const left = leaving.current;
    if (!left || data.data.some((w) => w.id === left.id)) return;
    leaving.current = null;
    // After the dialog's own focus return (to the button that opened it, now gone).
    setTimeout(() => {
      const buttons = reenableButtons(list.current);
      (buttons[Math.min(left.index, buttons.length - 1)] ?? document.getElementById('disabled-heading'))?.focus();
    }, 0);
  }, [data.data]);

  const columns: ColumnDef<DisabledWebhook, unknown>[] = [
    { accessorKey: 'url', header: 'Receiver', cell: ({ row }) => <span className="font-mono text-xs break-all">{row.original.url}</span> },
    {
      accessorKey: 'agent_name',
      header: 'Tenant',
      cell: ({ row }) => (
        <div>
          <p>{row.original.agent_name}</p>
          <p className="text-xs text-slate-600 dark:text-slate-400">{row.original.owner_email}</p>
        </div>
      ),
    },
    { accessorKey: 'consecutive_failures', header: 'Failures in a row' },
    {
      accessorKey: 'disabled_at',
      header: 'Disabled',
      cell: ({ row }) => <span className="whitespace-nowrap">{when(row.original.disabled_at)}</span>,
    },
    {
      id: 'actions',
      header: () => <span className="sr-only">Actions</span>,
      enableSorting: false,
      cell: ({ row }) => <ReenableWebhookButton webhook={row.original} onEnabled={onEnabled} />,
    },
  ];
  return (
    <div ref={list}>
      <DataTable
        columns={columns}
        data={data.data}
        caption="Disabled webhook subscriptions"
        getRowId={(w) => w.id}
        empty={
          <EmptyState title="No disabled webhooks">
            A subscription is disabled after repeated failed deliveries; it appears here to be re-enabled once its receiver works again.
          </EmptyState>
        }
      />
    </div>
  );
}

/** The moment a delivery failed for good: its last attempt (the delivery's creation when none is recorded). */
export const failedAt = (d: Pick<FailedDelivery, 'attempts' | 'at'>) => d.attempts.at(-1)?.at ?? d.at;

/** Why the last attempt failed, in words: the receiver's status code, or no answer, and the error. */
export const reason = (d: Pick<FailedDelivery, 'status_code' | 'error'>) =>
  `${d.status_code !== null ? `HTTP ${d.status_code}` : 'No answer'}${d.error ? ` · ${d.error}` : ''}`;

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/** One endpoint (a tenant's receiver URL) and its failed deliveries, newest first. */
interface EndpointGroup {
  key: string;
  /** For the disclosure's aria-controls: stable while the list is filtered. */
  domId: string;
  url: string | null;
  tenant_id: string;
  agent_name: string;
  owner_email: string;
  deliveries: FailedDelivery[];
  latest: FailedDelivery;
  latestAt: string;
  events: string[];
}

const endpointKey = (d: FailedDelivery) => `${d.tenant_id} ${d.url ?? d.subscription_id}`;

/** Groups the deliveries by endpoint, in the order of each endpoint's latest failure. */
function groupByEndpoint(deliveries: FailedDelivery[], domIds: Map<string, string>): EndpointGroup[] {
  const groups = new Map<string, EndpointGroup>();
  for (const d of deliveries) {
    const key = endpointKey(d);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        key,
        domId: domIds.get(key) ?? key,
        url: d.url,
        tenant_id: d.tenant_id,
        agent_name: d.agent_name,
        owner_email: d.owner_email,
        deliveries: [d],
        latest: d,
        latestAt: failedAt(d),
        events: [d.event],
      });
      continue;
    }
    group.deliveries.push(d);
    if (failedAt(d) > group.latestAt) Object.assign(group, { latest: d, latestAt: failedAt(d) });
    if (!group.events.includes(d.event)) group.events.push(d.event);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, events: [...g.events].sort() }))
    .sort((a, b) => (a.latestAt < b.latestAt ? 1 : a.latestAt > b.latestAt ? -1 : 0));
}

/** A delivery matches when its receiver URL, its tenant's name or owner, or its event kind contains the words typed. */
const matches = (d: FailedDelivery, q: string) =>
  [d.url ?? '', d.agent_name, d.owner_email, d.event].some((field) => field.toLowerCase().includes(q));

/**
 * The latest failed deliveries grouped by endpoint (one row per tenant and receiver URL, with the
 * count, the latest failure and the event kinds; a disclosure opens its deliveries), and a filter
 * over the loaded list by URL, tenant or event kind.
 */
function FailedDeliveries({ data }: { data: RouterOutputs['admin']['failedDeliveries'] }) {
  const filterId = useId();
  const domPrefix = useId();
  const [typed, setTyped] = useState('');
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const domIds = useMemo(() => {
    const ids = new Map<string, string>();
    for (const d of data.data) if (!ids.has(endpointKey(d))) ids.set(endpointKey(d), `${domPrefix}-endpoint-${ids.size}`);
    return ids;
  }, [data.data, domPrefix]);
  const q = typed.trim().toLowerCase();
  const shown = useMemo(() => (q ? data.data.filter((d) => matches(d, q)) : data.data), [data.data, q]);
  const groups = useMemo(() => groupByEndpoint(shown, domIds), [shown, domIds]);

  if (data.data.length === 0)
    return <EmptyState title="No failed deliveries">Deliveries whose every attempt failed show up here, grouped by receiver.</EmptyState>;

  const toggle = (key: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const columns: ColumnDef<EndpointGroup, unknown>[] = [
    {
      id: 'url',
      accessorFn: (g) => g.url ?? '',
      header: 'Receiver',
      cell: ({ row }) => <p className="min-w-40 font-mono text-xs break-all">{row.original.url ?? 'Polled (no receiver)'}</p>,
    },
    {
      id: 'tenant',
      accessorFn: (g) => g.agent_name,
      header: 'Tenant',
      cell: ({ row }) => (
        <div>
          <p>{row.original.agent_name}</p>
          <p className="text-xs wrap-anywhere text-slate-600 dark:text-slate-400">{row.original.owner_email}</p>
        </div>
      ),
    },
    {
      id: 'failed',
      accessorFn: (g) => g.deliveries.length,
      header: 'Failed',
      cell: ({ row }) => <span data-testid="failed-count">{count(row.original.deliveries.length)}</span>,
    },
    {
      id: 'latest',
      accessorFn: (g) => g.latestAt,
      header: 'Latest failure',
      cell: ({ row }) => (
        <div className="min-w-36">
          <p className="whitespace-nowrap">{when(row.original.latestAt)}</p>
          <p className="text-xs break-words text-slate-600 dark:text-slate-400">{reason(row.original.latest)}</p>
        </div>
      ),
    },
    {
      id: 'events',
      header: 'Events',
      enableSorting: false,
      cell: ({ row }) => (
        <ul className="flex flex-wrap gap-1">
          {row.original.events.map((e) => (
            <li key={e}>
              <Badge className="font-mono">{e}</Badge>
            </li>
          ))}
        </ul>
      ),
    },
    {
      id: 'deliveries',
      header: () => <span className="sr-only">Deliveries</span>,
      enableSorting: false,
      cell: ({ row }) => {
        const g = row.original;
        const expanded = open.has(g.key);
        return (
          <Button
            size="sm"
            variant="secondary"
            aria-expanded={expanded}
            aria-controls={expanded ? g.domId : undefined}
            onClick={() => toggle(g.key)}
          >
            <ChevronDown
              aria-hidden="true"
              className={expanded ? 'size-4 rotate-180 transition-transform' : 'size-4 transition-transform'}
            />
            {expanded ? 'Hide deliveries' : 'Show deliveries'}
            <span className="sr-only">
              {' '}
              to {g.url ?? 'the polled subscription'} of {g.agent_name}
            </span>
          </Button>
        );
      },
    },
  ];

  return (
    <div className="grid gap-3">
      <form role="search" className="grid gap-2 sm:max-w-md" onSubmit={(e) => e.preventDefault()}>
        <Label htmlFor={filterId}>Filter by receiver, tenant or event</Label>
        <div className="relative">
          <Search aria-hidden="true" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500" />
          <Input
            id={filterId}
            type="search"
            className="pl-9"
            placeholder="e.g. example.com, Acme, execution.failed"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
      </form>
      <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite" data-testid="failed-summary">
        {plural(groups.length, 'endpoint', 'endpoints')}, {plural(shown.length, 'failed delivery', 'failed deliveries')}
        {q ? ` (of ${count(data.data.length)} loaded)` : ''}
        {data.has_more ? `. Only the latest ${count(data.data.length)} failed deliveries are loaded.` : ''}
      </p>
      {groups.length === 0 ? (
        <EmptyState
          title="No failed delivery matches"
          action={
            <Button variant="secondary" size="sm" onClick={() => setTyped('')}>
              Clear the filter
            </Button>
          }
        >
          Nothing among the loaded failed deliveries has “{typed.trim()}” in its receiver, tenant or event.
        </EmptyState>
      ) : (
        <DataTable
          columns={columns}
          data={groups}
          caption="Failed deliveries by endpoint"
          getRowId={(g) => g.key}
          detail={(g) => (open.has(g.key) ? <EndpointDeliveries group={g} /> : null)}
        />
      )}
    </div>
  );
}

/** An open group: its deliveries one per row, newest first. */
function EndpointDeliveries({ group }: { group: EndpointGroup }) {
  const columns: ColumnDef<FailedDelivery, unknown>[] = [
    {
      id: 'failed_at',
      accessorFn: failedAt,
      header: 'Failed at',
      cell: ({ row }) => <span className="whitespace-nowrap">{whenExact(failedAt(row.original))}</span>,
    },
    {
      accessorKey: 'event',
      header: 'Event',
      cell: ({ row }) => (
        <span className="flex flex-wrap items-center gap-1">
          <span className="font-mono text-xs">{row.original.event}</span>
          {row.original.kind !== 'event' ? <Badge>{row.original.kind}</Badge> : null}
        </span>
      ),
    },
    { accessorKey: 'attempt', header: 'Attempts' },
    {
      id: 'last',
      header: 'Last attempt',
      enableSorting: false,
      cell: ({ row }) => <span className="text-xs break-words">{reason(row.original)}</span>,
    },
  ];
  return (
    <div id={group.domId} className="grid gap-2">
      <p className="text-sm font-medium">
        {plural(group.deliveries.length, 'failed delivery', 'failed deliveries')} to{' '}
        <span className="font-mono text-xs break-all">{group.url ?? 'the polled subscription'}</span>
      </p>
      <DataTable
        columns={columns}
        data={group.deliveries}
        caption={`Failed deliveries to ${group.url ?? 'the polled subscription'} of ${group.agent_name}`}
        getRowId={(d) => d.id}
      />
    </div>
  );
}
