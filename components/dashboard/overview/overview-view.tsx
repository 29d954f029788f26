'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { useTRPC } from '@/client/trpc/react';
import { planAllows } from '@/src/contract/plans';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Progress } from '@/components/ui/progress';
import { Skeleton, SkeletonRows } from '@/components/ui/skeleton';
import { ExecutionsPerDayChart } from '@/components/dashboard/charts/executions-chart';
import { ExecutionsTable } from '@/components/dashboard/executions/executions-table';
import { formatCount, formatDate } from '@/components/dashboard/format';
import { errorCode, QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { WebhookAttentionBanner } from '@/components/dashboard/webhooks/attention';
import { GettingStarted } from './getting-started';
import { OVERVIEW_ANY, OVERVIEW_LATEST_EXECUTIONS } from '@/components/dashboard/first-queries';

/** Share of the quota at which the overview warns (the "80% warning"). */
const QUOTA_WARNING = 0.8;

/**
 * The tenant at a glance: plan and limits, this cycle's executions against the quota, the
 * request rate against the limit, executions per day, the latest executions and, for a new
 * tenant, the first steps. Every query starts at once (one batched request).
 */
export function OverviewView() {
  const trpc = useTRPC();
  const me = useQuery(trpc.tenants.me.queryOptions({}));
  const rate = useQuery({ ...trpc.tenants.requestRate.queryOptions({}), refetchInterval: 15_000 });
  // What the role may read (members.me, in the same round of requests): a part it may not is
  // replaced by the reason, and its query is not asked again once that is known.
  const billing = useAccess('readBilling');
  const modules = useAccess('readModules');
  const readKeys = useAccess('readKeys');
  const builder = useAccess('manageKeys').allowed !== false;
  const planChange = useAccess('changePlan').allowed !== false;
  const usage = useQuery({ ...trpc.billing.usage.queryOptions({}), enabled: billing.allowed !== false });
  const latest = useQuery({ ...trpc.executions.list.queryOptions(OVERVIEW_LATEST_EXECUTIONS), enabled: modules.allowed !== false });
  const keys = useQuery({ ...trpc.keys.list.queryOptions(OVERVIEW_ANY), enabled: readKeys.allowed !== false });
  // Asked only of a plan that has webhooks: another plan's answer is a known 403 (and a console error).
  const webhooksInPlan = me.data ? planAllows(me.data.plan, 'webhooks') : undefined;
  const webhooks = useQuery({ ...trpc.webhooks.list.queryOptions(OVERVIEW_ANY), enabled: webhooksInPlan === true });

  if (me.isError) {
    return (
      <div className="grid gap-6">
        <PageHeader title="Overview" description="Your tenant, its plan and its activity." />
        <QueryError error={me.error} retry={() => void me.refetch()} />
      </div>
    );
  }

  return (
    <div className="grid gap-6">
      <PageHeader title="Overview" description="Your tenant, its plan and its activity this billing cycle." />

      <WebhookAttentionBanner />

      {builder ? (
        <GettingStarted
          loading={latest.isPending || keys.isPending || me.isPending || (webhooksInPlan === true && webhooks.isPending)}
          hasKey={(keys.data?.data.length ?? 0) > 0}
          hasExecution={(latest.data?.data.length ?? 0) > 0}
          hasWebhook={(webhooks.data?.data.length ?? 0) > 0}
          webhooksInPlan={webhooksInPlan !== false && !(webhooks.isError && errorCode(webhooks.error) === 'plan_required')}
        />
      ) : null}

      <div className="grid gap-6 lg:grid-cols-3">
        <Card>
          <CardHeader>
            <CardTitle className="text-base">Plan</CardTitle>
          </CardHeader>
          <CardContent>
            {me.isPending ? (
              <Skeleton className="h-16 w-full" />
            ) : (
              <div className="grid gap-2 text-sm">
                <p data-testid="overview-plan">
                  Plan: <span className="font-semibold capitalize">{me.data.plan}</span>
                </p>
                <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-slate-700 dark:text-slate-300">
                  <dt>Executions / month</dt>
                  <dd className="text-right tabular-nums">
                    {me.data.limits.executions_per_month === null ? 'Unlimited' : formatCount(me.data.limits.executions_per_month)}
                  </dd>
                  <dt>Requests / minute</dt>
                  <dd className="text-right tabular-nums">{formatCount(me.data.requests_per_minute)}</dd>
                  <dt>Installed modules</dt>
                  <dd className="text-right tabular-nums">
                    {me.data.limits.modules === null ? 'Unlimited' : formatCount(me.data.limits.modules)}
                  </dd>
                </dl>
                <p className="font-mono text-xs break-all text-slate-500 dark:text-slate-400">Tenant {me.data.tenant_id}</p>
                {planChange ? (
                  <Link
                    href="/dashboard/usage#plan"
                    className="text-sm font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                  >
                    Change plan
                  </Link>
                ) : null}
              </div>
            )}
          </CardContent>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle className="text-base">Executions this cycle</CardTitle>
            {usage.data ? (
              <CardDescription>
                {formatDate(usage.data.cycle_start)} – {formatDate(new Date(new Date(usage.data.cycle_end).getTime() - 1).toISOString())};
                the quota resets {formatDate(usage.data.cycle_end)}.
              </CardDescription>
            ) : null}
          </CardHeader>
          <CardContent>
            {billing.allowed === false ? (
              <DeniedNote id="overview-usage-denied" reason={billing.reason} />
            ) : usage.isPending ? (
              <Skeleton className="h-16 w-full" />
            ) : usage.isError ? (
              <QueryError error={usage.error} retry={() => void usage.refetch()} />
            ) : (
              <QuotaMeter
                used={usage.data.executions.used}
                limit={usage.data.executions.limit}
                remaining={usage.data.executions.remaining}
                overage={usage.data.executions.overage}
                failed={usage.data.executions.failed}
              />
            )}
          </CardContent>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle className="text-base">Requests per minute</CardTitle>
            <CardDescription>The sliding 60-second window all your keys share (this page&apos;s own calls count too).</CardDescription>
          </CardHeader>
          <CardContent>
            {rate.isPending ? (
              <Skeleton className="h-16 w-full" />
            ) : rate.isError ? (
              <QueryError error={rate.error} retry={() => void rate.refetch()} />
            ) : (
              <div className="grid gap-2" data-testid="overview-rate">
                <p className="text-2xl font-semibold tabular-nums">
                  {formatCount(rate.data.used)}{' '}
                  <span className="text-base font-normal text-slate-600 dark:text-slate-400">/ {formatCount(rate.data.limit)}</span>
                </p>
                <Progress
                  value={rate.data.used}
                  max={rate.data.limit}
                  label="Requests in the current minute"
                  tone={rate.data.used >= rate.data.limit * QUOTA_WARNING ? 'warning' : 'default'}
                />
                <p className="text-xs text-slate-600 dark:text-slate-400">
                  {formatCount(rate.data.remaining)} left in this window; past the limit the API answers 429 with Retry-After.
                </p>
              </div>
            )}
          </CardContent>
        </Card>
      </div>

      {billing.allowed === false ? null : (
        <Card>
          <CardContent className="pt-6">
            {usage.isPending ? (
              <SkeletonRows rows={4} label="Loading executions per day" />
            ) : usage.isError ? null : (
              <ExecutionsPerDayChart daily={usage.data.daily} testId="overview-chart" />
            )}
          </CardContent>
        </Card>
      )}

      <section aria-labelledby="latest-heading" className="grid gap-3">
        <div className="flex items-center justify-between gap-2">
          <h2 id="latest-heading" className="text-lg font-semibold">
            Latest executions
          </h2>
          <Button asChild variant="link" size="sm">
            <Link href="/dashboard/executions">All executions</Link>
          </Button>
        </div>
        {modules.allowed === false ? (
          <DeniedNote id="overview-latest-denied" reason={modules.reason} />
        ) : latest.isPending ? (
          <SkeletonRows rows={4} label="Loading the latest executions" />
        ) : latest.isError ? (
          <QueryError error={latest.error} retry={() => void latest.refetch()} />
        ) : (
          <ExecutionsTable
            rows={latest.data.data}
            caption="Latest executions"
            empty={
              <EmptyState title="No executions yet">
                Run an action with your API key (see the first steps above) or in a module&apos;s{' '}
                <Link className="underline" href="/dashboard/modules">
                  playground
                </Link>
                ; it shows up here.
              </EmptyState>
            }
          />
        )}
      </section>
    </div>
  );
}

/** Executions used against the quota, warning from 80 %, with the overage when past it. */
function QuotaMeter({
  used,
  limit,
  remaining,
  overage,
  failed,
}: {
  used: number;
  limit: number | null;
  remaining: number | null;
  overage: number;
  failed: number;
}) {
  if (limit === null) {
    return (
      <div className="grid gap-1" data-testid="overview-quota">
        <p className="text-2xl font-semibold tabular-nums">{formatCount(used)}</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">Unlimited executions on your terms ({formatCount(failed)} failed).</p>
      </div>
    );
  }
  const share = limit > 0 ? used / limit : 1;
  const tone = share >= 1 ? 'danger' : share >= QUOTA_WARNING ? 'warning' : 'default';
  return (
    <div className="grid gap-2" data-testid="overview-quota">
      <p className="text-2xl font-semibold tabular-nums">
        {formatCount(used)} <span className="text-base font-normal text-slate-600 dark:text-slate-400">/ {formatCount(limit)}</span>
      </p>
      <Progress value={used} max={limit} label="Executions used this cycle" tone={tone} />
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {formatCount(remaining)} left · {formatCount(failed)} failed (failures count too)
      </p>
      {share >= QUOTA_WARNING ? (
        <Alert title={share >= 1 ? 'Quota reached' : `${Math.floor(share * 100)} % of the quota used`}>
          {overage > 0 ? `${formatCount(overage)} executions past the quota so far. ` : null}
          See{' '}
          <Link className="font-medium underline" href="/dashboard/usage">
            Usage
          </Link>{' '}
          for what this cycle costs, or move to a larger plan there.{' '}
          <Badge tone="warning">{share >= 1 ? 'over quota' : 'near quota'}</Badge>
        </Alert>
      ) : null}
    </div>
  );
}
