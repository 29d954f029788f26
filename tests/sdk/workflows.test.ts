/**
 * The SDK's workflow run operations against a real service (embedded PGlite): approving and
 * rejecting a waiting approval step, replaying a failed run, and cancelling and replaying runs in
 * bulk, each answer typed as the OpenAPI document names it.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  Amp,
  ConflictError,
  type CancelledWorkflowRuns,
  type ReplayedWorkflowRun,
  type ReplayedWorkflowRuns,
  type WorkflowRun,
} from '../../packages/sdk/src/index';
import { until } from '../child-service';
import { startTestServer, type TestServer } from '../harness';

let s: TestServer;
let amp: Amp;
beforeAll(async () => {
  s = await startTestServer();
  const t = await s.register();
  amp = new Amp({ apiKey: t.apiKey }, { baseUrl: s.url, maxRetries: 0 });
});
afterAll(async () => s?.close());

const stepOf = (run: WorkflowRun, id: string) => run.steps.find((x) => x.id === id)!;
const whenWaiting = (wf: string, run: string, step: string) =>
  until(`${run}.${step} to wait`, async () => {
    const r = await amp.workflows.getRun(wf, run);
    return stepOf(r, step).status === 'waiting' ? r : undefined;
  });
const finished = (wf: string, run: string) =>
  until(`${run} to finish`, async () => {
    const r = await amp.workflows.getRun(wf, run);
    return ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  });

describe('SDK workflow runs (embedded)', () => {
  const gated = () =>
    amp.workflows.create({
      name: 'gated',
      steps: [
        { id: 'propose', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
        { id: 'ok', kind: 'approval', prompt: 'Publish {{steps.propose.output.slug}}?', timeout: '1h', depends_on: ['propose'] },
        {
          id: 'publish',
          module: 'text',
          action: 'change_case',
          input: { text: '{{steps.propose.output.slug}}', to: 'upper' },
          depends_on: ['ok'],
        },
      ],
    });

  it('approveStep lets the run go on; a second decision is a ConflictError', async () => {
    const wf = await gated();
    const { run_id } = await amp.workflows.run(wf.id, { input: { title: 'Hello SDK' } });
    await whenWaiting(wf.id, run_id, 'ok');
    const approved = await amp.workflows.approveStep(wf.id, run_id, 'ok', { comment: 'looks right' });
    expectTypeOf(approved).toEqualTypeOf<WorkflowRun>();
    expect(stepOf(approved, 'ok')).toMatchObject({ status: 'succeeded', output: { approved: true, comment: 'looks right' } });
    const done = await finished(wf.id, run_id);
    expect(done.status).toBe('completed');
    expect(done.output).toEqual({ publish: { result: 'HELLO-SDK' } });
    await expect(amp.workflows.rejectStep(wf.id, run_id, 'ok')).rejects.toBeInstanceOf(ConflictError);
  });

  it('rejectStep fails the run; replayRun answers one replay however often asked, and replayRuns the same one', async () => {
    const wf = await gated();
    const { run_id } = await amp.workflows.run(wf.id, { input: { title: 'No Way' } });
    await whenWaiting(wf.id, run_id, 'ok');
    const rejected = await amp.workflows.rejectStep(wf.id, run_id, 'ok', { comment: 'not now' });
    expect(stepOf(rejected, 'ok').status).toBe('failed');
    const failed = await finished(wf.id, run_id);
    expect(failed).toMatchObject({ status: 'failed', error: { step: 'ok', code: 'rejected' } });

    const replay = await amp.workflows.replayRun(wf.id, run_id);
    expectTypeOf(replay).toEqualTypeOf<ReplayedWorkflowRun>();
    expect(replay).toMatchObject({ replay_of: run_id, workflow_id: wf.id });
    expect((await amp.workflows.replayRun(wf.id, run_id)).run_id).toBe(replay.run_id);
    // The replay copies `propose` and waits at the approval again.
    const waiting = await whenWaiting(wf.id, replay.run_id, 'ok');
    expect(stepOf(waiting, 'propose').output).toEqual(stepOf(failed, 'propose').output);

    const bulk = await amp.workflows.replayRuns(wf.id);
    expectTypeOf(bulk).toEqualTypeOf<ReplayedWorkflowRuns>();
    expect(bulk).toMatchObject({ replayed: 1, runs: [{ run_id: replay.run_id, replay_of: run_id }], has_more: false });
    await amp.workflows.cancelRun(wf.id, replay.run_id);
  });

  it('cancelRuns cancels the waiting runs in its window; replayRuns replays each cancelled one once', async () => {
    const wf = await gated();
    const since = new Date(Date.now() - 1000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await amp.workflows.run(wf.id, { input: { title: `Bulk ${i}` } })).run_id);
    for (const id of ids) await whenWaiting(wf.id, id, 'ok');

    const cancelled = await amp.workflows.cancelRuns(wf.id, { status: 'running', since });
    expectTypeOf(cancelled).toEqualTypeOf<CancelledWorkflowRuns>();
    expect(cancelled.cancelled).toBe(2);
    expect([...cancelled.run_ids].sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await finished(wf.id, id)).status).toBe('cancelled');

    const replayed = await amp.workflows.replayRuns(wf.id, { status: 'cancelled', since });
    expect(replayed.replayed).toBe(2);
    expect(replayed.runs.map((r) => r.replay_of).sort()).toEqual([...ids].sort());
    const again = await amp.workflows.replayRuns(wf.id, { status: 'cancelled', since });
    expect(again.runs.map((r) => r.run_id).sort()).toEqual(replayed.runs.map((r) => r.run_id).sort());
    expect((await amp.workflows.cancelRuns(wf.id)).cancelled).toBe(2);
  });
});
