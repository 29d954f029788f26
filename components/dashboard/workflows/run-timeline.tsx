'use client';

import { Hourglass, Moon, Radio, UserCheck, Zap, type LucideIcon } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { Badge } from '@/components/ui/badge';
import { cn } from '@/components/ui/cn';
import { formatDateTime } from '@/components/dashboard/format';
import { CollapsibleJson } from '@/components/dashboard/modules/json-block';
import { ApprovalPanel, DecisionNote } from './approval-panel';
import { StepStatusBadge } from './status';
import { errorWords, formatWhen, stepDuration, stepSentence, waitingLabel, type RunStep } from './words';

const KIND_ICONS: Record<RunStep['kind'], { icon: LucideIcon; label: string }> = {
  action: { icon: Zap, label: 'Action' },
  sleep: { icon: Moon, label: 'Sleep' },
  wait_for_event: { icon: Radio, label: 'Wait for an event' },
  approval: { icon: UserCheck, label: 'Approval' },
};

/**
 * What a waiting step looks like, by what it waits for: the colour of its marker, its card and
 * its label ("Sleeping", "Waiting for an event", "Waiting for approval"), always with words.
 */
const WAIT_STYLES: Record<RunStep['kind'], { marker: string; card: string; badge: string }> = {
  sleep: {
    marker: 'border-violet-400 bg-violet-50 text-violet-800 dark:border-violet-700 dark:bg-violet-950 dark:text-violet-200',
    card: 'border-violet-300 bg-violet-50/60 dark:border-violet-800 dark:bg-violet-950/30',
    badge: 'border-violet-300 bg-violet-50 text-violet-900 dark:border-violet-800 dark:bg-violet-950 dark:text-violet-200',
  },
  wait_for_event: {
    marker: 'border-sky-400 bg-sky-50 text-sky-800 dark:border-sky-700 dark:bg-sky-950 dark:text-sky-200',
    card: 'border-sky-300 bg-sky-50/60 dark:border-sky-800 dark:bg-sky-950/30',
    badge: 'border-sky-300 bg-sky-50 text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-200',
  },
  approval: {
    marker: 'border-amber-400 bg-amber-50 text-amber-800 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200',
    card: 'border-amber-300 bg-white dark:border-amber-800 dark:bg-slate-900',
    badge: 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200',
  },
  action: {
    marker: 'border-slate-300 bg-white text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300',
    card: '',
    badge: '',
  },
};

const MARKERS: Record<RunStep['status'], string> = {
  pending: 'border-slate-300 bg-white text-slate-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-400',
  running: 'border-indigo-400 bg-indigo-50 text-indigo-800 dark:border-indigo-700 dark:bg-indigo-950 dark:text-indigo-200',
  waiting: '',
  succeeded: 'border-emerald-400 bg-emerald-50 text-emerald-800 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-200',
  failed: 'border-red-400 bg-red-50 text-red-800 dark:border-red-700 dark:bg-red-950 dark:text-red-200',
  skipped: 'border-slate-300 bg-slate-100 text-slate-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-400',
  cancelled: 'border-amber-300 bg-amber-50 text-amber-800 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200',
};

/** The run's steps as a vertical timeline, in the definition's order: what each does, its state, timing and result. */
export function RunTimeline({
  workflowId,
  runId,
  steps,
  decideAccess,
  now,
}: {
  workflowId: string;
  runId: string;
  steps: RunStep[];
  decideAccess: { allowed: boolean | undefined; reason: string };
  now: number;
}) {
  return (
    <ol className="grid min-w-0" aria-label="Steps, in order">
      {steps.map((step, i) => (
        <TimelineEntry
          key={step.id}
          step={step}
          last={i === steps.length - 1}
          workflowId={workflowId}
          runId={runId}
          decideAccess={decideAccess}
          now={now}
        />
      ))}
    </ol>
  );
}

function TimelineEntry({
  step,
  last,
  workflowId,
  runId,
  decideAccess,
  now,
}: {
  step: RunStep;
  last: boolean;
  workflowId: string;
  runId: string;
  decideAccess: { allowed: boolean | undefined; reason: string };
  now: number;
}) {
  const waiting = step.status === 'waiting';
  const { icon: Icon, label } = KIND_ICONS[step.kind];
  const waitStyle = WAIT_STYLES[step.kind];
  const duration = stepDuration(step, now);
  const approvalWaiting = waiting && step.wait?.kind === 'approval' ? step.wait : null;
  return (
    <li id={`step-${step.id}`} className="relative flex min-w-0 scroll-mt-20 gap-3 pb-4 last:pb-0 sm:gap-4" data-testid={`step-${step.id}`}>
      {last ? null : <span aria-hidden="true" className="absolute top-10 bottom-0 left-[1.1875rem] w-px bg-slate-300 dark:bg-slate-700" />}
      <span
        className={cn(
          'relative z-10 flex size-10 shrink-0 items-center justify-center rounded-full border-2',
          waiting ? waitStyle.marker : MARKERS[step.status],
        )}
      >
        <Icon aria-hidden="true" className="size-5" />
        <span className="sr-only">{label}</span>
      </span>
      <div
        className={cn(
          'grid min-w-0 flex-1 gap-2 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900',
          waiting && waitStyle.card,
          step.status === 'skipped' && 'opacity-80',
        )}
      >
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <span className="font-mono text-sm font-semibold [overflow-wrap:anywhere]">{step.id}</span>
          {waiting ? (
            <Badge className={waitStyle.badge} data-testid="step-state">
              <Hourglass aria-hidden="true" className="size-3" />
              {waitingLabel(step)}
            </Badge>
          ) : (
            <span data-testid="step-state">
              <StepStatusBadge status={step.status} />
            </span>
          )}
        </div>
        <p className="text-sm [overflow-wrap:anywhere] text-slate-800 dark:text-slate-200" data-testid="step-does">
          {approvalWaiting ? 'Waits for a person to approve or reject:' : stepSentence(step, now)}
        </p>
        {step.wait?.kind === 'event' && step.wait.match ? (
          <p className="grid gap-1 text-xs text-slate-700 dark:text-slate-300">
            <span>Condition:</span>
            <code className="block rounded bg-slate-100 px-2 py-1 font-mono [overflow-wrap:anywhere] whitespace-pre-wrap dark:bg-slate-800">
              {step.wait.match}
            </code>
          </p>
        ) : null}
        {approvalWaiting ? (
          <ApprovalPanel workflowId={workflowId} runId={runId} step={step.id} wait={approvalWaiting} access={decideAccess} now={now} />
        ) : null}
        {step.decision ? <DecisionNote decision={step.decision} now={now} /> : null}
        <Timing step={step} duration={duration} now={now} />
        {step.error && !(step.decision && step.error.code === 'rejected') ? (
          <div className="rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/60 dark:text-red-100">
            <p className="font-semibold">{errorWords(step.error.code)}</p>
            <p className="[overflow-wrap:anywhere]">{step.error.message}</p>
          </div>
        ) : null}
        {step.execution_ids.length ? (
          <p className="flex min-w-0 flex-wrap gap-x-2 gap-y-1 text-xs">
            <span>{step.execution_ids.length === 1 ? 'Execution:' : 'Executions, one per attempt:'}</span>
            {step.execution_ids.map((id) => (
              <Link
                key={id}
                className="font-mono [overflow-wrap:anywhere] text-indigo-700 hover:underline dark:text-indigo-300"
                href={`/dashboard/executions/${encodeURIComponent(id)}`}
              >
                {id}
              </Link>
            ))}
          </p>
        ) : null}
        {step.kind === 'action' && step.input !== null && step.input !== undefined ? (
          <CollapsibleJson title={`Input of ${step.id} (as sent)`} value={step.input} />
        ) : null}
        {step.status === 'succeeded' && step.output !== null && step.output !== undefined ? (
          <CollapsibleJson title={`Output of ${step.id}`} value={step.output} />
        ) : null}
      </div>
    </li>
  );
}

/** Started, finished, how long, attempts: one line that wraps on a phone. */
function Timing({ step, duration, now }: { step: RunStep; duration: string | null; now: number }) {
  const parts: { key: string; text: string; title?: string }[] = [];
  if (step.started_at)
    parts.push({ key: 'start', text: `Started ${formatWhen(step.started_at, now)}`, title: formatDateTime(step.started_at) });
  if (step.finished_at)
    parts.push({ key: 'end', text: `Finished ${formatWhen(step.finished_at, now)}`, title: formatDateTime(step.finished_at) });
  if (duration) parts.push({ key: 'took', text: step.finished_at ? `took ${duration}` : duration });
  if (step.kind === 'action' && step.attempts > 0)
    parts.push({ key: 'attempts', text: `${step.attempts} ${step.attempts === 1 ? 'attempt' : 'attempts'}` });
  if (!parts.length)
    parts.push({
      key: 'none',
      text: step.status === 'pending' ? 'Not started yet' : step.status === 'skipped' ? 'Did not run' : 'Not started',
    });
  return (
    <p className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-600 dark:text-slate-400" data-testid="step-timing">
      {parts.map((p) => (
        <span key={p.key} title={p.title}>
          {p.text}
        </span>
      ))}
    </p>
  );
}
