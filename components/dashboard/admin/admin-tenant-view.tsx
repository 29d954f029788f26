'use client';

import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Link } from '@/components/ui/link';
import { useTRPC } from '@/client/trpc/react';
import { statusOf } from '@/client/trpc/client';
import type { RouterOutputs } from '@/client/trpc/types';
import { Badge } from '@/components/ui/badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Progress } from '@/components/ui/progress';
import { SkeletonRows } from '@/components/ui/skeleton';
import { QueryError } from '@/components/dashboard/query-error';
import { failedAt, reason } from './admin-view';

type Detail = RouterOutputs['admin']['tenant'];
type Failed = Detail['recent_failed_deliveries'][number];

const count = (n: number) => n.toLocaleString();
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;
/** The cycle's first day (YYYY-MM-DD, UTC) as a month: "November 2026". */
const cycleName = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const linkClass = 'font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300';

/**
 * One tenant as an operator sees it (`admin.tenant`, operators only): its plan and terms, the
 * executions of this cycle against the quota, its keys and webhook subscriptions, and its latest
 * failed deliveries. Reads only: the plan changes and re-enables stay on the Admin page.
 */
export function AdminTenantView({ id }: { id: string }) {
  const trpc = useTRPC();
  const detail = useQuery({ ...trpc.admin.tenant.queryOptions({ tenant_id: id }), retry: false });

  const breadcrumb = (
    <nav aria-label="Breadcrumb" className="text-sm">
      <Link href="/dashboard/admin" className={linkClass}>
        Admin
      </Link>
      <span aria-hidden="true"> / </span>
      <span aria-current="page">{detail.data?.agent_name ?? 'Tenant'}</span>
    </nav>
  );
  if (detail.isPending)
    return (
      <div className="grid gap-6">
        {breadcrumb}
        <PageHeader title="Tenant" />
        <SkeletonRows rows={6} label="Loading the tenant" />
      </div>
    );
  if (detail.isError) {
    const missing = statusOf(detail.error) === 404 || statusOf(detail.error) === 400;
    return (
      <div className="grid gap-6" data-testid="tenant-not-found">
        {breadcrumb}
        <PageHeader title={missing ? 'Tenant not found' : 'Tenant'} />
        {missing ? (
          <EmptyState
            title="There is no tenant with this id"
            action={
              <Link className={linkClass} href="/dashboard/admin">
                Back to every tenant
              </Link>
            }
          >
            It may have been purged after its owner deleted it, or the link is mistyped.
          </EmptyState>
        ) : (
          <QueryError error={detail.error} retry={() => void detail.refetch()} />
        )}
      </div>
    );
  }
  const t = detail.data;
  const quota = t.terms.executions_per_month;
  const used = quota ? Math.min(100, Math.round((t.executions_this_cycle / quota) * 100)) : 0;
  return (
    <div className="grid gap-6">
      {breadcrumb}
      <PageHeader
        title={t.agent_name}
        description={
          <>
            Owner {t.owner_email} · since {when(t.created_at)} · <span className="font-mono text-xs break-all">{t.tenant_id}</span>
          </>
        }
      />
      {t.deleted_at ? (
        <p className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
          Deleted by its owner on {when(t.deleted_at)}; it can be restored until its data is purged.
        </p>
      ) : null}
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>Plan</CardTitle>
            <CardDescription>The plan with this tenant&apos;s own terms applied.</CardDescription>
          </CardHeader>
          <CardContent>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="tenant-plan">
              <dt className="text-slate-600 dark:text-slate-400">Plan</dt>
              <dd>
                <Badge tone={t.plan === 'free' ? 'neutral' : 'info'}>{t.plan}</Badge>
              </dd>
              <dt className="text-slate-600 dark:text-slate-400">Executions a month</dt>
              <dd>
                {quota === null ? 'Unlimited' : count(quota)}
                {t.overrides.executions_per_month !== null ? ' (own terms)' : ''}
              </dd>
              <dt className="text-slate-600 dark:text-slate-400">Requests a minute</dt>
              <dd>
                {count(t.requests_per_minute)}
                {t.requests_per_minute_override !== null ? ' (own terms)' : ''}
              </dd>
              <dt className="text-slate-600 dark:text-slate-400">Past the quota</dt>
              <dd>{t.terms.overage === 'pause' ? 'Executions pause' : `Billed at $${t.terms.overage_unit_usd} each`}</dd>
              <dt className="text-slate-600 dark:text-slate-400">Monthly fee</dt>
              <dd>${t.terms.monthly_fee_usd}</dd>
            </dl>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Usage this cycle</CardTitle>
            <CardDescription>{cycleName(t.cycle_start)}, counted as the quota counts them.</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-3">
            <p className="text-sm" data-testid="tenant-usage">
              <span className="text-2xl font-semibold tabular-nums">{count(t.executions_this_cycle)}</span>{' '}
              {quota === null ? 'executions (no quota)' : `of ${count(quota)} executions`}
            </p>
            {quota !== null ? (
              <Progress
                value={t.executions_this_cycle}
                max={quota}
                label={`${used}% of the quota used`}
                tone={used >= 100 ? 'danger' : used >= 80 ? 'warning' : 'default'}
              />
            ) : null}
            {t.overage_this_cycle > 0 ? (
              <p className="text-sm">{plural(t.overage_this_cycle, 'execution', 'executions')} past the quota.</p>
            ) : null}
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>API keys</CardTitle>
          </CardHeader>
          <CardContent>
            <p className="text-sm" data-testid="tenant-keys">
              <span className="text-2xl font-semibold tabular-nums">{count(t.keys.active)}</span> active{' '}
              {t.keys.active === 1 ? 'key' : 'keys'}
              {t.keys.suspended ? `, ${count(t.keys.suspended)} of them suspended by the plan` : ''}
            </p>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Webhooks</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-2">
            <p className="text-sm" data-testid="tenant-webhooks">
              <span className="text-2xl font-semibold tabular-nums">{count(t.webhooks.total)}</span>{' '}
              {t.webhooks.total === 1 ? 'subscription' : 'subscriptions'}
            </p>
            {t.webhooks.total > 0 ? (
              <p className="flex flex-wrap gap-1">
                <Badge tone="success">{count(t.webhooks.active)} active</Badge>
                {t.webhooks.disabled ? <Badge tone="danger">{count(t.webhooks.disabled)} disabled</Badge> : null}
                {t.webhooks.suspended ? <Badge tone="warning">{count(t.webhooks.suspended)} suspended by the plan</Badge> : null}
              </p>
            ) : null}
          </CardContent>
        </Card>
      </div>
      <section aria-labelledby="tenant-failed-heading" className="grid gap-3">
        <h2 id="tenant-failed-heading" className="text-lg font-semibold">
          Recent failed deliveries
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          This tenant&apos;s latest deliveries whose every attempt failed, newest first. Re-enable a disabled webhook from the Admin page.
        </p>
        <FailedTable rows={t.recent_failed_deliveries} />
      </section>
    </div>
  );
}

function FailedTable({ rows }: { rows: Failed[] }) {
  const columns: ColumnDef<Failed, unknown>[] = [
    {
      id: 'failed_at',
      accessorFn: (d) => failedAt(d),
      header: 'Failed at',
      cell: ({ row }) => <span className="whitespace-nowrap">{when(failedAt(row.original))}</span>,
    },
    {
      accessorKey: 'url',
      header: 'Receiver',
      cell: ({ row }) => <span className="font-mono text-xs break-all">{row.original.url ?? 'Polled subscription'}</span>,
    },
    { accessorKey: 'event', header: 'Event', cell: ({ row }) => <span className="font-mono text-xs">{row.original.event}</span> },
    { accessorKey: 'attempt', header: 'Attempts' },
    {
      id: 'last',
      header: 'Last attempt',
      enableSorting: false,
      cell: ({ row }) => <span className="text-xs break-words">{reason(row.original)}</span>,
    },
  ];
  return (
    <DataTable
      columns={columns}
      data={rows}
      caption="Recent failed deliveries of this tenant"
      getRowId={(d) => d.id}
      empty={
        <EmptyState title="No failed deliveries">Every delivery of this tenant reached its receiver, or none was sent yet.</EmptyState>
      }
    />
  );
}
