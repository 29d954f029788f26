'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Send } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useId, useState } from 'react';
import { useTRPC } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Copyable } from '@/components/ui/copyable';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { formatDateTime, formatMs } from '@/components/dashboard/format';
import { errorMessage } from '@/components/dashboard/query-error';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '@/src/contract/events';
import { customHeaderProblems, WEBHOOK_HEADERS_MAX_COUNT } from '@/src/contract/webhook-headers';
import { VerifySnippet } from './verify-snippet';

type WebhookDetail = RouterOutputs['webhooks']['get'];

const selectClass =
  'h-10 w-full rounded-md border border-slate-400 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

function useInvalidate(id: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    ]);
}

/**
 * Send a test event now: `webhook.test`, or any kind of the catalog with its example data. The
 * receiver sees `"test": true` in the envelope and `X-Webhook-Test: 1`.
 */
export function TestEventPanel({ webhook }: { webhook: WebhookDetail }) {
  const trpc = useTRPC();
  const test = useMutation(trpc.webhooks.test.mutationOptions());
  const invalidate = useInvalidate(webhook.id);
  const [kind, setKind] = useState<string>(TEST_EVENT_TYPE);
  const pickerId = useId();
  const result = test.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Send a test event</CardTitle>
        <CardDescription>
          One signed delivery, now, of the kind you choose with its{' '}
          <Link href="/dashboard/webhooks/event-types" className="font-medium text-indigo-700 underline dark:text-indigo-300">
            catalog example
          </Link>{' '}
          as data; marked as a test (<code>&quot;test&quot;: true</code> and <code>X-Webhook-Test: 1</code>), not retried and not counted in
          the statistics. Works while disabled, to check your receiver first.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-3">
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,20rem)_auto] sm:items-end">
          <div className="grid gap-2">
            <Label htmlFor={pickerId}>Event kind</Label>
            <select id={pickerId} className={selectClass} value={kind} onChange={(e) => setKind(e.target.value)} data-testid="test-kind">
              <option value={TEST_EVENT_TYPE}>{TEST_EVENT_TYPE} (a plain test)</option>
              {EVENT_TYPES.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </div>
          <div>
            <Button
              variant="secondary"
              loading={test.isPending}
              onClick={() =>
                test.mutate(
                  { id: webhook.id, ...(kind === TEST_EVENT_TYPE ? {} : { event_type: kind }) },
                  { onSettled: () => void invalidate() },
                )
              }
            >
              <Send aria-hidden="true" className="size-4" />
              Send test event
            </Button>
          </div>
        </div>
        <div aria-live="polite" data-testid="test-result">
          {test.isError ? <Alert variant="error">{errorMessage(test.error)}</Alert> : null}
          {result ? (
            <Alert variant={result.delivered ? 'success' : 'error'} title={result.delivered ? 'Delivered' : 'Not delivered'}>
              {result.status_code !== null ? `HTTP ${result.status_code}` : 'No answer'} in {formatMs(result.latency_ms)}
              {result.error ? ` · ${result.error}` : ''} · event <code className="font-mono text-xs">{result.event_id}</code>
            </Alert>
          ) : null}
        </div>
      </CardContent>
    </Card>
  );
}

const OVERLAPS = [
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours (recommended)' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 0, label: 'None: replace at once' },
];

/**
 * Rotate the signing secret (POST …/rotate-secret): a new generated secret, shown this once; the
 * current one keeps signing beside it for the chosen overlap, so the receiver can switch at its pace.
 */
export function RotateSecretDialog({
  webhook,
  open,
  onOpenChange,
}: {
  webhook: WebhookDetail;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const trpc = useTRPC();
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions());
  const invalidate = useInvalidate(webhook.id);
  const [overlap, setOverlap] = useState(86_400);
  const overlapId = useId();
  const rotated = rotate.data;
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) rotate.reset();
  };
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent
        title="Rotate the signing secret"
        className="max-w-2xl"
        description={
          rotated
            ? undefined
            : 'A new secret signs every attempt from now on, retries of earlier events included. During the overlap the current secret signs too (webhook-signature carries both), so your receiver keeps verifying while you update it.'
        }
      >
        {rotated ? (
          <div className="grid grid-cols-1 gap-4">
            <Alert variant="success" title="Copy the new signing secret now">
              It is shown only this once. Put it in your receiver&apos;s configuration
              {rotated.previous_secret_expires_at
                ? ` before ${formatDateTime(rotated.previous_secret_expires_at)}, when the old secret stops signing.`
                : '; the old secret no longer signs.'}{' '}
              <code>X-Webhook-Signature</code> uses the new secret from now on.
            </Alert>
            <Copyable value={rotated.secret} label="signing secret" testId="rotated-webhook-secret" />
            <VerifySnippet secret={{ value: rotated.secret }} />
            <div className="flex justify-end">
              <Button onClick={() => close(false)}>Done</Button>
            </div>
          </div>
        ) : (
          <div className="grid grid-cols-1 gap-4">
            {rotate.isError ? <Alert variant="error">{errorMessage(rotate.error)}</Alert> : null}
            <div className="grid gap-2">
              <Label htmlFor={overlapId}>Keep the current secret signing for</Label>
              <select id={overlapId} className={selectClass} value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
                {OVERLAPS.map((o) => (
                  <option key={o.seconds} value={o.seconds}>
                    {o.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex justify-end gap-2">
              <Button variant="secondary" onClick={() => close(false)}>
                Cancel
              </Button>
              <Button
                loading={rotate.isPending}
                onClick={() => rotate.mutate({ id: webhook.id, overlap_seconds: overlap }, { onSuccess: () => void invalidate() })}
              >
                Rotate secret
              </Button>
            </div>
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}

/** The custom headers sent with every request, the filter, the pace (and the queue's lag), and a rotation's overlap while it lasts. */
export function DeliverySettings({ webhook }: { webhook: WebhookDetail }) {
  const headers = Object.entries(webhook.headers);
  return (
    <div className="grid grid-cols-1 gap-2 text-sm" data-testid="delivery-settings">
      {webhook.previous_secret_expires_at ? (
        <p className="text-slate-700 dark:text-slate-300">
          The previous secret also signs deliveries until {formatDateTime(webhook.previous_secret_expires_at)}.
        </p>
      ) : null}
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <span className="font-medium">Custom headers</span>
        {headers.length === 0 ? (
          <span className="text-slate-600 dark:text-slate-400">none</span>
        ) : (
          <ul className="flex flex-wrap gap-2" aria-label="Custom headers">
            {headers.map(([name, value]) => (
              <li key={name} className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs break-all dark:bg-slate-800">
                {name}: {value}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1" data-testid="webhook-filter">
        <span className="font-medium">Only events matching</span>
        {webhook.filter ? (
          <code className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs break-all dark:bg-slate-800">{webhook.filter}</code>
        ) : (
          <span className="text-slate-600 dark:text-slate-400">every event of the chosen kinds</span>
        )}
      </div>
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1" data-testid="webhook-rate-limit">
        <span className="font-medium">Pace</span>
        <span className={webhook.rate_limit_per_second ? '' : 'text-slate-600 dark:text-slate-400'}>
          {webhook.rate_limit_per_second
            ? `at most ${webhook.rate_limit_per_second} ${webhook.rate_limit_per_second === 1 ? 'delivery' : 'deliveries'} a second`
            : 'no limit'}
          {webhook.stats.lag_seconds ? ` · the oldest waiting delivery is ${Math.round(webhook.stats.lag_seconds)} s behind` : ''}
        </span>
      </div>
    </div>
  );
}

/** The event catalog as the API serves it (GET /api/v1/webhooks/event-types). */
export function useEventCatalog() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.webhooks.eventTypes.queryOptions({}), staleTime: Infinity });
}

export interface HeaderRow {
  name: string;
  value: string;
}

/** The editor's rows for a subscription's headers (none: no rows). */
export function headerRowsOf(headers: Record<string, string> | undefined): HeaderRow[] {
  return Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }));
}

/** The rows as the API's `headers`, or what the API would refuse about them (checked by the same rules). */
export function headersFromRows(rows: HeaderRow[]): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (name === '' && row.value === '') continue;
    if (name === '') return 'Give each header a name (or remove the row).';
    if (Object.hasOwn(headers, name)) return `'${name}' is given twice.`;
    headers[name] = row.value;
  }
  const [problem] = customHeaderProblems(headers);
  return problem ? problem.message : headers;
}

/** Name and value rows for the custom headers sent with every request to the receiver. */
export function HeadersEditor({ rows, onChange, error }: { rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void; error?: string }) {
  const id = useId();
  const set = (i: number, patch: Partial<HeaderRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="grid grid-cols-1 gap-2" aria-describedby={`${id}-help ${id}-error`} data-testid="headers-editor">
      <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">Custom headers (optional)</legend>
      <p id={`${id}-help`} className="text-xs text-slate-600 dark:text-slate-400">
        Sent with every request to your receiver, e.g. an <code>Authorization</code> your endpoint expects. Up to{' '}
        {WEBHOOK_HEADERS_MAX_COUNT}; names the platform sets (<code>Content-Type</code>, <code>webhook-*</code>, <code>X-Webhook-*</code>
        …) are not allowed. Shown in the webhook&apos;s views.
      </p>
      {rows.map((row, i) => (
        <div key={i} className="grid grid-cols-[1fr_1fr_auto] items-center gap-2">
          <Input
            aria-label={`Header ${i + 1} name`}
            placeholder="Authorization"
            autoComplete="off"
            spellCheck={false}
            value={row.name}
            onChange={(e) => set(i, { name: e.target.value })}
          />
          <Input
            aria-label={`Header ${i + 1} value`}
            placeholder="Bearer …"
            autoComplete="off"
            spellCheck={false}
            value={row.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <Button type="button" variant="secondary" size="sm" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            Remove<span className="sr-only"> header {i + 1}</span>
          </Button>
        </div>
      ))}
      <div>
        <Button
          type="button"
          variant="secondary"
          size="sm"
          disabled={rows.length >= WEBHOOK_HEADERS_MAX_COUNT}
          onClick={() => onChange([...rows, { name: '', value: '' }])}
        >
          Add header
        </Button>
      </div>
      <p id={`${id}-error`} aria-live="polite" className="text-sm font-medium text-red-700 empty:hidden dark:text-red-400">
        {error ?? ''}
      </p>
    </fieldset>
  );
}
