'use client';

import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useState } from 'react';
import { useTRPC } from '@/client/trpc/react';
import { planAllows } from '@/src/contract/plans';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatDateTime } from '@/components/dashboard/format';
import { errorCode, QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { WEBHOOKS_PLAN, WEBHOOKS_REQUIREMENT } from './event-kinds';
import { formatRate, WebhookFormDialog, WebhookStatusBadge, type WebhookView } from './webhook-form';
import { WEBHOOKS_LIST } from '@/components/dashboard/first-queries';

/** Subscriptions per page: the API's maximum, more than a tenant may hold (PLANS' `webhookSubscriptions`). */
const LIST_INPUT = WEBHOOKS_LIST;

/** The tenant's webhook subscriptions with status and success rate, and the way to add one. */
export function WebhooksView() {
  const trpc = useTRPC();
  const me = useQuery(trpc.tenants.me.queryOptions({}));
  // Asked only of a plan that has webhooks: another plan's answer is a known 403 (and a console error).
  const inPlan = me.data ? planAllows(me.data.plan, 'webhooks') : undefined;
  const list = useQuery({ ...trpc.webhooks.list.queryOptions(LIST_INPUT), enabled: inPlan === true });
  const [creating, setCreating] = useState(false);
  const planRequired = inPlan === false || (list.isError && errorCode(list.error) === 'plan_required');
  // A role without webhooks:write (a viewer) sees the subscriptions; the reason is beside the button.
  const manage = useAccess('manageWebhooks');
  const denied = manage.allowed === false;

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Webhooks"
        description="Receive signed events (executions, installs, billing, certification…) at your own HTTPS endpoint."
        actions={
          <>
            <Button variant="secondary" asChild>
              <Link href="/dashboard/webhooks/event-types">Event types</Link>
            </Button>
            <Button
              onClick={() => setCreating(true)}
              disabled={!list.isSuccess || denied}
              aria-describedby={denied ? 'webhooks-manage-denied' : undefined}
            >
              <Plus aria-hidden="true" className="size-4" />
              Create webhook
            </Button>
          </>
        }
      />
      {denied ? <DeniedNote id="webhooks-manage-denied" reason={manage.reason} /> : null}
      {me.isError ? (
        <QueryError error={me.error} retry={() => void me.refetch()} />
      ) : planRequired ? (
        <Alert title="Webhooks are not in your plan" data-testid="webhooks-plan-limit">
          <p>{WEBHOOKS_REQUIREMENT}</p>
          <p className="mt-2">
            Webhooks come with the <span className="font-medium capitalize">{WEBHOOKS_PLAN}</span> plan and above.{' '}
            <Link href="/dashboard/usage" className="font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
              See your usage and change plan
            </Link>
          </p>
        </Alert>
      ) : list.isPending ? (
        <SkeletonRows rows={3} label="Loading your webhooks" />
      ) : list.isError ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <WebhooksTable webhooks={list.data.data} onCreate={() => setCreating(true)} />
      )}
      <WebhookFormDialog open={creating} onOpenChange={setCreating} />
    </div>
  );
}

const columns: ColumnDef<WebhookView, unknown>[] = [
  {
    accessorKey: 'url',
    header: 'Receiver',
    cell: ({ row }) => (
      <Link
        href={`/dashboard/webhooks/${row.original.id}`}
        className="font-medium break-all text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
      >
        {row.original.url}
      </Link>
    ),
  },
  {
    id: 'events',
    header: 'Events',
    enableSorting: false,
    cell: ({ row }) => {
      const events = row.original.events;
      return events.includes('*') ? (
        'All events'
      ) : (
        <span title={events.join(', ')}>{events.length === 1 ? events[0] : `${events.length} kinds`}</span>
      );
    },
  },
  {
    id: 'status',
    accessorFn: (w) => (w.suspended ? 'suspended' : w.status),
    header: 'Status',
    cell: ({ row }) => <WebhookStatusBadge webhook={row.original} />,
  },
  {
    accessorKey: 'success_rate',
    header: 'Success rate',
    cell: ({ row }) => <span className="tabular-nums">{formatRate(row.original.success_rate)}</span>,
  },
  {
    accessorKey: 'consecutive_failures',
    header: 'Failures in a row',
    cell: ({ row }) => <span className="tabular-nums">{row.original.consecutive_failures}</span>,
  },
  {
    accessorKey: 'created_at',
    header: 'Created',
    cell: ({ row }) => <span className="whitespace-nowrap">{formatDateTime(row.original.created_at)}</span>,
  },
];

function WebhooksTable({ webhooks, onCreate }: { webhooks: WebhookView[]; onCreate: () => void }) {
  return (
    <DataTable
      columns={columns}
      data={webhooks}
      caption="Your webhook subscriptions"
      getRowId={(w) => w.id}
      empty={
        <EmptyState title="No webhooks yet" action={<Button onClick={onCreate}>Create your first webhook</Button>}>
          Subscribe an HTTPS endpoint to event kinds such as <code>execution.completed</code>: every matching event is POSTed to it, signed,
          and retried on failure.
        </EmptyState>
      }
    />
  );
}
