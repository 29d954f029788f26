'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { Play } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useEffect, useId, useMemo, useState } from 'react';
import { isTrpcError } from '@/client/trpc/client';
import { DeniedNote, useAccess, useCaller } from '@/components/dashboard/access';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Copyable } from '@/components/ui/copyable';
import { ForDevelopers } from '@/components/ui/for-developers';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { CollapsibleJson, JsonBlock } from './json-block';
import { fieldOfIssue, formFields, inputFromValues, valuesFromInput, type FormFieldSpec, type FormValues } from './schema-form';
import type { RouterOutputs } from '@/client/trpc/types';
import type { ActionItem, ModuleItem } from './types';

type ExecuteResult = RouterOutputs['modules']['execute'];
interface Issue {
  path: string;
  message: string;
}
/** The API's error body (the REST error format) carried by a tRPC error. */
interface AppErrorBody {
  error?: string;
  message?: string;
  issues?: Issue[];
  execution?: { id?: string; execution_id?: string; latency_ms?: number | null };
}

function appBody(err: unknown): AppErrorBody {
  if (!isTrpcError(err)) return {};
  return ((err.data as { app?: AppErrorBody } | undefined)?.app ?? {}) as AppErrorBody;
}

const controlClass =
  'w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none aria-invalid:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

/** The playground page: the module's action, run from a form or raw JSON. */
export function PlaygroundView({ module, action }: { module: string; action: string }) {
  const trpc = useTRPC();
  const mod = useQuery(trpc.modules.get.queryOptions({ module }));
  // Asked here, with the module: one round. Without modules:execute (a viewer) Run is off, with the reason.
  useCaller();
  const crumbs = (
    <nav aria-label="Breadcrumb" className="text-sm">
      <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href="/dashboard/modules">
        Modules
      </Link>{' '}
      /{' '}
      <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={`/dashboard/modules/${encodeURIComponent(module)}`}>
        {module}
      </Link>{' '}
      / <span aria-current="page">{action}</span>
    </nav>
  );
  if (mod.isPending) {
    return (
      <div className="grid gap-6">
        {crumbs}
        <PageHeader title={`${module}.${action}`} description="Loading the action…" />
        <SkeletonRows rows={5} label="Loading the action" />
      </div>
    );
  }
  if (mod.isError) {
    return (
      <div className="grid gap-6">
        {crumbs}
        <PageHeader title={`${module}.${action}`} />
        <QueryError error={mod.error} retry={() => void mod.refetch()} />
      </div>
    );
  }
  const found = mod.data.actions.find((a) => a.name === action);
  return (
    <div className="grid gap-6">
      {crumbs}
      {found ? (
        <>
          <PageHeader title={`${mod.data.name}.${found.name}`} description={found.description} />
          <Playground module={mod.data} action={found} />
        </>
      ) : (
        <>
          <PageHeader title={`${module}.${action}`} />
          <Alert variant="error" title="No such action">
            The module {module} has no action named “{action}”. Its actions: {mod.data.actions.map((a) => a.name).join(', ')}.
          </Alert>
        </>
      )}
    </div>
  );
}

/** The form (or raw JSON), the run with its result, and the same call as curl, MCP and TypeScript. */
export function Playground({ module, action }: { module: ModuleItem; action: ActionItem }) {
  const trpc = useTRPC();
  const execute = useAccess('runModules');
  const fields = useMemo(() => formFields(action.input_schema), [action.input_schema]);
  const example = (action.examples[0]?.input ?? {}) as Record<string, unknown>;
  const exampleValues = fields ? valuesFromInput(fields, example) : null;
  const [mode, setMode] = useState<'form' | 'json'>(fields && exampleValues ? 'form' : 'json');
  const [values, setValues] = useState<FormValues>(exampleValues ?? {});
  const [raw, setRaw] = useState(JSON.stringify(example, null, 2));
  const [modeError, setModeError] = useState<string>();
  const [result, setResult] = useState<ExecuteResult>();
  const [failure, setFailure] = useState<unknown>();
  const run = useMutation(
    trpc.modules.execute.mutationOptions({
      onMutate: () => {
        setResult(undefined);
        setFailure(undefined);
      },
      onSuccess: setResult,
      onError: setFailure,
    }),
  );

  const current = (): { input?: Record<string, unknown>; error?: string } => {
    if (mode === 'form' && fields) return { input: inputFromValues(fields, values) };
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return { error: 'The input must be a JSON object, e.g. {"text": "Hello"}.' };
      return { input: parsed as Record<string, unknown> };
    } catch (err) {
      return { error: `The input is not valid JSON: ${(err as Error).message}` };
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
    if (!fields) return;
    if (!now.input) {
      setModeError(now.error);
      return;
    }
    const next = valuesFromInput(fields, now.input);
    if (!next) {
      setModeError('This JSON has values the form cannot show (unknown properties or values of another type): keep editing it as JSON.');
      return;
    }
    setValues(next);
    setMode('form');
  };

  const issues = appBody(failure).issues ?? [];
  const issuesByField = new Map<string, string[]>();
  for (const issue of issues)
    issuesByField.set(fieldOfIssue(issue.path), [...(issuesByField.get(fieldOfIssue(issue.path)) ?? []), issue.message]);

  return (
    <div className="grid gap-6 xl:grid-cols-2">
      <Card>
        <CardHeader>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <CardTitle>Input</CardTitle>
            {fields ? (
              <Button type="button" variant="secondary" size="sm" onClick={switchMode} aria-pressed={mode === 'json'}>
                {mode === 'form' ? 'Edit as JSON' : 'Edit as form'}
              </Button>
            ) : null}
          </div>
          <CardDescription>
            {fields
              ? mode === 'form'
                ? 'Built from the action’s input schema; empty optional fields are left out (their defaults apply).'
                : 'The raw input object, sent as it is.'
              : 'This action’s input has nested or combined schemas: edit it as JSON.'}{' '}
            {action.examples.length ? 'Prefilled from the first example.' : ''}
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form
            className="grid gap-4"
            onSubmit={(e) => {
              e.preventDefault();
              if (now.input) run.mutate({ module: module.name, action: action.name, input: now.input });
            }}
          >
            {modeError ? <Alert variant="error">{modeError}</Alert> : null}
            {mode === 'form' && fields ? (
              fields.map((f) => (
                <SchemaField
                  key={f.name}
                  field={f}
                  value={values[f.name] ?? ''}
                  onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
                  errors={issuesByField.get(f.name)}
                />
              ))
            ) : (
              <RawEditor value={raw} onChange={setRaw} error={now.error} />
            )}
            <CollapsibleJson title="Input schema" value={action.input_schema} />
            <div className="flex flex-wrap items-center gap-3">
              <Button
                type="submit"
                loading={run.isPending}
                disabled={!now.input || execute.allowed === false}
                aria-describedby={execute.allowed === false ? 'playground-run-denied' : undefined}
              >
                <Play aria-hidden="true" className="size-4" />
                Run {action.name}
              </Button>
              {execute.allowed === false ? (
                <DeniedNote id="playground-run-denied" reason={execute.reason} />
              ) : (
                <span className="text-xs text-slate-600 dark:text-slate-400">Counts one execution against your plan.</span>
              )}
            </div>
          </form>
        </CardContent>
      </Card>

      <div className="grid content-start gap-6">
        <ResultCard result={result} failure={failure} issues={issues} running={run.isPending} />
        <Snippets module={module.name} action={action.name} input={now.input ?? {}} />
      </div>
    </div>
  );
}

function SchemaField({
  field: f,
  value,
  onChange,
  errors,
}: {
  field: FormFieldSpec;
  value: string;
  onChange: (v: string) => void;
  errors?: string[];
}) {
  const id = useId();
  const help = [
    f.description,
    f.defaultValue !== undefined ? `Default: ${JSON.stringify(f.defaultValue)}.` : undefined,
    f.kind === 'list' ? 'One item per line.' : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const describedBy = [help ? `${id}-help` : undefined, errors?.length ? `${id}-error` : undefined].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    'aria-invalid': errors?.length ? true : undefined,
    'aria-describedby': describedBy,
    'aria-required': f.required || undefined,
  };
  let control;
  if (f.kind === 'boolean' || f.kind === 'enum') {
    const options = f.kind === 'boolean' ? [true, false] : (f.options ?? []);
    control = (
      <select {...common} className={`${controlClass} h-10`} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{f.required ? 'Choose…' : 'Not set'}</option>
        {options.map((o) => (
          <option key={JSON.stringify(o)} value={f.kind === 'boolean' ? String(o) : JSON.stringify(o)}>
            {typeof o === 'string' ? o : JSON.stringify(o)}
          </option>
        ))}
      </select>
    );
  } else if (f.kind === 'number') {
    control = (
      <Input
        {...common}
        type="number"
        step={f.itemType === 'integer' ? 1 : 'any'}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else if (f.kind === 'list' || f.multiline) {
    control = (
      <textarea
        {...common}
        rows={f.kind === 'list' ? 4 : 3}
        className={controlClass}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else {
    control = <Input {...common} value={value} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div className="grid gap-2">
      <Label htmlFor={id} className="font-mono">
        {f.name}
        {f.required ? (
          <span className="ml-1 font-sans text-red-700 dark:text-red-400" aria-hidden="true">
            *
          </span>
        ) : null}{' '}
        <span className="ml-2 font-sans text-xs font-normal text-slate-600 dark:text-slate-400">
          {f.kind === 'list' ? `${f.itemType}[]` : f.kind === 'enum' ? 'one of' : f.itemType}
          {f.required ? ', required' : ''}
        </span>
      </Label>
      {control}
      {help ? (
        <p id={`${id}-help`} className="text-xs text-slate-600 dark:text-slate-400">
          {help}
        </p>
      ) : null}
      {errors?.length ? (
        <p id={`${id}-error`} className="text-sm font-medium text-red-700 dark:text-red-400" data-testid={`field-error-${f.name}`}>
          {errors.join('; ')}
        </p>
      ) : null}
    </div>
  );
}

function RawEditor({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string }) {
  const id = useId();
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>Input (JSON)</Label>
      <textarea
        id={id}
        rows={12}
        spellCheck={false}
        className={`${controlClass} font-mono text-xs`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error ? (
        <p id={`${id}-error`} className="text-sm font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function ResultCard({
  result,
  failure,
  issues,
  running,
}: {
  result?: ExecuteResult;
  failure?: unknown;
  issues: Issue[];
  running: boolean;
}) {
  const execution = appBody(failure).execution;
  const failedId = execution?.execution_id ?? execution?.id;
  return (
    <Card aria-busy={running}>
      <CardHeader>
        <CardTitle>Result</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-3" aria-live="polite">
        {running ? <SkeletonRows rows={3} label="Running" /> : null}
        {!running && !result && !failure ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Run the action to see its output, latency and execution id here.</p>
        ) : null}
        {result ? (
          <>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="playground-result">
              <dt className="text-slate-600 dark:text-slate-400">Status</dt>
              <dd>
                <Badge tone="success">{result.status}</Badge>
              </dd>
              <dt className="text-slate-600 dark:text-slate-400">Latency</dt>
              <dd data-testid="playground-latency">{result.latency_ms} ms</dd>
              <dt className="text-slate-600 dark:text-slate-400">Execution</dt>
              <dd className="min-w-0 break-all">
                <Link
                  className="font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300"
                  href={`/dashboard/executions/${encodeURIComponent(result.execution_id)}`}
                  data-testid="playground-execution-id"
                >
                  {result.execution_id}
                </Link>
              </dd>
            </dl>
            <JsonBlock value={result.output} label="Output" testId="playground-output" />
          </>
        ) : null}
        {failure ? (
          <Alert variant="error" title={appBody(failure).error ? `Failed: ${appBody(failure).error}` : 'Failed'}>
            <p data-testid="playground-error">{errorMessage(failure)}</p>
            {issues.length ? (
              <ul className="mt-2 list-disc pl-5" data-testid="playground-issues">
                {issues.map((i, n) => (
                  <li key={n}>
                    <span className="font-mono">{i.path || '(input)'}</span>: {i.message}
                  </li>
                ))}
              </ul>
            ) : null}
            {failedId ? (
              <p className="mt-2">
                Recorded as execution{' '}
                <Link className="font-mono text-xs underline" href={`/dashboard/executions/${encodeURIComponent(failedId)}`}>
                  {failedId}
                </Link>
                {typeof execution?.latency_ms === 'number' ? ` (${execution.latency_ms} ms)` : ''}.
              </p>
            ) : null}
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** The same call outside the dashboard: REST with curl, the MCP tool call, TypeScript fetch. */
function Snippets({ module, action, input }: { module: string; action: string; input: Record<string, unknown> }) {
  const [origin, setOrigin] = useState('https://your-service');
  useEffect(() => setOrigin(window.location.origin), []);
  const body = JSON.stringify({ action, input });
  const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const curl = [
    `curl -X POST ${origin}/api/v1/modules/${module}/execute \\`,
    `  -H "x-api-key: $AMP_API_KEY" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
  const rpc = JSON.stringify(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: `${module}__${action}`, arguments: input } },
    null,
    2,
  );
  const mcp = [
    `# MCP endpoint: ${origin}/api/mcp (Streamable HTTP); tool ${module}__${action}`,
    `curl -X POST ${origin}/api/mcp \\`,
    `  -H "x-api-key: $AMP_API_KEY" \\`,
    `  -H "content-type: application/json" \\`,
    `  -H "accept: application/json, text/event-stream" \\`,
    `  -d ${shellQuote(JSON.stringify(JSON.parse(rpc)))}`,
  ].join('\n');
  const ts = [
    `const res = await fetch('${origin}/api/v1/modules/${module}/execute', {`,
    `  method: 'POST',`,
    `  headers: { 'x-api-key': process.env.AMP_API_KEY!, 'content-type': 'application/json' },`,
    `  body: JSON.stringify(${JSON.stringify({ action, input }, null, 2).replace(/\n/g, '\n  ')}),`,
    `});`,
    `const result = await res.json(); // { execution_id, output, latency_ms, ... } or { error, message, issues }`,
  ].join('\n');
  return (
    <Card>
      <CardHeader>
        <CardTitle>Call it from your code</CardTitle>
        <CardDescription>The same call with the current input, for your agent or script.</CardDescription>
      </CardHeader>
      <CardContent>
        <ForDevelopers summary="Show the code">
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Set <code className="font-mono">AMP_API_KEY</code> to a key with the modules:execute scope.
          </p>
          <Tabs defaultValue="curl">
            <TabsList aria-label="Snippet language">
              <TabsTrigger value="curl">curl</TabsTrigger>
              <TabsTrigger value="mcp">MCP</TabsTrigger>
              <TabsTrigger value="ts">TypeScript</TabsTrigger>
            </TabsList>
            <TabsContent value="curl">
              <Copyable value={curl} label="curl command" testId="snippet-curl" />
            </TabsContent>
            <TabsContent value="mcp" className="grid gap-3">
              <Copyable value={mcp} label="MCP call" testId="snippet-mcp" />
              <p className="text-xs text-slate-600 dark:text-slate-400">The JSON-RPC body an MCP client sends:</p>
              <Copyable value={rpc} label="MCP JSON-RPC body" testId="snippet-mcp-body" />
            </TabsContent>
            <TabsContent value="ts">
              <Copyable value={ts} label="TypeScript snippet" testId="snippet-ts" />
            </TabsContent>
          </Tabs>
        </ForDevelopers>
      </CardContent>
    </Card>
  );
}
