'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../../app/_lib/trpc-react';
import { Card, CardContent, CardHeader, CardTitle } from '../../ui/card';
import { PageHeader } from '../../ui/page-header';
import { SkeletonRows } from '../../ui/skeleton';
import { QueryError } from '../query-error';

/** The tenant at a glance: who it is and its plan. */
export function OverviewView() {
  const trpc = useTRPC();
  const me = useQuery(trpc.tenants.me.queryOptions({}));
  return (
    <div className="grid gap-6">
      <PageHeader title="Overview" description="Your tenant, its plan and its activity." />
      {me.isPending ? (
        <SkeletonRows rows={3} label="Loading your tenant" />
      ) : me.isError ? (
        <QueryError error={me.error} retry={() => void me.refetch()} />
      ) : (
        <Card>
          <CardHeader>
            <CardTitle>Your plan</CardTitle>
          </CardHeader>
          <CardContent>
            <p className="font-mono text-xs text-slate-600 dark:text-slate-400">Tenant {me.data.tenant_id}</p>
            <p className="mt-2 text-sm" data-testid="overview-plan">
              Plan: <span className="font-medium capitalize">{me.data.plan}</span>
            </p>
          </CardContent>
        </Card>
      )}
    </div>
  );
}
