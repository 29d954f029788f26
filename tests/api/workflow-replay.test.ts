/**
 * Replaying failed runs and operating on runs in bulk (docs/workflows.md, Replay and bulk
 * operations), on both backends: a replay reuses the outputs of the steps that succeeded (no new
 * execution for them) and runs the failed one again; a run is replayed once; bulk cancel and bulk
 * replay by status and time window.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../child-service';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('workflow replay and bulk operations (%s)', (backend) => {
  let s: TestServer;
  let t: { apiKey: string; tenantId: string };
  let failing = true;
  let server: Server;
  let url: string;

  const runOf = async (id: string, run: string) => (await s.call(`/api/v1/workflows/${id}/runs/${run}`, { key: t.apiKey })).body;
  const finished = (id: string, run: string) =>
    until(
      `run ${run} to finish`,
      async () => {
        const r = await runOf(id, run);
        return ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
      },
      90_000,
    );
  const executions = async () => (await s.call('/api/v1/billing/usage', { key: t.apiKey })).body.executions.used as number;

  beforeAll(async () => {
    // While `failing`, the connection is dropped: http.fetch fails with module_error.
    server = createServer((req, res) => {
      if (failing) return req.socket.destroy();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    t = await s.register();
    await s.setPlan(t.tenantId, 'business');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const flakyWorkflow = async () => {
    const res = await s.call('/api/v1/workflows', {
      key: t.apiKey,
      body: {
        name: 'flaky',
        steps: [
          { id: 'a', module: 'text', action: 'slugify', input: { text: 'Replay {{input.n}}' } },
          { id: 'b', module: 'http', action: 'fetch', input: { url: `${url}?slug={{steps.a.output.slug}}` }, depends_on: ['a'] },
          { id: 'c', module: 'text', action: 'change_case', input: { text: '{{steps.a.output.slug}}', to: 'upper' }, depends_on: ['b'] },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };

  it('a replay reuses the succeeded steps and runs the failed one again, once however often asked', async () => {
    failing = true;
    const id = await flakyWorkflow();
    const started = await s.call(`/api/v1/workflows/${id}/runs`, { key: t.apiKey, body: { input: { n: 1 } } });
    const failed = await finished(id, started.body.run_id);
    expect(failed.status, JSON.stringify(failed)).toBe('failed');
    expect(failed.error.step).toBe('b');
    const a = failed.steps.find((x: any) => x.id === 'a');

    expectError(await s.call(`/api/v1/workflows/${id}/runs/run_nope/replay`, { key: t.apiKey, method: 'POST' }), 404, 'not_found');
    failing = false;
    const used = await executions();
    const replay = await s.call(`/api/v1/workflows/${id}/runs/${failed.run_id}/replay`, { key: t.apiKey, method: 'POST' });
    expect(replay.status, replay.text).toBe(202);
    expect(replay.body).toMatchObject({ replay_of: failed.run_id, workflow_id: id });
    const again = await s.call(`/api/v1/workflows/${id}/runs/${failed.run_id}/replay`, { key: t.apiKey, method: 'POST' });
    expect(again.body.run_id).toBe(replay.body.run_id);

    const done = await finished(id, replay.body.run_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.origin).toEqual({ type: 'replay', run_id: failed.run_id });
    // a was not run again: the same output and execution; b and c ran once each.
    expect(done.steps.find((x: any) => x.id === 'a')).toMatchObject({
      status: 'succeeded',
      output: a.output,
      execution_ids: a.execution_ids,
    });
    expect(done.output).toEqual({ c: { result: 'REPLAY-1' } });
    expect((await executions()) - used).toBe(2);

    expectError(await s.call(`/api/v1/workflows/${id}/runs/${done.run_id}/replay`, { key: t.apiKey, method: 'POST' }), 409, 'conflict');
    const other = await s.register();
    expectError(
      await s.call(`/api/v1/workflows/${id}/runs/${failed.run_id}/replay`, { key: other.apiKey, method: 'POST' }),
      404,
      'not_found',
    );
  });

  it('bulk cancel by status and time window; bulk replay of the failed runs', async () => {
    const gated = await s.call('/api/v1/workflows', {
      key: t.apiKey,
      body: { name: 'gated', steps: [{ id: 'ok', kind: 'approval', prompt: 'Go?', timeout: '1h' }] },
    });
    const before = new Date(Date.now() - 1000).toISOString();
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => s.call(`/api/v1/workflows/${gated.body.id}/runs`, { key: t.apiKey, body: {} })),
    );
    const ids = runs.map((r) => r.body.run_id as string);
    for (const run of ids) await until('waiting', async () => (await runOf(gated.body.id, run)).steps[0].status === 'waiting');
    const none = await s.call(`/api/v1/workflows/${gated.body.id}/runs/cancel`, { key: t.apiKey, body: { until: before } });
    expect(none.body).toEqual({ cancelled: 0, run_ids: [], has_more: false });
    expectError(
      await s.call(`/api/v1/workflows/${gated.body.id}/runs/cancel`, { key: t.apiKey, body: { since: 'yesterday' } }),
      400,
      'invalid_request',
    );
    const cancelled = await s.call(`/api/v1/workflows/${gated.body.id}/runs/cancel`, { key: t.apiKey, body: { since: before } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.cancelled).toBe(5);
    expect(cancelled.body.run_ids.sort()).toEqual([...ids].sort());
    for (const run of ids) expect((await runOf(gated.body.id, run)).steps[0].status).toBe('cancelled');
    expect((await s.call(`/api/v1/workflows/${gated.body.id}/runs/cancel`, { key: t.apiKey, body: {} })).body.cancelled).toBe(0);

    failing = true;
    const id = await flakyWorkflow();
    const failedIds: string[] = [];
    for (let n = 0; n < 3; n++) {
      const started = await s.call(`/api/v1/workflows/${id}/runs`, { key: t.apiKey, body: { input: { n } } });
      expect((await finished(id, started.body.run_id)).status).toBe('failed');
      failedIds.push(started.body.run_id);
    }
    failing = false;
    const replayed = await s.call(`/api/v1/workflows/${id}/runs/replay`, { key: t.apiKey, body: {} });
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.body.replayed).toBe(3);
    expect(replayed.body.runs.map((r: any) => r.replay_of).sort()).toEqual([...failedIds].sort());
    for (const r of replayed.body.runs) expect((await finished(id, r.run_id)).status).toBe('completed');
    // Asking again replays nothing new: each failed run answers with its replay.
    const twice = await s.call(`/api/v1/workflows/${id}/runs/replay`, { key: t.apiKey, body: {} });
    expect(twice.body.runs.map((r: any) => r.run_id).sort()).toEqual(replayed.body.runs.map((r: any) => r.run_id).sort());
  });
});
