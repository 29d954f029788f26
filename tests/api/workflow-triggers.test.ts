/**
 * Runs nobody called (docs/workflows.md, Triggers): a cron `schedule` in a time zone and an `on`
 * event trigger with a filter, each building the run's input from a template. Ticks are driven
 * through `fireDueSchedules` with a clock the test sets; events come from real executions. Both
 * backends, and two instances on one PostgreSQL for "one run per tick".
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, workflowEventInbox, workflowRuns, workflows } from '../../src/db/schema';
import { fireDueSchedules } from '../../src/workflows/triggers';
import { processEventInbox } from '../../src/workflows/inbox';
import { until } from '../child-service';
import { eventsHandled } from '../workflow-inbox';
import { backends, expectError, missing, startTestServer, type TestServer } from '../harness';

const HOUR = 3_600_000;

const slugStep = { id: 'a', module: 'text', action: 'slugify', input: { text: 'x {{input.n}}' } };

backends.describe('workflow triggers (%s)', (backend) => {
  let s: TestServer;
  let t: { apiKey: string; tenantId: string };

  const create = async (body: Record<string, unknown>) => {
    const res = await s.call('/api/v1/workflows', {
      key: t.apiKey,
      body: { name: `wf-${randomBytes(3).toString('hex')}`, steps: [slugStep], ...body },
    });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const runsOf = async (id: string) => (await s.call(`/api/v1/workflows/${id}/runs?limit=100`, { key: t.apiKey })).body.data as any[];

  beforeAll(async () => {
    s = await startTestServer({ backend });
    t = await s.register();
    await s.setPlan(t.tenantId, 'business');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('refuses triggers that cannot run, naming the field', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ schedule: { cron: '* * * * * *' } }, 'schedule.cron', /needs five/],
      [{ schedule: { cron: '61 * * * *' } }, 'schedule.cron', /cannot be read/],
      [{ schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } }, 'schedule.timezone', /IANA time zone/],
      [{ schedule: { cron: '@daily', input: { e: '{{event.id}}' } } }, 'schedule.input', /\{\{schedule.tick\}\}/],
      [{ on: { event: 'order.paid' } }, 'on.event', /Unknown event kind/],
      [{ on: { event: 'execution.failed', filter: 'event.data.module =' } }, 'on.filter', /JSONata/],
      [{ on: { event: 'execution.failed', input: { x: '{{input.n}}' } } }, 'on.input', /\{\{event.data.x\}\}/],
    ];
    for (const [body, path, message] of cases) {
      const res = await s.call('/api/v1/workflows', { key: t.apiKey, body: { name: 'bad', steps: [slugStep], ...body } });
      expectError(res, 400, 'invalid_request');
      expect(res.body.issues?.[0]?.path, `${JSON.stringify(body)} -> ${res.text}`).toBe(path);
      expect(res.text, JSON.stringify(body)).toMatch(message);
    }
  });

  it('a schedule starts one run per tick, in its time zone, with the tick in its input; after downtime one run', async () => {
    const wf = await create({ schedule: { cron: '30 9 * * *', timezone: 'Asia/Kolkata', input: { n: '{{schedule.tick}}' } } });
    expect(wf.schedule).toEqual({ cron: '30 9 * * *', timezone: 'Asia/Kolkata', input: { n: '{{schedule.tick}}' } });
    // 09:30 in Kolkata (UTC+5:30) is 04:00 UTC.
    const tick = new Date(wf.next_run_at);
    expect(tick.toISOString()).toMatch(/T04:00:00\.000Z$/);
    expect(await fireDueSchedules(s.svc, new Date(tick.getTime() - 1000))).toBe(0);
    expect(await fireDueSchedules(s.svc, new Date(tick.getTime() + 1000))).toBe(1);
    // The same moment again, or a second sweep: nothing more.
    expect(await fireDueSchedules(s.svc, new Date(tick.getTime() + 2000))).toBe(0);
    const runs = await runsOf(wf.id);
    expect(runs).toHaveLength(1);
    expect(runs[0].origin).toEqual({ type: 'schedule', tick: tick.toISOString() });
    const run = await until('the scheduled run', async () => {
      const r = (await s.call(`/api/v1/workflows/${wf.id}/runs/${runs[0].run_id}`, { key: t.apiKey })).body;
      return r.status === 'completed' ? r : undefined;
    });
    expect(run.input).toEqual({ n: tick.toISOString() });
    const after = (await s.call(`/api/v1/workflows/${wf.id}`, { key: t.apiKey })).body;
    expect(Date.parse(after.next_run_at)).toBe(tick.getTime() + 24 * HOUR);

    // Three days of downtime: one run, for the earliest missed tick; the next tick is after "now".
    const now = new Date(tick.getTime() + 3 * 24 * HOUR + HOUR);
    expect(await fireDueSchedules(s.svc, now)).toBe(1);
    const missedRuns = await runsOf(wf.id);
    expect(missedRuns).toHaveLength(2);
    expect(missedRuns[0].origin.tick).toBe(new Date(tick.getTime() + 24 * HOUR).toISOString());
    const moved = (await s.call(`/api/v1/workflows/${wf.id}`, { key: t.apiKey })).body;
    expect(Date.parse(moved.next_run_at)).toBe(tick.getTime() + 4 * 24 * HOUR);

    // Removing the schedule (PUT without it) stops it.
    const put = await s.call(`/api/v1/workflows/${wf.id}`, {
      method: 'PUT',
      key: t.apiKey,
      body: { name: 'no schedule', steps: [slugStep] },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ schedule: null, next_run_at: null });
  });

  it('an event trigger starts exactly one run per matching event, with its input from the event', async () => {
    const wf = await create({
      on: {
        event: 'execution.failed',
        filter: 'event.data.module = "json"',
        input: { n: '{{event.data.error.code}}', execution: '{{event.data.execution_id}}' },
      },
    });
    expect(wf.on).toMatchObject({ event: 'execution.failed', filter: 'event.data.module = "json"' });
    const failures: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await s.call('/api/v1/modules/json/execute', { key: t.apiKey, body: { action: 'parse', input: { text: '{not json' } } });
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      failures.push(res.body.execution_id ?? res.body.execution?.execution_id);
    }
    // Not matching: another module's failure, and a success.
    await s.call('/api/v1/modules/http/execute', {
      key: t.apiKey,
      body: { action: 'fetch', input: { url: 'http://127.0.0.1:1/nothing' } },
    });
    await s.call('/api/v1/modules/json/execute', { key: t.apiKey, body: { action: 'parse', input: { text: '{}' } } });
    const runs = await until('three triggered runs', async () => {
      const r = await runsOf(wf.id);
      return r.length >= 3 ? r : undefined;
    });
    await eventsHandled(s.svc, t.tenantId);
    const all = await runsOf(wf.id);
    expect(all).toHaveLength(3);
    expect(all.every((r) => r.origin.type === 'event' && r.origin.event_type === 'execution.failed')).toBe(true);
    const inputs = await Promise.all(
      runs.map(async (r) => (await s.call(`/api/v1/workflows/${wf.id}/runs/${r.run_id}`, { key: t.apiKey })).body.input),
    );
    expect(inputs.map((i) => i.execution).sort()).toEqual(failures.filter(Boolean).sort());

    // The same events handled again (a second instance, a crash before the removal): no new run.
    const noted = await s.svc.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, 'execution.failed')));
    await s.svc.db
      .insert(workflowEventInbox)
      .values(noted.map((e) => ({ eventId: e.id, tenantId: t.tenantId, type: 'execution.failed' })))
      .onConflictDoNothing();
    await processEventInbox(s.svc);
    expect(await runsOf(wf.id)).toHaveLength(3);
  });

  it('a workflow triggered by workflow.completed does not start itself again', async () => {
    const wf = await create({ on: { event: 'workflow.completed' } });
    const started = await s.call(`/api/v1/workflows/${wf.id}/runs`, { key: t.apiKey, body: { input: { n: 1 } } });
    expect(started.status).toBe(202);
    await until('the run', async () => (await runsOf(wf.id))[0]?.status === 'completed');
    // Its workflow.completed was noted with the status, in the same transaction.
    await eventsHandled(s.svc, t.tenantId);
    expect(await runsOf(wf.id)).toHaveLength(1);
    const [row] = await s.svc.db.select().from(workflowRuns).where(eq(workflowRuns.id, started.body.run_id));
    expect(row!.origin).toEqual({ type: 'api' });
  });
});

describe.skipIf(missing.postgres !== undefined)('a schedule on two instances (postgres)', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ backend: 'postgres', redis: false });
    b = await startTestServer({ backend: 'postgres', redis: false, databaseUrl: a.config.databaseUrl });
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('both sweeping the same due tick at once start one run', async () => {
    const t = await a.register();
    await a.setPlan(t.tenantId, 'business');
    const wf = await a.call('/api/v1/workflows', {
      key: t.apiKey,
      body: { name: 'ticks', steps: [slugStep], schedule: { cron: '*/5 * * * *' } },
    });
    expect(wf.status, wf.text).toBe(201);
    for (let round = 1; round <= 5; round++) {
      const [row] = await a.svc.db.select().from(workflows).where(eq(workflows.id, wf.body.id));
      const tick = row!.nextRunAt!;
      const now = new Date(tick.getTime() + 1000);
      const started = await Promise.all([fireDueSchedules(a.svc, now), fireDueSchedules(b.svc, now), fireDueSchedules(a.svc, now)]);
      expect(started.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(1);
      const runs = await a.svc.db.select().from(workflowRuns).where(eq(workflowRuns.workflowId, wf.body.id));
      expect(runs).toHaveLength(round);
      expect(runs.filter((r) => r.origin.type === 'schedule' && r.origin.tick === tick.toISOString())).toHaveLength(1);
    }
  });
});
