'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Play } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useId, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { DeniedNote } from '@/components/dashboard/access';
import { apiIssues, errorMessage } from '@/components/dashboard/query-error';
import { fieldText, inputFromFields, inputNames } from './definition';
import type { WorkflowView } from './status';

type Values = Record<string, string>;

/**
 * Starts a run: one field per top-level name the steps read as `{{input.<name>}}`, or the whole
 * input as JSON, and an optional idempotency key; then opens the run.
 */
export function StartRun({ workflow, access }: { workflow: WorkflowView; access: { allowed: boolean | undefined; reason: string } }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { names, whole } = useMemo(() => inputNames(workflow.steps), [workflow.steps]);
  const [mode, setMode] = useState<'form' | 'json'>(names.length || !whole ? 'form' : 'json');
  const [values, setValues] = useState<Values>({});
  const [raw, setRaw] = useState('{}');
  const [key, setKey] = useState('');
  const [modeError, setModeError] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const start = useMutation(trpc.workflows.startRun.mutationOptions());
  const id = useId();
  const hintId = `${id}-hint`;
  const deniedId = `${id}-denied`;

  const current = (): { input?: Record<string, unknown>; error?: string } => {
    if (mode === 'form') return { input: inputFromFields(values) };
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return { error: 'The input must be a JSON object, e.g. {"title": "Hello"}.' };
      return { input: parsed as Record<string, unknown> };
    } catch (err) {
      return { error: `The input is not valid JSON: ${errorMessage(err)}` };
    }
  };
  const now = current();

  const switchMode = () => {
    setModeError(undefined);
    if (mode === 'form') {
      setRaw(JSON.stringify(now.input ?? {}, null, 2));
      setMode('json');
      return;
    }
    if (!now.input) return setModeError(now.error);
    const extra = Object.keys(now.input).filter((k) => !names.includes(k));
    if (extra.length)
      return setModeError(`The form has no field for ${extra.map((k) => `“${k}”`).join(', ')}: keep editing the input as JSON.`);
    setValues(Object.fromEntries(Object.entries(now.input).map(([k, v]) => [k, fieldText(v)])));
    setMode('form');
  };

  const submit = async () => {
    setFailure(undefined);
    if (!now.input) return;
    try {
      const run = await start.mutateAsync({ id: workflow.id, input: now.input, ...(key.trim() ? { idempotency_key: key.trim() } : {}) });
      toast.success(`Run ${run.run_id} started`);
      await queryClient.invalidateQueries({ queryKey: trpc.workflows.listRuns.queryKey() });
      router.push(`/dashboard/workflows/${encodeURIComponent(workflow.id)}/runs/${encodeURIComponent(run.run_id)}`);
    } catch (err) {
      setFailure(err);
    }
  };

  const issue = failure === undefined ? undefined : apiIssues(failure)[0];
  const denied = access.allowed === false;

  return (
    <Card className="min-w-0">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle as="h2">Start a run</CardTitle>
          <Button type="button" variant="secondary" size="sm" onClick={switchMode} aria-pressed={mode === 'json'}>
            {mode === 'form' ? 'Edit as JSON' : 'Edit as form'}
          </Button>
        </div>
        <CardDescription id={hintId}>
          {mode === 'json'
            ? 'The whole run input as one JSON object, sent as it is.'
            : names.length
              ? 'One field for each input the steps read. A value that reads as JSON is sent as that value: 42 as a number, true or false as yes/no, {"a": 1} as an object, [1, 2] as a list. Anything else is sent as text; put it in double quotes ("42") to send a number as text. Empty fields are left out.'
              : 'This workflow’s steps read no run input: start it as it is, or give an input as JSON.'}
          {whole && mode === 'form' ? ' A step reads the whole input: add anything else with Edit as JSON.' : null}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form
          className="grid min-w-0 gap-4"
          data-testid="start-run-form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          {modeError ? <Alert variant="error">{modeError}</Alert> : null}
          {mode === 'form' ? (
            names.length ? (
              <div className="grid min-w-0 gap-4 sm:grid-cols-2">
                {names.map((name) => (
                  <InputField
                    key={name}
                    name={name}
                    hintId={hintId}
                    value={values[name] ?? ''}
                    onChange={(v) => setValues((old) => ({ ...old, [name]: v }))}
                  />
                ))}
              </div>
            ) : null
          ) : (
            <div className="grid gap-2">
              <Label htmlFor={`${id}-raw`}>
                Input (JSON object, available to steps as <code>{'{{input.*}}'}</code>)
              </Label>
              <textarea
                id={`${id}-raw`}
                value={raw}
                onChange={(e) => setRaw(e.target.value)}
                rows={6}
                spellCheck={false}
                aria-invalid={now.error ? true : undefined}
                aria-describedby={now.error ? `${id}-raw-error` : hintId}
                className="w-full min-w-0 rounded-md border border-slate-400 bg-white p-2 font-mono text-xs text-slate-900 focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none aria-invalid:border-red-600 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
              />
              {now.error ? (
                <p id={`${id}-raw-error`} className="text-sm font-medium text-red-700 dark:text-red-400">
                  {now.error}
                </p>
              ) : null}
            </div>
          )}
          <FormField
            label="Idempotency key (optional)"
            description="Starting again with the same key gives back the run the key started the first time, instead of a second run. Use it when a start may be sent twice."
            value={key}
            onChange={(e) => setKey(e.target.value)}
            maxLength={255}
            autoComplete="off"
          />
          {failure !== undefined ? (
            <Alert variant="error" title="The run was not started">
              {issue ? (
                <p className="[overflow-wrap:anywhere]">
                  <code className="font-mono text-xs">{issue.path}</code> {issue.message}
                </p>
              ) : (
                <p className="[overflow-wrap:anywhere]">{errorMessage(failure)}</p>
              )}
            </Alert>
          ) : null}
          <div className="flex flex-wrap items-center gap-3">
            <Button
              type="submit"
              loading={start.isPending}
              disabled={!now.input || denied || access.allowed === undefined}
              aria-describedby={denied ? deniedId : undefined}
            >
              <Play aria-hidden="true" className="size-4" />
              Start run
            </Button>
            <span className="text-xs text-slate-600 dark:text-slate-400">
              Every attempt of a step counts as one execution against your plan.
            </span>
          </div>
          {denied ? <DeniedNote id={deniedId} reason={access.reason} /> : null}
        </form>
      </CardContent>
    </Card>
  );
}

function InputField({ name, value, onChange, hintId }: { name: string; value: string; onChange: (v: string) => void; hintId: string }) {
  const id = useId();
  return (
    <div className="grid min-w-0 gap-2">
      <Label htmlFor={id} className="font-mono [overflow-wrap:anywhere]">
        {name}
      </Label>
      <Input id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={hintId} autoComplete="off" />
    </div>
  );
}
