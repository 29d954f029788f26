'use client';

import { useQuery } from '@tanstack/react-query';
import { Save } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useId, useMemo, useRef, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DeniedNote } from '@/components/dashboard/access';
import { apiIssues, errorMessage } from '@/components/dashboard/query-error';
import { checkDefinition, definitionChecker, jsonLines, lineOf, type DefinitionProblem, type JsonObject } from './definition';
import { templateText, WORKFLOW_TEMPLATES, type WorkflowTemplate } from './templates';

/** Where the API serves the JSON Schema of a workflow definition. */
const DEFINITION_SCHEMA_URL = '/api/schemas/workflow-definition.json';

/** Pixels per editor line (the gutter and the text area share `leading-5`). */
const LINE_HEIGHT = 20;

/**
 * The definition's JSON Schema, as the API serves it (fetched once per page view, only where the
 * editor is): what the API accepts today, step kinds included.
 */
function useDefinitionChecker() {
  const schema = useQuery({
    queryKey: ['workflow-definition-schema'],
    queryFn: async () => {
      const res = await fetch(DEFINITION_SCHEMA_URL, { headers: { accept: 'application/schema+json, application/json' } });
      if (!res.ok) throw new Error(`The definition's schema could not be loaded (${res.status}).`);
      return (await res.json()) as JsonObject;
    },
    staleTime: Infinity,
    retry: 1,
  });
  const checker = useMemo(() => {
    if (!schema.data) return undefined;
    try {
      return definitionChecker(schema.data);
    } catch {
      return undefined;
    }
  }, [schema.data]);
  return { checker, pending: schema.isPending, unavailable: schema.isError || (schema.isSuccess && !checker) };
}

export interface DefinitionEditorProps {
  /** The text the editor starts with. */
  initialText: string;
  /** Offer the starting templates (a new workflow), this one chosen. */
  template?: WorkflowTemplate;
  saveLabel: string;
  /** Saves the checked definition; a refusal is thrown and shown beside the editor. */
  onSave: (definition: Record<string, unknown>) => Promise<void>;
  cancelHref: string;
  /** Whether the caller may save (undefined while unknown), and why not. */
  access: { allowed: boolean | undefined; reason: string };
}

/**
 * A workflow definition edited as JSON: line numbers, the problems the API's schema finds as
 * you type (each with its line, one click away), and the API's own refusal on save (a step
 * depending on one that does not exist, say) with the place it names.
 */
export function DefinitionEditor({ initialText, template, saveLabel, onSave, cancelHref, access }: DefinitionEditorProps) {
  const { checker, pending, unavailable } = useDefinitionChecker();
  const [text, setText] = useState(initialText);
  const [baseline, setBaseline] = useState(initialText);
  const [chosen, setChosen] = useState(template?.id);
  const [replacing, setReplacing] = useState<WorkflowTemplate>();
  const [refusalProblem, setRefusal] = useState<DefinitionProblem>();
  const [saving, setSaving] = useState(false);
  const areaRef = useRef<HTMLTextAreaElement>(null);
  const gutterRef = useRef<HTMLDivElement>(null);
  const problemsRef = useRef<HTMLParagraphElement>(null);
  const id = useId();
  const hintId = `${id}-hint`;
  const problemsId = `${id}-problems`;
  const deniedId = `${id}-denied`;

  const verdict = useMemo(() => checkDefinition(text, checker), [text, checker]);
  const lineCount = text.split('\n').length;
  const marked = new Set([...verdict.problems, ...(refusalProblem ? [refusalProblem] : [])].flatMap((p) => (p.line ? [p.line] : [])));

  const edit = (next: string) => {
    setText(next);
    setRefusal(undefined);
  };

  const goToLine = (line: number) => {
    const area = areaRef.current;
    if (!area) return;
    const offset = text
      .split('\n')
      .slice(0, line - 1)
      .reduce((sum, l) => sum + l.length + 1, 0);
    area.focus();
    area.setSelectionRange(offset, offset);
    area.scrollTop = Math.max(0, (line - 3) * LINE_HEIGHT);
  };

  const applyTemplate = (t: WorkflowTemplate) => {
    setChosen(t.id);
    setBaseline(templateText(t));
    edit(templateText(t));
  };

  const save = async () => {
    if (!verdict.value || verdict.problems.length) {
      problemsRef.current?.focus();
      return;
    }
    setSaving(true);
    setRefusal(undefined);
    try {
      await onSave(verdict.value as Record<string, unknown>);
    } catch (err) {
      // The API's first issue names the place (`steps.2.depends_on.0`); its line is found in the
      // text that was sent, and the refusal is cleared by the next edit.
      const issue = apiIssues(err)[0];
      setRefusal(issue ? { ...issue, line: lineOf(jsonLines(text), issue.path) } : { path: '', message: errorMessage(err) });
    } finally {
      setSaving(false);
    }
  };

  const format = () => {
    if (verdict.value !== undefined) edit(JSON.stringify(verdict.value, null, 2));
  };

  const denied = access.allowed === false;
  const problemCount = verdict.problems.length;

  return (
    <div className="grid min-w-0 gap-6">
      {template ? (
        <fieldset className="grid min-w-0 gap-3">
          <legend className="mb-3 text-lg font-semibold">Start from</legend>
          <div className="grid gap-3 sm:grid-cols-3">
            {WORKFLOW_TEMPLATES.map((t) => (
              <button
                key={t.id}
                type="button"
                aria-pressed={chosen === t.id}
                onClick={() => (text === baseline ? applyTemplate(t) : setReplacing(t))}
                className={cn(
                  'grid gap-1 rounded-lg border p-3 text-left text-sm transition-colors focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none',
                  chosen === t.id
                    ? 'border-indigo-600 bg-indigo-50 dark:border-indigo-400 dark:bg-indigo-950'
                    : 'border-slate-300 bg-white hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800',
                )}
              >
                <span className="font-medium">{t.title}</span>
                <span className="text-slate-600 dark:text-slate-400">{t.summary}</span>
              </button>
            ))}
          </div>
          <ConfirmDialog
            open={replacing !== undefined}
            onOpenChange={(open) => (open ? undefined : setReplacing(undefined))}
            title="Replace your changes?"
            description={`The definition below will be replaced by the “${replacing?.title ?? ''}” template; your edits are lost.`}
            confirmLabel="Replace"
            onConfirm={async () => {
              if (replacing) applyTemplate(replacing);
              setReplacing(undefined);
            }}
          />
        </fieldset>
      ) : null}

      <Card className="min-w-0">
        <CardHeader>
          <CardTitle>Definition</CardTitle>
          <CardDescription id={hintId}>
            A name, an optional description and the steps, as JSON. Each step runs one action of a module, or, with a <code>kind</code>,
            waits for a time, an event or someone’s approval; <code>depends_on</code> lists the steps that must finish first (steps without
            it start at once, side by side). Text in a step’s <code>input</code> can use <code>{'{{input.title}}'}</code> for what a run is
            started with, or <code>{'{{steps.fetch.output.body}}'}</code> for an earlier step’s result.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid min-w-0 gap-4">
          <div className="grid min-w-0 gap-2">
            <label htmlFor={`${id}-text`} className="text-sm font-medium">
              Definition (JSON)
            </label>
            <div className="flex h-96 min-w-0 overflow-hidden rounded-md border border-slate-400 bg-white focus-within:border-indigo-600 focus-within:ring-2 focus-within:ring-indigo-500/60 sm:h-[32rem] dark:border-slate-600 dark:bg-slate-950">
              <div
                ref={gutterRef}
                aria-hidden="true"
                data-testid="editor-gutter"
                className="shrink-0 overflow-hidden border-r border-slate-200 bg-slate-50 py-2 font-mono text-xs leading-5 text-slate-500 select-none dark:border-slate-800 dark:bg-slate-900 dark:text-slate-400"
              >
                {Array.from({ length: lineCount }, (_, n) => (
                  <div
                    key={n}
                    className={cn(
                      'px-2 text-right tabular-nums',
                      marked.has(n + 1) && 'bg-red-100 font-bold text-red-800 dark:bg-red-950 dark:text-red-200',
                    )}
                  >
                    {n + 1}
                  </div>
                ))}
              </div>
              <textarea
                ref={areaRef}
                id={`${id}-text`}
                value={text}
                onChange={(e) => edit(e.target.value)}
                onScroll={(e) => {
                  if (gutterRef.current) gutterRef.current.scrollTop = e.currentTarget.scrollTop;
                }}
                wrap="off"
                spellCheck={false}
                autoCapitalize="off"
                autoCorrect="off"
                aria-invalid={problemCount || refusalProblem ? true : undefined}
                aria-describedby={`${hintId} ${problemsId}`}
                className="min-w-0 flex-1 resize-none overflow-auto bg-transparent px-3 py-2 font-mono text-xs leading-5 whitespace-pre text-slate-900 focus:outline-none dark:text-slate-100"
              />
            </div>
          </div>

          <div className="grid min-w-0 gap-2">
            <p
              id={problemsId}
              ref={problemsRef}
              tabIndex={-1}
              aria-live="polite"
              data-testid="definition-status"
              className={cn(
                'text-sm font-medium focus:outline-none',
                problemCount ? 'text-red-700 dark:text-red-400' : 'text-slate-700 dark:text-slate-300',
              )}
            >
              {problemCount
                ? `${problemCount === 1 ? 'One problem' : `${problemCount} problems`} to fix before saving:`
                : pending
                  ? 'Loading the rules a definition must follow…'
                  : unavailable
                    ? 'Valid JSON. The rules could not be loaded here, so the service checks the definition when you save.'
                    : refusalProblem
                      ? 'The definition has the right shape; the service refused it for the reason below.'
                      : 'No problems found.'}
            </p>
            {problemCount ? (
              <ul className="grid gap-1" data-testid="definition-problems">
                {verdict.problems.map((p, n) => (
                  <li key={n}>
                    <ProblemLine problem={p} goToLine={goToLine} />
                  </li>
                ))}
              </ul>
            ) : null}
          </div>

          {refusalProblem ? (
            <Alert variant="error" title="Not saved: the service refused this definition" data-testid="definition-refusal">
              <ProblemLine problem={refusalProblem} goToLine={goToLine} />
            </Alert>
          ) : null}

          <div className="flex flex-wrap items-center gap-3">
            <Button
              onClick={() => void save()}
              loading={saving}
              disabled={denied || access.allowed === undefined}
              aria-describedby={denied ? deniedId : undefined}
            >
              <Save aria-hidden="true" className="size-4" />
              {saveLabel}
            </Button>
            <Button variant="secondary" onClick={format} disabled={verdict.value === undefined}>
              Tidy up
            </Button>
            <Button variant="ghost" asChild>
              <Link href={cancelHref}>Cancel</Link>
            </Button>
          </div>
          {denied ? <DeniedNote id={deniedId} reason={access.reason} /> : null}
        </CardContent>
      </Card>
    </div>
  );
}

/** One problem: its line (a button that puts the cursor there), the place in the definition and the message. */
function ProblemLine({ problem, goToLine }: { problem: DefinitionProblem; goToLine: (line: number) => void }) {
  return (
    <span className="flex min-w-0 flex-wrap items-baseline gap-x-2 text-sm [overflow-wrap:anywhere]">
      {problem.line ? (
        <button
          type="button"
          onClick={() => goToLine(problem.line!)}
          className="shrink-0 font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300"
        >
          Line {problem.line}
        </button>
      ) : null}
      {problem.path ? <code className="font-mono text-xs">{problem.path}</code> : null}
      <span>{problem.message}</span>
    </span>
  );
}
