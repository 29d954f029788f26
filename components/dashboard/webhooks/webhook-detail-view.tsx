'use client';

import * as Collapsible from '@radix-ui/react-collapsible';
import type { ColumnDef } from '@tanstack/react-table';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronRight, Pencil, RefreshCw, RotateCcw } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState } from 'react';
import { toast } from 'sonner';
import { statusOf } from '@/client/trpc/client';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { FormField } from '@/components/ui/form-field';
import { PageHeader } from '@/components/ui/page-header';
import { Skeleton, SkeletonRows } from '@/components/ui/skeleton';
import { formatCount, formatDateTime, formatMs } from '@/components/dashboard/format';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { DeliveryRateChart, LatencyChart } from './webhook-charts';
import { formatRate, WebhookFormDialog, WebhookStatusBadge } from './webhook-form';
import { VerifySnippet } from './verify-snippet';
import { DeliverySettings, RotateSecretDialog, TestEventPanel } from './webhook-controls';
import { EnableWebhookDialog } from './enable-dialog';
import type { RouterOutputs } from '@/client/trpc/types';
import { WEBHOOK_AUTO_DISABLE_AFTER } from '@/src/contract/limits';
import { WEBHOOK_STATS_RANGE } from '@/components/dashboard/first-queries';

type WebhookDetail = RouterOutputs['webhooks']['get'];
type Delivery = WebhookDetail['deliveries'][number];
type Attempt = Delivery['attempts'][number];
type Range = '24h' | '7d' | '30d';

/** A delivery's attempts: the receiver's answer (status, error, response excerpt) is why one failed. */
const attemptColumns: ColumnDef<Attempt, unknown>[] = [
  {
    accessorKey: 'attempt',
    header: 'Attempt',
    // A bare number would say little as a card's title: it keeps its label.
    meta: { card: 'field' },
    enableSorting: false,
    cell: ({ row }) => <span className="tabular-nums">{row.original.attempt}</span>,
  },
  {
    accessorKey: 'success',
    header: 'Result',
    enableSorting: false,
    cell: ({ row }) => (row.original.success ? <Badge tone="success">ok</Badge> : <Badge tone="danger">failed</Badge>),
  },
  {
    accessorKey: 'status_code',
    header: 'Status',
    enableSorting: false,
    cell: ({ row }) => <span className="tabular-nums">{row.original.status_code ?? '—'}</span>,
  },
  {
    accessorKey: 'latency_ms',
    header: 'Latency',
    enableSorting: false,
    cell: ({ row }) => <span className="whitespace-nowrap tabular-nums">{formatMs(row.original.latency_ms)}</span>,
  },
  {
    accessorKey: 'at',
    header: 'At',
    enableSorting: false,
    cell: ({ row }) => <span className="whitespace-nowrap">{formatDateTime(row.original.at)}</span>,
  },
  {
    id: 'response',
    header: 'Error and response (first 1 KB)',
    enableSorting: false,
    meta: { card: 'wide' },
    cell: ({ row }) => (
      <div className="grid grid-cols-1 gap-1">
        {row.original.error ? <span className="text-red-700 dark:text-red-400">{row.original.error}</span> : null}
        {row.original.response_body !== null ? (
          <code className="block font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">
            {row.original.response_body || '(empty body)'}
          </code>
        ) : null}
      </div>
    ),
  },
];

const RANGES: { value: Range; label: string }[] = [
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
];

/**
 * One subscription: status and actions (test, enable, edit, rotate the secret, delete), its
 * statistics and charts over time, the delivery history (each delivery expands to its attempts and
 * payload; a finished one can be resent), recovery of what the receiver missed, replay of a time
 * window (times entered and shown in UTC, as everywhere on the page), and how to verify its signatures.
 */
export function WebhookDetailView({ id }: { id: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<Range>(WEBHOOK_STATS_RANGE);
  // Both start together (one batched request); the history refreshes quickly while deliveries are pending.
  const detail = useQuery({
    ...trpc.webhooks.get.queryOptions({ id }),
    refetchInterval: (q) => ((q.state.data?.stats.pending_deliveries ?? 0) > 0 ? 2_000 : 10_000),
  });
  const series = useQuery({ ...trpc.webhooks.stats.queryOptions({ id, range }), refetchInterval: 15_000 });
  // The charts count what the stat cards count: when a delivery finishes (the detail refreshes
  // every few seconds), the series is fetched again instead of waiting for its own 15 s.
  const queryClient = useQueryClient();
  const finished = detail.data ? detail.data.stats.succeeded_deliveries + detail.data.stats.failed_deliveries : undefined;
  // (Only on a change: the first value came with the series, in the page's HTML or the same request.)
  const lastFinished = useRef(finished);
  useEffect(() => {
    const changed = lastFinished.current !== undefined && finished !== lastFinished.current;
    lastFinished.current = finished;
    if (changed) void queryClient.invalidateQueries({ queryKey: trpc.webhooks.stats.queryKey({ id }) });
  }, [finished, id, queryClient, trpc]);
  // A role without webhooks:write (a viewer) reads everything here; the settings, the test send and
  // enable are left out, the reason in the header; Resend, Recover and Replay stay in view, off and
  // described by the reason.
  const canManage = useAccess('manageWebhooks').allowed !== false;
  const redeliver = useAccess('redeliverWebhooks');
  const deniedReason = redeliver.allowed === false ? redeliver.reason : undefined;

  if (detail.isPending) {
    return (
      <div className="grid grid-cols-1 gap-6">
        <Skeleton className="h-8 w-2/3" />
        <SkeletonRows rows={6} label="Loading the webhook" />
      </div>
    );
  }
  if (detail.isError) {
    if (statusOf(detail.error) === 404) {
      return (
        <div className="grid grid-cols-1 gap-6" data-testid="webhook-not-found">
          <PageHeader title="Webhook not found" />
          <EmptyState
            title="There is no such webhook in your tenant"
            action={
              <Link className="font-medium text-indigo-700 underline dark:text-indigo-300" href="/dashboard/webhooks">
                Back to your webhooks
              </Link>
            }
          >
            {errorMessage(detail.error)}
          </EmptyState>
        </div>
      );
    }
    return (
      <div className="grid grid-cols-1 gap-6">
        <PageHeader title="Webhook" />
        <QueryError error={detail.error} retry={() => void detail.refetch()} />
      </div>
    );
  }
  const webhook = detail.data;
  return (
    <div className="grid grid-cols-1 gap-6">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href="/dashboard/webhooks" className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
          Webhooks
        </Link>
        <span aria-hidden="true"> / </span>
        <span className="font-mono text-xs">{webhook.id}</span>
      </nav>
      <PageHeader
        title={webhook.url ?? 'Polling endpoint'}
        description={
          <>
            Created {formatDateTime(webhook.created_at)} · events: {webhook.events.includes('*') ? 'all' : webhook.events.join(', ')}
          </>
        }
        actions={<HeaderActions webhook={webhook} />}
      />
      <StatusPanel webhook={webhook} />
      {canManage ? <DeliverySettings webhook={webhook} /> : null}
      {canManage ? <TestEventPanel webhook={webhook} /> : null}
      <StatsCards webhook={webhook} />
      <Card>
        <CardHeader className="flex-row flex-wrap items-center justify-between gap-3">
          <div>
            <CardTitle>Over time</CardTitle>
            <CardDescription>From the delivery history (30 days); test sends are not counted.</CardDescription>
          </div>
          <div role="group" aria-label="Time range" className="inline-flex gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800">
            {RANGES.map((r) => (
              <button
                key={r.value}
                type="button"
                aria-pressed={range === r.value}
                onClick={() => setRange(r.value)}
                className="rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none aria-pressed:bg-white aria-pressed:text-slate-900 aria-pressed:shadow-sm dark:text-slate-300 dark:aria-pressed:bg-slate-950 dark:aria-pressed:text-slate-100"
              >
                {r.label}
              </button>
            ))}
          </div>
        </CardHeader>
        <CardContent>
          {series.isPending ? (
            <SkeletonRows rows={4} label="Loading the statistics" />
          ) : series.isError ? (
            <QueryError error={series.error} retry={() => void series.refetch()} />
          ) : (
            <div className="grid grid-cols-1 gap-8 lg:grid-cols-2">
              <DeliveryRateChart series={series.data} />
              <LatencyChart series={series.data} />
            </div>
          )}
        </CardContent>
      </Card>
      <Deliveries webhook={webhook} />
      <RecoverCard webhook={webhook} denied={deniedReason} />
      <ReplayCard webhook={webhook} denied={deniedReason} />
      <Card>
        <CardHeader>
          <CardTitle>Verify signatures</CardTitle>
          <CardDescription>Check every delivery with your signing secret before you act on it.</CardDescription>
        </CardHeader>
        <CardContent>
          <VerifySnippet secret={{ masked: webhook.secret }} />
        </CardContent>
      </Card>
    </div>
  );
}

function useInvalidateWebhook(id: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.stats.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    ]);
}

function HeaderActions({ webhook }: { webhook: WebhookDetail }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.webhooks.delete.mutationOptions());
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  // A role without webhooks:write (a viewer) reads the webhook; the reason stands where the buttons would.
  const manage = useAccess('manageWebhooks');
  if (manage.allowed === false) return <DeniedNote id="webhook-manage-denied" reason={manage.reason} className="max-w-sm" />;
  return (
    <>
      <Button variant="secondary" onClick={() => setEditing(true)}>
        <Pencil aria-hidden="true" className="size-4" />
        Edit
      </Button>
      <Button variant="secondary" onClick={() => setRotating(true)}>
        <RefreshCw aria-hidden="true" className="size-4" />
        Rotate secret
      </Button>
      <ConfirmDialog
        trigger={<Button variant="destructive">Delete</Button>}
        title="Delete this webhook?"
        description={<>Deliveries to {webhook.url} stop, pending ones are dropped, and its history goes with it. This cannot be undone.</>}
        confirmLabel="Delete webhook"
        onConfirm={async () => {
          await remove.mutateAsync({ id: webhook.id });
          await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
          toast.success('Webhook deleted.');
          router.push('/dashboard/webhooks');
        }}
      />
      <WebhookFormDialog open={editing} onOpenChange={setEditing} webhook={webhook} />
      <RotateSecretDialog webhook={webhook} open={rotating} onOpenChange={setRotating} />
    </>
  );
}

function StatusPanel({ webhook }: { webhook: WebhookDetail }) {
  const canManage = useAccess('manageWebhooks').allowed !== false;
  return (
    <div className="grid grid-cols-1 gap-3">
      <div className="flex flex-wrap items-center gap-3 text-sm" data-testid="webhook-status">
        <span className="font-medium">Status</span>
        <WebhookStatusBadge webhook={webhook} />
        <span className="text-slate-600 dark:text-slate-400">Secret {webhook.secret}</span>
        <span className="text-slate-600 dark:text-slate-400" data-testid="webhook-alert-threshold">
          Alerts after {webhook.failure_alert_threshold} failed {webhook.failure_alert_threshold === 1 ? 'delivery' : 'deliveries'} in a row
        </span>
      </div>
      {webhook.suspended ? (
        <Alert title="Suspended by your plan">
          Your plan has no webhooks, so nothing is delivered until you upgrade.{' '}
          <Link href="/dashboard/usage" className="font-medium underline">
            Change plan
          </Link>
        </Alert>
      ) : null}
      {webhook.status === 'disabled' ? (
        <Alert variant="error" title="Disabled">
          <p>
            Turned off {webhook.disabled_at ? `on ${formatDateTime(webhook.disabled_at)}` : ''} after {webhook.stats.consecutive_failures}{' '}
            failed deliveries in a row. Events recorded while it is disabled are not sent; after enabling, recover what the receiver missed
            (below).
          </p>
          {canManage ? <EnableWebhookDialog webhook={webhook} /> : null}
        </Alert>
      ) : null}
      {webhook.status === 'active' && webhook.failing_since ? (
        <Alert variant="error" title="Failing" data-testid="webhook-failing">
          {webhook.consecutive_failures} failed deliveries in a row since {formatDateTime(webhook.failing_since)} (you were alerted at{' '}
          {webhook.failure_alert_threshold}). Deliveries are still retried; at {WEBHOOK_AUTO_DISABLE_AFTER} in a row the webhook is
          disabled. One successful delivery ends this.
        </Alert>
      ) : null}
    </div>
  );
}

function StatsCards({ webhook }: { webhook: WebhookDetail }) {
  const s = webhook.stats;
  const items = [
    { label: 'Success rate', value: formatRate(s.success_rate), testId: 'stat-success-rate' },
    { label: 'Average latency', value: formatMs(s.avg_latency_ms) },
    { label: 'Messages', value: formatCount(s.messages), testId: 'stat-messages', hint: 'Distinct events sent (30 days)' },
    { label: 'Deliveries', value: formatCount(s.total_deliveries), testId: 'stat-total' },
    { label: 'Attempts', value: formatCount(s.attempts), testId: 'stat-attempts', hint: 'HTTP requests made (30 days)' },
    { label: 'Succeeded', value: formatCount(s.succeeded_deliveries), testId: 'stat-succeeded' },
    { label: 'Failed', value: formatCount(s.failed_deliveries), testId: 'stat-failed' },
    { label: 'Pending', value: formatCount(s.pending_deliveries) },
    { label: 'Failures in a row', value: `${s.consecutive_failures} of ${WEBHOOK_AUTO_DISABLE_AFTER}` },
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
      {items.map((i) => (
        <div key={i.label} className="rounded-xl border border-slate-200 bg-white px-4 py-3 dark:border-slate-800 dark:bg-slate-900">
          <dt className="text-xs font-medium text-slate-600 dark:text-slate-400" title={i.hint}>
            {i.label}
            {i.hint ? <span className="sr-only"> ({i.hint})</span> : null}
          </dt>
          <dd className="mt-1 text-lg font-semibold tabular-nums" data-testid={i.testId}>
            {i.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

const deliveryTone = { succeeded: 'success', failed: 'danger', pending: 'info', cancelled: 'neutral' } as const;

function Deliveries({ webhook }: { webhook: WebhookDetail }) {
  const redeliver = useAccess('redeliverWebhooks');
  return (
    <Card>
      <CardHeader>
        <CardTitle>Delivery history</CardTitle>
        <CardDescription>
          The latest 100 deliveries, newest first. Open one to see its attempts and the payload; resend a finished one to make one more
          attempt of the same message (same <code>webhook-id</code>, so your receiver can deduplicate it).
        </CardDescription>
        {redeliver.allowed === false && webhook.deliveries.length > 0 ? (
          <DeniedNote id="webhook-redeliver-denied" reason={redeliver.reason} className="mt-2" />
        ) : null}
      </CardHeader>
      <CardContent>
        {webhook.deliveries.length === 0 ? (
          <EmptyState title="No deliveries yet">
            Deliveries appear here when an event of a subscribed kind happens (for instance, run a module action for{' '}
            <code>execution.completed</code>), or send a test event above.
          </EmptyState>
        ) : (
          <ul className="grid grid-cols-1 gap-2" aria-label="Deliveries" data-testid="deliveries">
            {webhook.deliveries.map((d) => (
              <DeliveryItem key={d.id} webhook={webhook} delivery={d} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

function DeliveryItem({ webhook, delivery }: { webhook: WebhookDetail; delivery: Delivery }) {
  const [open, setOpen] = useState(false);
  const webhookId = webhook.id;
  return (
    <li
      className="rounded-lg border border-slate-200 dark:border-slate-800"
      data-testid="delivery"
      data-event={delivery.event}
      data-status={delivery.status}
    >
      <Collapsible.Root open={open} onOpenChange={setOpen}>
        <div className="flex items-start gap-2">
          <Collapsible.Trigger asChild>
            <button
              type="button"
              className="flex min-w-0 flex-1 flex-wrap items-center gap-x-3 gap-y-1 rounded-lg px-3 py-2 text-left text-sm hover:bg-slate-50 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:hover:bg-slate-800/50"
            >
              <ChevronRight aria-hidden="true" className={`size-4 shrink-0 transition-transform ${open ? 'rotate-90' : ''}`} />
              <Badge tone={deliveryTone[delivery.status]}>{delivery.status}</Badge>
              <span className="font-mono text-xs">{delivery.event}</span>
              {delivery.kind !== 'event' ? <Badge>{delivery.kind}</Badge> : null}
              <span className="text-slate-600 dark:text-slate-400">
                {delivery.attempt} {delivery.attempt === 1 ? 'attempt' : 'attempts'}
                {delivery.status_code !== null ? ` · HTTP ${delivery.status_code}` : ''}
                {delivery.latency_ms !== null ? ` · ${formatMs(delivery.latency_ms)}` : ''}
              </span>
              <span className="ml-auto text-xs whitespace-nowrap text-slate-600 dark:text-slate-400">{formatDateTime(delivery.at)}</span>
            </button>
          </Collapsible.Trigger>
          <ResendButton webhook={webhook} delivery={delivery} />
        </div>
        <Collapsible.Content className="border-t border-slate-200 px-3 py-3 dark:border-slate-800">
          {open ? <DeliveryDetail webhookId={webhookId} delivery={delivery} /> : null}
        </Collapsible.Content>
      </Collapsible.Root>
    </li>
  );
}

/**
 * One more attempt of a finished delivery, the same message (POST …/deliveries/{id}/resend). Shown for
 * deliveries that can be resent: not pending (an attempt is on its way), not test sends (not stored;
 * send a new test), and only while the subscription is active (enable it first).
 */
function ResendButton({ webhook, delivery }: { webhook: WebhookDetail; delivery: Delivery }) {
  const trpc = useTRPC();
  const resend = useMutation(trpc.webhooks.resend.mutationOptions());
  const invalidate = useInvalidateWebhook(webhook.id);
  // Off without webhooks:write, described by the reason above the history.
  const denied = useAccess('redeliverWebhooks').allowed === false;
  if (delivery.status === 'pending' || delivery.kind === 'test' || webhook.status !== 'active' || webhook.url === null) return null;
  return (
    <Button
      variant="secondary"
      size="sm"
      className="my-1.5 mr-2 shrink-0"
      loading={resend.isPending}
      disabled={denied}
      aria-describedby={denied ? 'webhook-redeliver-denied' : undefined}
      aria-label={`Resend ${delivery.event} delivery ${delivery.id}`}
      onClick={() =>
        resend.mutate(
          { id: webhook.id, delivery_id: delivery.id },
          {
            onSuccess: (d) => {
              toast.success(`Resending ${d.event}: attempt ${d.attempt + 1} is on its way.`);
              void invalidate();
            },
            onError: (err) => {
              toast.error(errorMessage(err));
              void invalidate();
            },
          },
        )
      }
    >
      <RotateCcw aria-hidden="true" className="size-4" />
      Resend
    </Button>
  );
}

function DeliveryDetail({ webhookId, delivery }: { webhookId: string; delivery: Delivery }) {
  const trpc = useTRPC();
  // Loaded when opened (a user action): the payload can be up to 64 KB, so the history does not carry it.
  const full = useQuery(trpc.webhooks.delivery.queryOptions({ id: webhookId, delivery_id: delivery.id }));
  return (
    <div className="grid grid-cols-1 gap-4 text-sm">
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[9rem_1fr]">
        <dt className="text-slate-600 dark:text-slate-400">Event id</dt>
        <dd className="font-mono text-xs break-all">{delivery.event_id}</dd>
        <dt className="text-slate-600 dark:text-slate-400">Delivery id</dt>
        <dd className="font-mono text-xs break-all">{delivery.id}</dd>
        {delivery.next_attempt_at ? (
          <>
            <dt className="text-slate-600 dark:text-slate-400">Next attempt</dt>
            <dd>{formatDateTime(delivery.next_attempt_at)}</dd>
          </>
        ) : null}
      </dl>
      {delivery.attempts.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">No attempt made yet.</p>
      ) : (
        <DataTable
          caption={`Attempts of delivery ${delivery.id}`}
          columns={attemptColumns}
          data={delivery.attempts}
          getRowId={(a) => String(a.attempt)}
          testId="attempts"
          className="rounded-lg"
        />
      )}
      <div className="grid grid-cols-1 gap-2">
        <p className="font-medium">Payload</p>
        {full.isPending ? (
          <SkeletonRows rows={2} label="Loading the payload" />
        ) : full.isError ? (
          <QueryError error={full.error} retry={() => void full.refetch()} />
        ) : full.data.payload ? (
          <pre
            tabIndex={0}
            className="max-h-80 overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs dark:border-slate-700 dark:bg-slate-950"
            data-testid="delivery-payload"
          >
            {JSON.stringify(full.data.payload, null, 2)}
          </pre>
        ) : (
          <p className="text-slate-600 dark:text-slate-400">
            {delivery.kind === 'test' ? 'Test events are not stored.' : 'The event is past its 30-day retention.'}
          </p>
        )}
      </div>
    </div>
  );
}

/**
 * `YYYY-MM-DDTHH:mm` in UTC, for datetime-local inputs: the page shows every time in UTC, so the
 * times entered are UTC too (labelled so), whatever the browser's zone.
 */
function utcInput(date: Date): string {
  return date.toISOString().slice(0, 16);
}

/** A datetime-local value read as UTC; null when incomplete. */
function fromUtcInput(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(`${value}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Re-sends what the receiver did not get since a time (POST …/recover): failed, cancelled, or missed while disabled. */
function RecoverCard({ webhook, denied }: { webhook: WebhookDetail; denied?: string }) {
  const noteId = useId();
  const trpc = useTRPC();
  const recover = useMutation(trpc.webhooks.recover.mutationOptions());
  const invalidate = useInvalidateWebhook(webhook.id);
  const [from, setFrom] = useState(() => utcInput(new Date(Date.now() - 24 * 3_600_000)));
  const [invalid, setInvalid] = useState<string>();
  const result = recover.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Recover failed deliveries</CardTitle>
        <CardDescription>
          Sends again, with the same event ids, the events of the subscribed kinds since then that your receiver has not received: their
          deliveries failed or were cancelled, or none was made while the webhook was disabled. Delivered and pending ones are left out. At
          most 7 days back. Times are UTC, as everywhere on this page.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form
          className="grid grid-cols-1 gap-4 sm:grid-cols-[1fr_auto] sm:items-start"
          noValidate
          data-testid="recover-form"
          onSubmit={(e) => {
            e.preventDefault();
            const since = fromUtcInput(from);
            if (!since) return setInvalid('Enter a date and time (UTC).');
            if (since.getTime() >= Date.now()) return setInvalid('Pick a time in the past.');
            setInvalid(undefined);
            recover.mutate({ id: webhook.id, since: since.toISOString() }, { onSuccess: () => void invalidate() });
          }}
        >
          <FormField
            label="Recover failed since (UTC)"
            type="datetime-local"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            required
            error={invalid}
            description={fromUtcInput(from) ? `From ${formatDateTime(fromUtcInput(from)!.toISOString())} until now.` : undefined}
          />
          <Button
            type="submit"
            variant="secondary"
            className="sm:mt-6"
            loading={recover.isPending}
            disabled={webhook.status !== 'active' || Boolean(denied)}
            aria-describedby={denied ? noteId : undefined}
          >
            <RotateCcw aria-hidden="true" className="size-4" />
            Recover
          </Button>
        </form>
        <div aria-live="polite" className="mt-3" data-testid="recover-result">
          {denied ? <DeniedNote id={noteId} reason={denied} /> : null}
          {webhook.status !== 'active' && !denied ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">Enable the webhook first.</p>
          ) : null}
          {recover.isError ? <Alert variant="error">{errorMessage(recover.error)}</Alert> : null}
          {result ? (
            <Alert variant="success">
              {result.recovered === 0
                ? 'Nothing to recover: your receiver has every event of that window.'
                : `Queued ${formatCount(result.recovered)} ${result.recovered === 1 ? 'event' : 'events'} your receiver had not received.`}
              {result.has_more && result.next_since ? ` More remain: recover again from ${formatDateTime(result.next_since)}.` : ''}
            </Alert>
          ) : null}
        </div>
      </CardContent>
    </Card>
  );
}

function ReplayCard({ webhook, denied }: { webhook: WebhookDetail; denied?: string }) {
  const noteId = useId();
  const trpc = useTRPC();
  const replay = useMutation(trpc.webhooks.replay.mutationOptions());
  const invalidate = useInvalidateWebhook(webhook.id);
  const [from, setFrom] = useState(() => utcInput(new Date(Date.now() - 3_600_000)));
  const [to, setTo] = useState(() => utcInput(new Date(Date.now() + 60_000)));
  const [invalid, setInvalid] = useState<string>();
  const result = replay.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Replay a time window</CardTitle>
        <CardDescription>
          Re-sends the recorded events of the subscribed kinds in [from, to) as new deliveries with the same event ids, oldest first: at
          most 7 days back. Times are UTC, as everywhere on this page.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form
          className="grid grid-cols-1 gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-start"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const since = fromUtcInput(from);
            const until = fromUtcInput(to);
            if (!since || !until) return setInvalid('Enter both times (UTC).');
            if (since >= until) return setInvalid('“From” must be before “To”.');
            setInvalid(undefined);
            replay.mutate(
              { id: webhook.id, since: since.toISOString(), until: until.toISOString() },
              { onSuccess: () => void invalidate() },
            );
          }}
        >
          <FormField
            label="From (UTC)"
            type="datetime-local"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            required
            error={invalid}
          />
          <FormField label="To (UTC)" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} required />
          <Button
            type="submit"
            variant="secondary"
            className="sm:mt-6"
            loading={replay.isPending}
            disabled={Boolean(denied)}
            aria-describedby={denied ? noteId : undefined}
          >
            Replay
          </Button>
        </form>
        <div aria-live="polite" className="mt-3" data-testid="replay-result">
          {denied ? <DeniedNote id={noteId} reason={denied} /> : null}
          {replay.isError ? <Alert variant="error">{errorMessage(replay.error)}</Alert> : null}
          {result ? (
            <Alert variant="success">
              Queued {formatCount(result.replayed)} {result.replayed === 1 ? 'event' : 'events'} for delivery.
              {result.has_more && result.next_since ? ` More remain: replay again from ${formatDateTime(result.next_since)}.` : ''}
            </Alert>
          ) : null}
        </div>
      </CardContent>
    </Card>
  );
}
