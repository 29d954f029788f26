'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { ForDevelopers } from '@/components/ui/for-developers';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { apiIssues, errorMessage } from '@/components/dashboard/query-error';
import { fieldOfIssue, patchOf, valuesOf, type PolicyField, type PolicyValues } from './policy';

type KeySummary = RouterOutputs['keys']['list']['data'][number];
type FieldErrors = Partial<Record<PolicyField, string>>;

const controlClass =
  'w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none aria-invalid:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

/** The API's issues of a refused policy, by form field (`ip_allow.1` under the addresses). */
function issuesByField(err: unknown): FieldErrors {
  const byField: FieldErrors = {};
  for (const issue of apiIssues(err)) {
    const field = fieldOfIssue(issue.path);
    if (field) byField[field] = byField[field] ? `${byField[field]} ${issue.message}` : issue.message;
  }
  return byField;
}

/**
 * A key's policy, every field in words: what it may call, the certification its modules need,
 * its own limits, when it expires and where it may be used from. Each field has "Remove limit";
 * only the fields changed are sent, and the API's objections show under their fields.
 */
export function KeyPolicyDialog({
  keyRow,
  open,
  onOpenChange,
}: {
  keyRow: KeySummary;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={`Policy of “${keyRow.name}”`}
        description="Narrow what this key may do. Leave a field empty, or remove its limit, for no limit there."
        className="max-w-2xl"
      >
        {/* Mounted while open: each opening starts from the key's policy as the list shows it now. */}
        <PolicyForm keyRow={keyRow} onDone={() => onOpenChange(false)} />
      </DialogContent>
    </Dialog>
  );
}

function PolicyForm({ keyRow, onDone }: { keyRow: KeySummary; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(trpc.keys.setPolicy.mutationOptions());
  const [initial] = useState(() => valuesOf(keyRow.policy));
  const [values, setValues] = useState<PolicyValues>(initial);
  const [localErrors, setLocalErrors] = useState<FieldErrors>({});
  const errors: FieldErrors = { ...issuesByField(save.error), ...localErrors };

  const set = (field: PolicyField, text: string) => {
    setValues((v) => ({ ...v, [field]: text }));
    setLocalErrors(({ [field]: _, ...rest }) => rest);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    save.reset();
    const { patch, errors: unreadable } = patchOf(initial, values);
    setLocalErrors(unreadable);
    if (Object.keys(unreadable).length) return;
    if (Object.keys(patch).length === 0) return onDone();
    try {
      await save.mutateAsync({ key_id: keyRow.key_id, ...patch });
      toast.success(`Policy of “${keyRow.name}” saved. It applies from the next request.`);
      await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
      onDone();
    } catch {
      // Shown in the form: the message above, each issue under its field.
    }
  };
  const field = (name: PolicyField) => ({
    value: values[name],
    onChange: (text: string) => set(name, text),
    onRemove: () => set(name, ''),
    error: errors[name],
  });

  return (
    <form onSubmit={(e) => void submit(e)} noValidate className="grid grid-cols-1 gap-5">
      {save.isError ? <Alert variant="error">{errorMessage(save.error)}</Alert> : null}
      <PolicyField
        label="Only these modules"
        description="Module names, one per line (for example text). Leave empty to allow every module."
        multiline
        {...field('modules')}
      />
      <PolicyField
        label="Only these actions"
        description="One per line: a module and its action (text.slugify), or every action of a module (text.*). A call is allowed when either list allows it."
        multiline
        {...field('actions')}
      />
      <PolicyField
        label="Minimum certification"
        description="Only modules certified at this level or above."
        {...field('min_trust_tier')}
        render={(props) => (
          <select
            {...props}
            className={`${controlClass} h-10`}
            value={values.min_trust_tier}
            onChange={(e) => set('min_trust_tier', e.target.value)}
          >
            <option value="">Any certification</option>
            <option value="bronze">Bronze</option>
            <option value="silver">Silver</option>
            <option value="gold">Gold</option>
          </select>
        )}
      />
      <PolicyField
        label="Minimum trust score"
        description="Only modules whose trust score (0 to 100) is at least this."
        inputMode="numeric"
        {...field('min_trust_score')}
      />
      <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
        <PolicyField
          label="Requests per minute"
          description="This key's own limit; your plan's limit still applies."
          inputMode="numeric"
          {...field('requests_per_minute')}
        />
        <PolicyField
          label="Executions per month"
          description="Runs this key may start each billing cycle."
          inputMode="numeric"
          {...field('executions_per_month')}
        />
        <PolicyField
          label="Spend cap (USD) per month"
          description="What this key's runs may cost each billing cycle, e.g. 12.50."
          inputMode="decimal"
          {...field('spend_cap_usd')}
        />
        <PolicyField
          label="Expires"
          description="Date and time in UTC; after it the key is refused."
          type="datetime-local"
          {...field('expires_at')}
        />
      </div>
      <PolicyField
        label="Allowed IP addresses (one per line)"
        description="Addresses or ranges the key may be used from, e.g. 203.0.113.7 or 203.0.113.0/24. Leave empty to allow any."
        multiline
        {...field('ip_allow')}
      />
      <ForDevelopers summary="For developers: pinned module definitions">
        <PolicyField
          label="Pinned definitions"
          description="One per line: a module name and the definition hash it must keep (sha256:…). Calls are refused once the module's definition differs."
          multiline
          mono
          {...field('pins')}
        />
      </ForDevelopers>
      <div className="flex justify-end gap-2">
        <Button type="button" variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" loading={save.isPending}>
          Save policy
        </Button>
      </div>
    </form>
  );
}

interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string;
}

/** One policy field: label, control, help, "Remove limit" when set, and its error (announced). */
function PolicyField({
  label,
  description,
  value,
  onChange,
  onRemove,
  error,
  multiline,
  mono,
  type,
  inputMode,
  render,
}: {
  label: string;
  description: string;
  value: string;
  onChange: (text: string) => void;
  onRemove: () => void;
  error: string | undefined;
  multiline?: boolean;
  mono?: boolean;
  type?: string;
  inputMode?: 'numeric' | 'decimal';
  render?: (props: ControlProps) => ReactNode;
}) {
  const id = useId();
  const props: ControlProps = {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [`${id}-description`, error ? `${id}-error` : ''].filter(Boolean).join(' '),
  };
  const control = render ? (
    render(props)
  ) : multiline ? (
    <textarea
      {...props}
      rows={3}
      spellCheck={false}
      className={`${controlClass} ${mono ? 'font-mono text-xs' : ''}`}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  ) : (
    <Input
      {...props}
      type={type ?? 'text'}
      inputMode={inputMode}
      autoComplete="off"
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
  return (
    <div className="grid min-w-0 content-start gap-2">
      <div className="flex min-h-8 flex-wrap items-center justify-between gap-2">
        <Label htmlFor={id}>{label}</Label>
        {value.trim() ? (
          <Button type="button" size="sm" variant="ghost" onClick={onRemove} aria-label={`Remove limit: ${label}`}>
            Remove limit
          </Button>
        ) : null}
      </div>
      {control}
      <p id={`${id}-description`} className="text-xs text-slate-600 dark:text-slate-400">
        {description}
      </p>
      <p id={`${id}-error`} aria-live="polite" className="text-sm font-medium text-red-700 empty:hidden dark:text-red-400">
        {error ?? ''}
      </p>
    </div>
  );
}
