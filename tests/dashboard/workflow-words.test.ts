import { describe, expect, it } from 'vitest';
import { definitionOf, type WorkflowView } from '../../components/dashboard/workflows/status';
import {
  cronWords,
  errorWords,
  formatDuration,
  formatFromNow,
  formatWhen,
  originShort,
  stepSentence,
  type RunStep,
} from '../../components/dashboard/workflows/words';
import { updateWorkflowInput } from '../../src/workflows/schema';

/** The run and workflow pages say steps, times and triggers in words; the editor starts from the whole definition. */
const NOW = Date.parse('2026-11-30T09:16:00Z');

const step = (over: Partial<RunStep>): RunStep => ({
  id: 's',
  kind: 'action',
  module: null,
  action: null,
  status: 'pending',
  wait: null,
  decision: null,
  definition: { id: 's', kind: 'action', module: 'text', action: 'slugify', input: {} },
  attempts: 0,
  input: null,
  output: null,
  error: null,
  execution_ids: [],
  started_at: null,
  finished_at: null,
  ...over,
});

describe('workflow words', () => {
  it('says when: today as the time, another day with its date, and how far from now', () => {
    expect(formatWhen('2026-11-30T09:30:00Z', NOW)).toBe('09:30 UTC');
    expect(formatWhen('2026-12-01T09:30:00Z', NOW)).toMatch(/^Dec 1, 2026, .+ UTC$/);
    expect(formatFromNow('2026-11-30T09:30:00Z', NOW)).toBe('in 14 min');
    expect(formatFromNow('2026-11-30T12:16:00Z', NOW)).toBe('in 3 h');
    expect(formatFromNow('2026-12-03T09:16:00Z', NOW)).toBe('in 3 days');
    expect(formatFromNow('2026-11-30T09:11:00Z', NOW)).toBe('5 min ago');
  });

  it('says how long', () => {
    expect(formatDuration(420)).toBe('420 ms');
    expect(formatDuration(3_200)).toBe('3.2 s');
    expect(formatDuration(245_000)).toBe('4 min 5 s');
    expect(formatDuration(7_500_000)).toBe('2 h 5 min');
    expect(formatDuration(86_400_000 * 3 + 3_600_000 * 4)).toBe('3 days 4 h');
  });

  it('says what each kind of step does, in the tense of its state', () => {
    expect(stepSentence(step({ module: 'text', action: 'slugify' }), NOW)).toBe('Runs text.slugify');
    const sleep = step({ kind: 'sleep', status: 'waiting', wait: { kind: 'sleep', until: '2026-11-30T09:30:00Z' } });
    expect(stepSentence(sleep, NOW)).toBe('Sleeps until 09:30 UTC (in 14 min)');
    expect(stepSentence({ ...sleep, status: 'succeeded' }, NOW)).toBe('Slept until 09:30 UTC');
    const event = step({
      kind: 'wait_for_event',
      status: 'waiting',
      wait: {
        kind: 'event',
        event: 'execution.failed',
        match: 'event.data.module = "http"',
        timeout_at: '2026-11-30T10:16:00Z',
        on_timeout: 'fail',
      },
    });
    expect(stepSentence(event, NOW)).toBe(
      'Waits for an execution.failed event matching the condition below (times out at 10:16 UTC, in 1 h; then fails)',
    );
    const approval = step({
      kind: 'approval',
      status: 'waiting',
      wait: { kind: 'approval', prompt: 'Publish hello-world?', approvers: [], timeout_at: '2026-11-30T10:16:00Z' },
    });
    expect(stepSentence(approval, NOW)).toBe('Waits for approval: Publish hello-world?');
    expect(stepSentence({ ...approval, status: 'succeeded' }, NOW)).toBe('Asked for approval: Publish hello-world?');
    // Not started yet: what its definition says it will do.
    expect(stepSentence(step({ kind: 'approval', definition: { id: 's', kind: 'approval', prompt: 'Go?', timeout: '1h' } }), NOW)).toBe(
      'Asks for approval (up to 1h) once the steps before it are done',
    );
    expect(stepSentence(step({ kind: 'sleep', definition: { id: 's', kind: 'sleep', for: '15m' } }), NOW)).toBe(
      'Sleeps for 15m once the steps before it are done',
    );
    expect(
      stepSentence(
        step({
          kind: 'wait_for_event',
          definition: { id: 's', kind: 'wait_for_event', event: 'module.installed', timeout: '1d', on_timeout: 'fail' },
        }),
        NOW,
      ),
    ).toBe('Waits up to 1d for a module.installed event once the steps before it are done');
  });

  it('says errors, origins and crons in words', () => {
    expect(errorWords('timeout')).toBe('Timed out');
    expect(errorWords('plan_required')).toBe('Plan required');
    expect(originShort({ type: 'api' })).toBe('Call');
    expect(originShort({ type: 'schedule', tick: '2026-11-30T08:30:00Z' })).toBe('Schedule');
    expect(originShort({ type: 'event', event_id: 'evt_1', event_type: 'execution.failed' })).toBe('Event');
    expect(cronWords('30 9 * * 1-5')).toBe('At 09:30, Monday through Friday');
    expect(cronWords('not a cron')).toBeNull();
  });
});

describe('definitionOf', () => {
  it('carries the triggers and the flow settings, and the API takes it back as it is', () => {
    const view: WorkflowView = {
      id: 'wf_1',
      name: 'Nightly',
      description: null,
      version: 3,
      steps: [{ id: 'nap', kind: 'sleep', for: '1h' }],
      schedule: { cron: '30 9 * * 1-5', timezone: 'Europe/Paris', input: {} },
      next_run_at: '2026-12-01T08:30:00Z',
      on: { event: 'execution.failed', filter: 'event.data.module = "http"', input: {} },
      concurrency: null,
      throttle: null,
      debounce: null,
      priority: 5,
      created_at: '2026-11-30T00:00:00Z',
      updated_at: '2026-11-30T00:00:00Z',
    } as WorkflowView;
    const definition = definitionOf(view);
    expect(Object.keys(definition)).toEqual(['name', 'steps', 'schedule', 'on', 'priority']);
    expect(updateWorkflowInput.safeParse({ id: view.id, ...definition }).success).toBe(true);
  });
});
