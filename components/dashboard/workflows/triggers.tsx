'use client';

import { CalendarClock, Gauge, Radio } from 'lucide-react';
import type { ReactNode } from 'react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatDateTime } from '@/components/dashboard/format';
import { CollapsibleJson } from '@/components/dashboard/modules/json-block';
import type { WorkflowView } from './status';
import { cronWords, formatFromNow } from './words';

/**
 * What starts the workflow's runs besides calls: its schedule (the cron in words, its time zone,
 * the next run), its event trigger (the event and the condition) and its pacing (flow control).
 * All are part of the definition and change with Edit.
 */
export function Triggers({ workflow: w, now }: { workflow: WorkflowView; now: number }) {
  const words = w.schedule ? cronWords(w.schedule.cron) : null;
  const hasInput = (input: Record<string, unknown> | undefined) => input !== undefined && Object.keys(input).length > 0;
  return (
    <Card className="min-w-0" data-testid="workflow-triggers">
      <CardHeader>
        <CardTitle as="h2">What starts a run</CardTitle>
        <CardDescription>
          Runs start when someone calls for one, and also on a schedule or an event when the workflow has them; its pacing limits how many
          start. All are part of the definition: add, change or remove them with Edit.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid min-w-0 gap-4 md:grid-cols-2 xl:grid-cols-3">
        <Trigger icon={<CalendarClock aria-hidden="true" className="size-5" />} title="Schedule" testId="workflow-schedule">
          {w.schedule ? (
            <>
              <p className="font-medium [overflow-wrap:anywhere]">{words ?? 'On a cron schedule'}</p>
              <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
                <dt className="text-slate-600 dark:text-slate-400">Cron</dt>
                <dd className="font-mono [overflow-wrap:anywhere]">{w.schedule.cron}</dd>
                <dt className="text-slate-600 dark:text-slate-400">Time zone</dt>
                <dd className="[overflow-wrap:anywhere]">{w.schedule.timezone}</dd>
                <dt className="text-slate-600 dark:text-slate-400">Next run</dt>
                <dd data-testid="workflow-next-run">
                  {w.next_run_at ? (
                    <>
                      {formatFromNow(w.next_run_at, now)}{' '}
                      <span className="text-slate-600 dark:text-slate-400">({formatDateTime(w.next_run_at)})</span>
                    </>
                  ) : (
                    'Not planned'
                  )}
                </dd>
              </dl>
              {hasInput(w.schedule.input) ? <CollapsibleJson title="Input of scheduled runs" value={w.schedule.input} /> : null}
            </>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">No schedule.</p>
          )}
        </Trigger>
        <Trigger icon={<Radio aria-hidden="true" className="size-5" />} title="On an event" testId="workflow-on-event">
          {w.on ? (
            <>
              <p className="font-medium [overflow-wrap:anywhere]">
                Every <span className="font-mono">{w.on.event}</span> event
                {w.on.filter ? ' that matches this condition starts a run:' : ' starts a run.'}
              </p>
              {w.on.filter ? (
                <code className="block rounded bg-slate-100 px-2 py-1 font-mono text-xs [overflow-wrap:anywhere] whitespace-pre-wrap dark:bg-slate-800">
                  {w.on.filter}
                </code>
              ) : null}
              {hasInput(w.on.input) ? <CollapsibleJson title="Input of event runs" value={w.on.input} /> : null}
            </>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">No event starts it.</p>
          )}
        </Trigger>
        <Trigger icon={<Gauge aria-hidden="true" className="size-5" />} title="Pacing" testId="workflow-flow">
          <FlowWords workflow={w} />
        </Trigger>
      </CardContent>
    </Card>
  );
}

/** The workflow's flow control in sentences: how many runs at once, per period, debounced, and its priority. */
function FlowWords({ workflow: w }: { workflow: WorkflowView }) {
  const per = (key: string | undefined) =>
    key ? (
      <>
        {' '}
        for each value of <span className="font-mono [overflow-wrap:anywhere]">{key}</span>
      </>
    ) : null;
  const lines: ReactNode[] = [];
  if (w.concurrency)
    lines.push(
      <>
        At most {w.concurrency.limit} {w.concurrency.limit === 1 ? 'run' : 'runs'} in progress at once{per(w.concurrency.key)}; later ones
        wait their turn.
      </>,
    );
  if (w.throttle)
    lines.push(
      <>
        At most {w.throttle.limit} {w.throttle.limit === 1 ? 'run starts' : 'runs start'} per {w.throttle.period}
        {per(w.throttle.key)}.
      </>,
    );
  if (w.debounce)
    lines.push(
      <>
        Starts within {w.debounce.period} of each other{per(w.debounce.key)} become one run, with the last input.
      </>,
    );
  if (w.priority !== 0)
    lines.push(
      <>
        Priority {w.priority}: its steps go {w.priority > 0 ? 'before' : 'after'} those of other workflows.
      </>,
    );
  if (lines.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">Every run starts at once.</p>;
  return (
    <ul className="grid list-disc gap-1 pl-5 text-sm">
      {lines.map((line, i) => (
        <li key={i}>{line}</li>
      ))}
    </ul>
  );
}

function Trigger({ icon, title, testId, children }: { icon: ReactNode; title: string; testId: string; children: ReactNode }) {
  return (
    <section
      aria-label={title}
      className="grid min-w-0 content-start gap-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
      data-testid={testId}
    >
      <h3 className="flex items-center gap-2 text-sm font-semibold">
        {icon}
        {title}
      </h3>
      {children}
    </section>
  );
}
