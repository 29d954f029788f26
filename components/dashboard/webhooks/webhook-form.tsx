'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { useId, useRef, useState, type BaseSyntheticEvent } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'sonner';
import { z } from 'zod';
import { useTRPC } from '@/client/trpc/react';
import type { EventType } from '@/src/contract/events';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { Copyable } from '@/components/ui/copyable';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { Label } from '@/components/ui/label';
import { apiIssues, errorMessage } from '@/components/dashboard/query-error';
import { EVENT_KINDS, EVENT_MEANINGS } from './event-kinds';
import { VerifySnippet } from './verify-snippet';
import { headerRowsOf, headersFromRows, HeadersEditor } from './webhook-controls';
import type { RouterOutputs } from '@/client/trpc/types';
import { atMostCharacters } from '@/components/forms/fields';
import {
  WEBHOOK_AUTO_DISABLE_AFTER,
  WEBHOOK_FILTER_MAX_LENGTH,
  WEBHOOK_RATE_LIMIT_MAX,
  WEBHOOK_SECRET_LENGTH,
  WEBHOOK_SECRET_PATTERN,
  WEBHOOK_URL_MAX_LENGTH,
} from '@/src/contract/limits';

/** The API's default `failure_alert_threshold`. */
const DEFAULT_ALERT_THRESHOLD = 3;

export type WebhookView = RouterOutputs['webhooks']['list']['data'][number];

/**
 * Active, failing (active, its failures in a row past the alert threshold), disabled (auto-disabled
 * after failures) or suspended (the plan has no webhooks): said in words, not colour alone.
 */
export function WebhookStatusBadge({
  webhook,
}: {
  webhook: Pick<WebhookView, 'status' | 'suspended'> & { failing_since?: string | null };
}) {
  if (webhook.suspended) return <Badge tone="warning">Suspended</Badge>;
  if (webhook.status === 'active' && webhook.failing_since) return <Badge tone="warning">Failing</Badge>;
  return webhook.status === 'active' ? <Badge tone="success">Active</Badge> : <Badge tone="danger">Disabled</Badge>;
}

/** A success rate (0–1 from the API) as a percentage, or a dash before the first delivery finished. */
export function formatRate(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '—' : `${(rate * 100).toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;
}

/** A Standard Webhooks secret as the service generates them: whsec_ + base64 of 24 random bytes. */
export function newSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

const { min: SECRET_MIN, max: SECRET_MAX } = WEBHOOK_SECRET_LENGTH;
const secretField = z
  .string()
  .trim()
  .refine(
    (s) => s === '' || (s.length >= SECRET_MIN && s.length <= SECRET_MAX),
    `The secret must be ${SECRET_MIN} to ${SECRET_MAX} characters.`,
  )
  .refine((s) => s === '' || WEBHOOK_SECRET_PATTERN.test(s), 'The secret must be printable ASCII without spaces.');
const formSchema = z.object({
  url: z.string().trim().min(1, 'Enter the receiver URL.').max(WEBHOOK_URL_MAX_LENGTH, atMostCharacters(WEBHOOK_URL_MAX_LENGTH)),
  all: z.boolean(),
  events: z.array(z.string()),
  secret: secretField,
  threshold: z
    .string()
    .trim()
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= WEBHOOK_AUTO_DISABLE_AFTER,
      `Enter a whole number from 1 to ${WEBHOOK_AUTO_DISABLE_AFTER} (at ${WEBHOOK_AUTO_DISABLE_AFTER} the webhook is disabled).`,
    ),
  filter: z.string().trim().max(WEBHOOK_FILTER_MAX_LENGTH, atMostCharacters(WEBHOOK_FILTER_MAX_LENGTH)),
  rate: z
    .string()
    .trim()
    .refine(
      (v) => v === '' || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= WEBHOOK_RATE_LIMIT_MAX),
      `Enter a whole number from 1 to ${WEBHOOK_RATE_LIMIT_MAX}, or leave it empty.`,
    ),
});
type FormValues = z.infer<typeof formSchema>;

/** The form field of each API input field (the API's issues name the input). */
const FIELD_OF_INPUT: Record<string, 'url' | 'secret' | 'threshold' | 'filter' | 'rate'> = {
  url: 'url',
  secret: 'secret',
  failure_alert_threshold: 'threshold',
  filter: 'filter',
  rate_limit_per_second: 'rate',
};

/**
 * Create or edit a subscription: receiver URL, event kinds (all, or a choice of the 12 with what
 * each means) and an optional signing secret. A created subscription's secret is shown once, with
 * the verification snippet filled in with it.
 */
export function WebhookFormDialog({
  open,
  onOpenChange,
  webhook,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The subscription to edit; absent to create one. */
  webhook?: WebhookView | Omit<WebhookView, 'success_rate'>;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.webhooks.create.mutationOptions());
  const update = useMutation(trpc.webhooks.update.mutationOptions());
  const [created, setCreated] = useState<{ id: string; secret: string }>();
  const editing = Boolean(webhook);
  const defaults = (): FormValues => ({
    url: webhook?.url ?? '',
    all: webhook ? webhook.events.includes('*') : false,
    events: webhook && !webhook.events.includes('*') ? webhook.events : ['execution.completed', 'execution.failed'],
    secret: '',
    threshold: String(webhook?.failure_alert_threshold ?? DEFAULT_ALERT_THRESHOLD),
    filter: webhook?.filter ?? '',
    rate: webhook?.rate_limit_per_second ? String(webhook.rate_limit_per_second) : '',
  });
  const form = useForm<FormValues>({ resolver: zodResolver(formSchema), defaultValues: defaults() });
  const [all, chosen] = [form.watch('all'), form.watch('events')];
  const [eventsError, setEventsError] = useState<string>();
  const [headerRows, setHeaderRows] = useState(() => headerRowsOf(webhook?.headers));
  const [headersError, setHeadersError] = useState<string>();
  const pickerId = useId();
  const failure = create.error ?? update.error;
  // The API's objections to fields show under those fields; the alert says only what no field took.
  const [fieldsTookFailure, setFieldsTookFailure] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);

  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      setCreated(undefined);
      setEventsError(undefined);
      setHeaderRows(headerRowsOf(webhook?.headers));
      setHeadersError(undefined);
      create.reset();
      update.reset();
      form.reset(defaults());
    }
  };
  const toggle = (kind: EventType, on: boolean) => {
    form.setValue('events', on ? [...chosen, kind] : chosen.filter((k) => k !== kind));
    setEventsError(undefined);
  };

  const submit = form.handleSubmit(async (values) => {
    const events = values.all ? ['*'] : values.events;
    if (events.length === 0) return setEventsError('Choose at least one event kind, or all events.');
    const headers = headersFromRows(headerRows);
    if (typeof headers === 'string') return setHeadersError(headers);
    const secret = values.secret === '' ? undefined : values.secret;
    const failure_alert_threshold = Number(values.threshold);
    const filter = values.filter === '' ? null : values.filter;
    const rate_limit_per_second = values.rate === '' ? null : Number(values.rate);
    try {
      if (webhook) {
        await update.mutateAsync({
          id: webhook.id,
          url: values.url,
          events,
          headers,
          failure_alert_threshold,
          filter,
          rate_limit_per_second,
          ...(secret ? { secret } : {}),
        });
        toast.success(secret ? 'Webhook saved. The new secret signs every attempt from now on.' : 'Webhook saved.');
        close(false);
      } else {
        const made = await create.mutateAsync({
          url: values.url,
          events,
          headers,
          failure_alert_threshold,
          filter,
          rate_limit_per_second,
          ...(secret ? { secret } : {}),
        });
        setCreated({ id: made.id, secret: made.secret });
      }
      void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      if (webhook) void queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: webhook.id }) });
    } catch (err) {
      if (placeIssues(err)) return;
      // Shown in the form, verbatim, from the mutation's error, and brought into view.
      requestAnimationFrame(() => alertRef.current?.focus());
    }
  });
  /** Puts the API's issues under their fields and focuses the first; false when none belongs to a field. */
  const placeIssues = (err: unknown): boolean => {
    let placed = false;
    let first: keyof FormValues | undefined;
    for (const { path, message } of apiIssues(err)) {
      const top = path.split('.')[0]!;
      if (top === 'events') setEventsError(message);
      else if (top === 'headers') setHeadersError(message);
      else if (FIELD_OF_INPUT[top]) {
        form.setError(FIELD_OF_INPUT[top], { type: 'server', message });
        first ??= FIELD_OF_INPUT[top];
      } else continue;
      placed = true;
    }
    setFieldsTookFailure(placed);
    if (first) form.setFocus(first);
    return placed;
  };
  // A new attempt: the last answer's error no longer applies (field errors show under their fields).
  const onSubmit = (event?: BaseSyntheticEvent) => {
    create.reset();
    update.reset();
    setFieldsTookFailure(false);
    return submit(event);
  };

  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent
        title={created ? 'Webhook created' : editing ? 'Edit webhook' : 'Create a webhook'}
        description={created ? undefined : 'Events of the kinds you choose are POSTed to your receiver, signed with the secret.'}
        className="max-w-2xl"
      >
        {created ? (
          <div className="grid grid-cols-1 gap-4">
            <Alert variant="success" title="Copy the signing secret now">
              It is shown only this once (later views show its last four characters). Your receiver uses it to check that a delivery came
              from us.
            </Alert>
            <Copyable value={created.secret} label="signing secret" testId="new-webhook-secret" />
            <VerifySnippet secret={{ value: created.secret }} />
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="secondary" onClick={() => close(false)}>
                Done
              </Button>
              <Button asChild>
                <Link href={`/dashboard/webhooks/${created.id}`}>Open the webhook</Link>
              </Button>
            </div>
          </div>
        ) : (
          <form method="post" onSubmit={onSubmit} noValidate className="grid grid-cols-1 gap-4">
            {failure && !fieldsTookFailure ? (
              <div ref={alertRef} tabIndex={-1} className="scroll-mt-4 focus:outline-none">
                <Alert variant="error">{errorMessage(failure)}</Alert>
              </div>
            ) : null}
            <FormField
              label="Receiver URL"
              type="url"
              inputMode="url"
              autoComplete="url"
              placeholder="https://example.com/hooks/amp"
              required
              description="An https:// address that resolves to public addresses."
              error={form.formState.errors.url?.message}
              {...form.register('url')}
            />
            <fieldset className="grid grid-cols-1 gap-2" aria-describedby={eventsError ? `${pickerId}-error` : undefined}>
              <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">Events</legend>
              <p className="text-xs text-slate-600 dark:text-slate-400">
                What each kind carries, with an example:{' '}
                <Link
                  href="/dashboard/webhooks/event-types"
                  target="_blank"
                  className="font-medium text-indigo-700 underline dark:text-indigo-300"
                >
                  event types
                </Link>
                .
              </p>
              <div className="flex items-start gap-3 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-800">
                <Checkbox
                  id={`${pickerId}-all`}
                  className="mt-0.5"
                  checked={all}
                  onCheckedChange={(v) => form.setValue('all', v === true)}
                  aria-describedby={`${pickerId}-all-meaning`}
                />
                <div className="grid grid-cols-1 gap-0.5">
                  <Label htmlFor={`${pickerId}-all`}>All events</Label>
                  <span id={`${pickerId}-all-meaning`} className="text-xs text-slate-600 dark:text-slate-400">
                    Every kind below, and kinds added later (<code>*</code>)
                  </span>
                </div>
              </div>
              <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
                {EVENT_KINDS.map((kind) => {
                  const id = `${pickerId}-${kind}`;
                  return (
                    <div key={kind} className="flex items-start gap-3 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-800">
                      <Checkbox
                        id={id}
                        className="mt-0.5"
                        disabled={all}
                        checked={all || chosen.includes(kind)}
                        onCheckedChange={(v) => toggle(kind, v === true)}
                        aria-describedby={`${id}-meaning`}
                      />
                      <div className="grid min-w-0 gap-0.5">
                        <Label htmlFor={id} className="font-mono text-xs break-all">
                          {kind}
                        </Label>
                        <span id={`${id}-meaning`} className="text-xs text-slate-600 dark:text-slate-400">
                          {EVENT_MEANINGS[kind]}
                        </span>
                      </div>
                    </div>
                  );
                })}
              </div>
              <p id={`${pickerId}-error`} aria-live="polite" className="text-sm font-medium text-red-700 empty:hidden dark:text-red-400">
                {eventsError ?? ''}
              </p>
            </fieldset>
            <HeadersEditor
              rows={headerRows}
              onChange={(rows) => {
                setHeaderRows(rows);
                setHeadersError(undefined);
              }}
              error={headersError}
            />
            <FormField
              label={editing ? 'New signing secret (optional)' : 'Signing secret (optional)'}
              type="password"
              autoComplete="off"
              spellCheck={false}
              description={
                editing
                  ? `Leave empty to keep the current secret (ending in ${webhook?.secret.replace(/^…/, '')}).`
                  : 'Leave empty and one is generated for you (whsec_…), shown once.'
              }
              error={form.formState.errors.secret?.message}
              {...form.register('secret')}
            />
            <FormField
              label="Alert after failed deliveries in a row"
              type="number"
              inputMode="numeric"
              min={1}
              max={WEBHOOK_AUTO_DISABLE_AFTER}
              required
              description={`Your account's owner is emailed once when this many deliveries in a row have failed, and again if ${WEBHOOK_AUTO_DISABLE_AFTER} in a row disable the webhook.`}
              error={form.formState.errors.threshold?.message}
              {...form.register('threshold')}
            />
            <FormField
              label="Only events matching (optional)"
              autoComplete="off"
              spellCheck={false}
              className="font-mono"
              placeholder='event == "execution.failed" && data.module == "http"'
              description="A condition on each event; only the ones it matches are sent. Leave empty to send every event of the kinds chosen above."
              error={form.formState.errors.filter?.message}
              {...form.register('filter')}
            />
            <FormField
              label="Deliveries per second, at most (optional)"
              type="number"
              inputMode="numeric"
              min={1}
              max={WEBHOOK_RATE_LIMIT_MAX}
              description="For a receiver that cannot take bursts: the rest wait in line, in order, and none is dropped. Leave empty for no limit."
              error={form.formState.errors.rate?.message}
              {...form.register('rate')}
            />
            <div className="flex justify-end gap-2">
              <Button type="button" variant="secondary" onClick={() => close(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending || update.isPending}>
                {editing ? 'Save' : 'Create webhook'}
              </Button>
            </div>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
