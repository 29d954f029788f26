'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useId } from 'react';
import { useTRPC } from '@/client/trpc/react';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { Progress } from '@/components/ui/progress';
import { Skeleton, SkeletonRows } from '@/components/ui/skeleton';
import { ExecutionsPerDayChart } from '@/components/dashboard/charts/executions-chart';
import { formatCount, formatDate, formatDateTime } from '@/components/dashboard/format';
import { errorCode, errorMessage, QueryError } from '@/components/dashboard/query-error';
import { cycleParam, invoiceMakeup } from './cycle';
import { ModuleChart } from './module-chart';
import { PlanChange } from './plan-change';
import { PlanComparison } from './plan-comparison';
import { INVOICES_LIST } from '@/components/dashboard/first-queries';

/** `YYYY-MM` of the current UTC month: the latest cycle the API reads. */
const currentCycle = () => new Date().toISOString().slice(0, 7);

/**
 * A billing cycle's usage as the invoice will bill it (GET /api/v1/billing/usage): executions
 * against the quota, overage and its cost so far, the projected total, per-day and per-module
 * charts; past cycles with `?cycle=`; the plan change.
 */
export function UsageView() {
  const trpc = useTRPC();
  const id = useId();
  const router = useRouter();
  const pathname = usePathname();
  // The cycle lives in the URL (`?cycle=2026-10`), like the executions filters.
  const cycle = cycleParam(useSearchParams().get('cycle'));
  const setCycle = (next: string | undefined) => router.replace(next ? `${pathname}?cycle=${next}` : pathname, { scroll: false });
  const usage = useQuery(trpc.billing.usage.queryOptions(cycle ? { cycle } : {}, { placeholderData: (previous) => previous }));
  // Issued with the usage query (same render, one batched request); the plan list rarely changes.
  const plans = useQuery(trpc.plans.list.queryOptions({}, { staleTime: 3_600_000 }));
  const u = usage.data;
  // A cycle the API has no usage for (before the workspace existed, or not begun): said as such, not as a failure.
  const unavailable = usage.isError && errorCode(usage.error) === 'invalid_request';
  // An invoiced cycle links to its invoice (the newest 24 cover two years; asked in the same request as the usage).
  const invoices = useQuery(trpc.invoices.list.queryOptions(INVOICES_LIST, { staleTime: 60_000 }));
  const invoice = u ? invoices.data?.data.find((i) => i.period_start.startsWith(u.cycle)) : undefined;

  return (
    <div className="grid gap-6">
      <PageHeader
        title="Usage"
        description="What this billing cycle has used and what it will cost, counted from your execution records exactly as the invoice counts them."
        actions={
          <div className="grid gap-1">
            <Label htmlFor={`${id}-cycle`}>Billing cycle</Label>
            <Input
              id={`${id}-cycle`}
              type="month"
              className="w-44"
              max={currentCycle()}
              value={cycle ?? u?.cycle ?? currentCycle()}
              onChange={(e) => setCycle(cycleParam(e.target.value))}
            />
          </div>
        }
      />

      {usage.isPending ? (
        <SkeletonRows rows={6} label="Loading usage" />
      ) : unavailable ? (
        <EmptyState
          title={`No usage for ${cycle ?? 'this cycle'}`}
          action={
            <Button variant="secondary" onClick={() => setCycle(undefined)}>
              Show the current cycle
            </Button>
          }
        >
          {errorMessage(usage.error)}
        </EmptyState>
      ) : usage.isError && !u ? (
        <QueryError error={usage.error} retry={() => void usage.refetch()} />
      ) : u ? (
        <>
          {usage.isError ? <QueryError error={usage.error} /> : null}
          <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4" data-testid="usage-summary" aria-busy={usage.isFetching}>
            <Stat
              label="Executions"
              value={formatCount(u.executions.used)}
              detail={u.executions.limit === null ? 'Unlimited' : `of ${formatCount(u.executions.limit)} included`}
              testId="usage-executions"
            >
              {u.executions.limit !== null ? (
                <Progress
                  className="mt-2"
                  value={u.executions.used}
                  max={u.executions.limit}
                  label="Executions used this cycle"
                  tone={
                    u.executions.used >= u.executions.limit
                      ? 'danger'
                      : u.executions.used >= u.executions.limit * 0.8
                        ? 'warning'
                        : 'default'
                  }
                />
              ) : null}
            </Stat>
            <Stat label="Failed" value={formatCount(u.executions.failed)} detail="Failures count toward the quota" />
            <Stat
              label="Overage so far"
              value={`$${u.overage_cost_usd}`}
              detail={`${formatCount(u.executions.overage)} executions × $${u.terms.overage_unit_usd}`}
              testId="usage-overage"
            />
            <Stat
              label={u.is_current && !invoice ? 'Projected invoice' : 'Invoice total'}
              value={`$${invoice ? invoice.total_usd : u.projected_total_usd}`}
              detail={invoiceMakeup(u)}
              testId="usage-projected"
            />
          </div>

          <Card>
            <CardHeader>
              <CardTitle className="text-base">
                Cycle {u.cycle} <span className="font-normal capitalize text-slate-600 dark:text-slate-400">· {u.plan} plan</span>
              </CardTitle>
              <CardDescription>
                {formatDate(u.cycle_start)} to {formatDate(new Date(new Date(u.cycle_end).getTime() - 1).toISOString())} (UTC).{' '}
                <InvoiceNote cycleEnd={u.cycle_end} isCurrent={u.is_current} invoice={invoice} />
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-8">
              <ExecutionsPerDayChart
                daily={u.daily}
                testId="usage-daily-chart"
                empty={
                  <>
                    <span className="block font-semibold">No executions in this cycle</span>
                    Executions show up here, per day and per module, once your agents run actions. Try one in the{' '}
                    <Link className="underline" href="/dashboard/modules">
                      playground
                    </Link>
                    .
                  </>
                }
              />
              {u.by_module.length > 0 ? <ModuleChart byModule={u.by_module} /> : null}
              <div className="grid gap-2 text-sm">
                <h3 className="font-semibold">Requests</h3>
                <p className="text-slate-700 dark:text-slate-300">
                  {formatCount(u.daily.reduce((n, d) => n + d.requests, 0))} API requests this cycle, at most{' '}
                  {formatCount(u.terms.requests_per_minute)} per minute.
                </p>
              </div>
              {u.plan_changes.length > 0 ? (
                <div className="grid gap-2 text-sm">
                  <h3 className="font-semibold">Plan changes in this cycle</h3>
                  <ul className="grid gap-1">
                    {u.plan_changes.map((c) => (
                      <li key={c.changed_at}>
                        <time dateTime={c.changed_at}>{formatDateTime(c.changed_at)}</time>:{' '}
                        <span className="capitalize">{c.from_plan}</span> → <span className="capitalize">{c.to_plan}</span> (by {c.actor})
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
            </CardContent>
          </Card>

          {u.is_current ? <PlanChange current={u.plan} plans={plans.data?.data} /> : null}
          {plans.data ? (
            <PlanComparison plans={plans.data.data} current={u.is_current ? u.plan : undefined} />
          ) : plans.isError ? (
            <QueryError error={plans.error} retry={() => void plans.refetch()} />
          ) : (
            <Skeleton className="h-64 w-full" />
          )}
        </>
      ) : (
        <Skeleton className="h-40 w-full" />
      )}
    </div>
  );
}

function Stat({
  label,
  value,
  detail,
  testId,
  children,
}: {
  label: string;
  value: string;
  detail: string;
  testId?: string;
  children?: React.ReactNode;
}) {
  return (
    <Card>
      <CardContent className="pt-6">
        <p className="text-sm text-slate-600 dark:text-slate-400">{label}</p>
        <p className="mt-1 text-2xl font-semibold tabular-nums" data-testid={testId}>
          {value}
        </p>
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{detail}</p>
        {children}
      </CardContent>
    </Card>
  );
}

/** Where the cycle's bill is: its invoice once issued, else when the quota resets (current) or where invoices are (past). */
function InvoiceNote({ cycleEnd, isCurrent, invoice }: { cycleEnd: string; isCurrent: boolean; invoice?: { id: string; number: string } }) {
  const link = 'font-medium text-indigo-700 underline dark:text-indigo-300';
  if (invoice) {
    return (
      <>
        {isCurrent ? 'This cycle has been closed and' : 'A closed cycle,'} billed on{' '}
        <Link className={link} href={`/dashboard/invoices/${invoice.id}`}>
          invoice {invoice.number}
        </Link>
        .
      </>
    );
  }
  if (isCurrent) return <>The quota resets {formatDateTime(cycleEnd)}.</>;
  return (
    <>
      A closed cycle: its invoice is on the{' '}
      <Link className={link} href="/dashboard/invoices">
        invoices page
      </Link>{' '}
      once issued.
    </>
  );
}
