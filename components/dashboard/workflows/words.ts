/**
 * Workflow runs and triggers said in words for people: what a step does, how a run started,
 * when something happens ("in 14 min"), how long it took, what an error code means.
 */
import cronstrue from 'cronstrue';
import { formatDate, formatDateTime, formatRelative } from '@/components/dashboard/format';
import type { RunSummary, RunView } from './status';

export type RunStep = RunView['steps'][number];
export type RunOrigin = RunSummary['origin'];

const timeOfDay = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });

/** A moment in UTC: "09:30 UTC" on today's date, the date and time otherwise. */
export function formatWhen(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  return formatDate(iso) === formatDate(new Date(now).toISOString()) ? `${timeOfDay.format(at)} UTC` : formatDateTime(iso);
}

/** How far a moment is from now: "in 14 min", "in 3 h", "in 2 days"; one already past reads "5 min ago". */
export function formatFromNow(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (seconds <= 0) return formatRelative(iso, now);
  if (seconds < 60) return 'in less than a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `in ${hours} h`;
  return `in ${Math.round(hours / 24)} days`;
}

/** A length of time: "420 ms", "3.2 s", "4 min 5 s", "2 h 5 min", "3 days 4 h". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const total = Math.round(s);
  const [d, h, m, sec] = [Math.floor(total / 86_400), Math.floor(total / 3600) % 24, Math.floor(total / 60) % 60, total % 60];
  if (d) return h ? `${d} ${d === 1 ? 'day' : 'days'} ${h} h` : `${d} ${d === 1 ? 'day' : 'days'}`;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  return sec ? `${m} min ${sec} s` : `${m} min`;
}

/** How long a step took, or has taken so far while it runs or waits; null before it started. */
export function stepDuration(step: Pick<RunStep, 'started_at' | 'finished_at'>, now = Date.now()): string | null {
  if (!step.started_at) return null;
  const end = step.finished_at ? new Date(step.finished_at).getTime() : now;
  const took = formatDuration(end - new Date(step.started_at).getTime());
  return step.finished_at ? took : `${took} so far`;
}

/** What a step does as its definition says it, in a few words ("Sleeps for 15m", "Runs text.slugify"). */
export function stepSummary(def: RunStep['definition']): string {
  switch (def.kind) {
    case 'sleep':
      return def.for ? `Sleeps for ${def.for}` : `Sleeps until ${def.until}`;
    case 'wait_for_event':
      return `Waits up to ${def.timeout} for ${article(def.event)} ${def.event} event`;
    case 'approval':
      return `Asks for approval (up to ${def.timeout})`;
    default:
      return `Runs ${def.module}.${def.action}`;
  }
}

/** What a run step does, in one sentence, in the tense its state calls for. */
export function stepSentence(step: RunStep, now = Date.now()): string {
  const wait = step.wait;
  const waiting = step.status === 'waiting';
  const planned = `${stepSummary(step.definition)} once the steps before it are done`;
  switch (step.kind) {
    case 'sleep':
      if (wait?.kind !== 'sleep') return planned;
      if (waiting) return `Sleeps until ${formatWhen(wait.until, now)} (${formatFromNow(wait.until, now)})`;
      return `${step.status === 'succeeded' ? 'Slept' : 'Was to sleep'} until ${formatWhen(wait.until, now)}`;
    case 'wait_for_event': {
      if (wait?.kind !== 'event') return planned;
      const what = `${article(wait.event)} ${wait.event} event${wait.match ? ' matching the condition below' : ''}`;
      if (!waiting) return `Waited for ${what}`;
      const then = wait.on_timeout === 'continue' ? 'then goes on without it' : 'then fails';
      return `Waits for ${what} (times out at ${formatWhen(wait.timeout_at, now)}, ${formatFromNow(wait.timeout_at, now)}; ${then})`;
    }
    case 'approval':
      if (wait?.kind !== 'approval') return planned;
      return `${waiting ? 'Waits for approval' : 'Asked for approval'}: ${wait.prompt}`;
    default:
      return step.module && step.action ? `Runs ${step.module}.${step.action}` : 'Runs an action';
  }
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** What a waiting step is doing now, as a short label ("Sleeping", "Waiting for an event", "Waiting for approval"). */
export function waitingLabel(step: RunStep): string {
  if (step.kind === 'sleep') return 'Sleeping';
  if (step.kind === 'wait_for_event') return 'Waiting for an event';
  if (step.kind === 'approval') return 'Waiting for approval';
  return 'Waiting';
}

/** The first words of an error, by its code; the API's message follows them. */
const ERROR_WORDS: Record<string, string> = {
  rejected: 'Rejected',
  timeout: 'Timed out',
  invalid_input: 'The input was not accepted',
  module_error: 'The action failed',
  quota_exceeded: 'The monthly quota is used up',
  interrupted: 'Interrupted',
  not_found: 'Something it needs was not found',
  internal_error: 'The service failed',
  unavailable: 'The service was unavailable',
  cancelled: 'Cancelled',
};

/** An error in words: "Timed out", "Rejected", or the code made readable ("Plan required"). */
export function errorWords(code: string): string {
  return ERROR_WORDS[code] ?? code.charAt(0).toUpperCase() + code.slice(1).replace(/_/g, ' ');
}

/** How a run started, as a short word for tables. */
export function originShort(origin: RunOrigin): string {
  switch (origin.type) {
    case 'schedule':
      return 'Schedule';
    case 'event':
      return 'Event';
    case 'replay':
      return 'Replay';
    default:
      return 'Call';
  }
}

/** A cron schedule in words ("At 09:30, Monday through Friday"), or null when it cannot be read. */
export function cronWords(cron: string): string | null {
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return null;
  }
}
