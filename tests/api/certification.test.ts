/**
 * Certification runs (docs/trust.md): every built-in module certifies gold or silver; a published
 * module with a wrong example and a crashing action gets a lower tier with failing checks; the
 * events reach the publisher and installers only, with exactly the documented fields; a bad update
 * downgrades (tier_changed); who may start a run; concurrent requests share one run; the weekly
 * schedule; the http runtime's signature check against a real local endpoint.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATION_WEEKLY_CRON, CERTIFICATION_WEEKLY_QUEUE, requestRun } from '../../src/certification/queue';
import { certificationRuns, events, executions, usageCounters } from '../../src/db/schema';
import { BUILTIN_MODULES } from '../../src/modules/registry';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { objectSchema, uniqueName } from '../module-fixtures';
import { startReceiver, type Receiver } from '../receiver';

const SOURCE = `
function handle(action, input) {
  switch (action) {
    case 'add': return { sum: input.a + input.b };
    case 'shout': return { text: input.text.toUpperCase() };
    case 'crash': throw new TypeError('cannot read the moon');
    case 'slow': { const end = Date.now() + 300; while (Date.now() < end) {} return { text: input.text }; }
    default: throw new Error('unknown action ' + action);
  }
}`;

const add = (expectedSum = 3) => ({
  name: 'add',
  description: 'Adds two numbers together.',
  input_schema: objectSchema({ a: { type: 'number', minimum: -1000, maximum: 1000 }, b: { type: 'number' } }),
  output_schema: objectSchema({ sum: { type: 'number' } }),
  examples: [{ input: { a: 1, b: 2 }, output: { sum: expectedSum } }],
});
const shout = {
  name: 'shout',
  description: 'Upper-cases a short text.',
  input_schema: objectSchema({ text: { type: 'string', maxLength: 200 } }),
  output_schema: objectSchema({ text: { type: 'string' } }),
  examples: [{ input: { text: 'hi' }, output: { text: 'HI' } }],
};
const crash = {
  name: 'crash',
  description: 'Throws on every input.',
  input_schema: objectSchema({ text: { type: 'string' } }),
  output_schema: objectSchema({ text: { type: 'string' } }),
  examples: [{ input: { text: 'x' }, output: { text: 'x' } }],
};

const jsModule = (name: string, actions: unknown[], overrides: Record<string, unknown> = {}) => ({
  name,
  version: '1.0.0',
  title: `Calculator ${name}`,
  description: 'A small published calculator for the certification tests.',
  category: 'math',
  tags: ['math'],
  visibility: 'public',
  runtime: { type: 'javascript', source: SOURCE },
  actions,
  ...overrides,
});

const SPEC_FIELDS = ['checks_passed', 'checks_total', 'module', 'previous_tier', 'report_url', 'tier', 'trust_score'];

backends.describe('certification (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', CERTIFICATION_PUBLISH_DELAY_MS: '0' } });
  });
  afterAll(async () => s?.close());

  const admin = { 'x-admin-token': ADMIN_TOKEN };
  const publish = (key: string, body: unknown) => s.call('/api/v1/modules', { key, body });

  /** Polls the module's history until run `id` has finished; returns it. */
  async function finished(module: string, id: string, key?: string, timeoutMs = 240_000): Promise<any> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const res = await s.call(`/api/v1/certification/${module}/runs?limit=100`, key ? { key } : { key: (await reader()).apiKey });
      expect(res.status, res.text).toBe(200);
      const run = res.body.data.find((r: any) => r.id === id);
      if (run && (run.status === 'completed' || run.status === 'failed')) return run;
      if (Date.now() > until) throw new Error(`run ${id} of ${module} did not finish: ${JSON.stringify(run)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  let readerTenant: { apiKey: string } | undefined;
  /** A tenant to read with, on a plan whose request limit the polling stays under. */
  const reader = async () => {
    if (!readerTenant) {
      const t = await s.register();
      await s.setPlan(t.tenantId, 'business');
      readerTenant = t;
    }
    return readerTenant;
  };

  /** The run the publish (or update) queued for `module`'s current version. */
  async function publishRun(module: string): Promise<string> {
    const rows = await s.svc.db.select().from(certificationRuns).where(eq(certificationRuns.moduleName, module));
    const latest = rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
    if (!latest) throw new Error(`no run for ${module}`);
    return latest.id;
  }

  /** The run queued for one version of `module`. */
  async function publishRunOf(module: string, version: string): Promise<string> {
    const [row] = await s.svc.db
      .select()
      .from(certificationRuns)
      .where(and(eq(certificationRuns.moduleName, module), eq(certificationRuns.version, version)));
    if (!row) throw new Error(`no run for ${module} ${version}`);
    return row.id;
  }

  const expectReportMatchesChecks = (report: any) => {
    expect(report.checks_total).toBe(report.checks.length);
    expect(report.checks_passed).toBe(report.checks.filter((c: any) => c.passed).length);
    for (const check of report.checks) {
      expect(Object.keys(check).sort()).toEqual(['detail', 'name', 'passed']);
      expect(check.detail.length).toBeGreaterThan(0);
    }
  };

  it('every built-in module certifies gold or silver, with a report that matches its checks', async () => {
    const started = await Promise.all(
      BUILTIN_MODULES.map((m) => s.call(`/api/v1/admin/certification/${m.name}/run`, { method: 'POST', headers: admin })),
    );
    for (const res of started) expect(res.status, res.text).toBe(202);
    const t = await reader();
    // Runs take turns with tenants for workers: a tenant's executions go on meanwhile.
    const tenant = await s.register();
    const executed = await Promise.all(
      Array.from({ length: 5 }, () =>
        s.call('/api/v1/modules/text/execute', { key: tenant.apiKey, body: { action: 'slugify', input: { text: 'Hello World' } } }),
      ),
    );
    expect(executed.map((r) => r.status)).toEqual(Array(5).fill(200));
    for (const [i, m] of BUILTIN_MODULES.entries()) {
      const run = await finished(m.name, started[i]!.body.id, t.apiKey, 600_000);
      expect(run.status, JSON.stringify(run)).toBe('completed');
      const report = (await s.call(`/api/v1/certification/${m.name}/report`, { key: t.apiKey })).body;
      const failing = report.checks.filter((c: any) => !c.passed);
      expect(['gold', 'silver'], `${m.name}: ${report.tier} ${JSON.stringify(failing)}`).toContain(report.tier);
      expect(report).toMatchObject({ module: m.name, version: m.version, run_id: run.id, previous_tier: 'none', pending_run: null });
      expectReportMatchesChecks(report);
      const names = report.checks.map((c: any) => c.name);
      expect(names).toContain('metadata');
      expect(names).toContain('latency');
      for (const a of m.actions) expect(names).toEqual(expect.arrayContaining([`examples:${a.name}`, `malformed_inputs:${a.name}`]));
      expect(report.rule).toMatch(/gold.*silver.*90%.*bronze.*70%/);
      expect(report.ran_at).toBe(run.finished_at);
      const detail = await s.call(`/api/v1/modules/${m.name}`, { key: t.apiKey });
      expect(detail.body.certification_tier).toBe(report.tier);
      expect(detail.body.trust_score).toBe(report.trust_score);
    }
    // Not billed and no execution events: the runs left no execution records, counters or events
    // (the tenant's own 5 executions are the only ones).
    expect((await s.svc.db.select().from(executions)).map((e) => e.tenantId)).toEqual(Array(5).fill(tenant.tenantId));
    expect((await s.svc.db.select().from(usageCounters)).every((c) => c.tenantId === tenant.tenantId)).toBe(true);
    const recorded = await s.svc.db.select().from(events);
    expect(recorded.every((e) => e.tenantId === tenant.tenantId)).toBe(true);
    expect(recorded.filter((e) => e.type.startsWith('execution.'))).toHaveLength(5);
  }, 900_000);

  it('a published module with a wrong example and a crashing action gets a lower tier and failing checks with details', async () => {
    const t = await s.register();
    const name = uniqueName('shaky');
    expect((await publish(t.apiKey, jsModule(name, [add(4), shout, crash]))).status).toBe(201);
    const run = await finished(name, await publishRun(name), t.apiKey);
    expect(run).toMatchObject({ status: 'completed', trigger: 'publish', version: '1.0.0', previous_tier: 'none' });
    expect(['bronze', 'none']).toContain(run.tier);
    const report = (await s.call(`/api/v1/certification/${name}/report`, { key: t.apiKey })).body;
    expectReportMatchesChecks(report);
    const check = (n: string) => report.checks.find((c: any) => c.name === n);
    expect(check('examples:add')).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/differs from the expected.*"sum":3.*"sum":4/),
    });
    expect(check('examples:crash')).toMatchObject({ passed: false, detail: expect.stringContaining('cannot read the moon') });
    expect(check('examples:shout').passed).toBe(true);
    expect(check('metadata').passed).toBe(true);
    expect(check('malformed_inputs:add')).toMatchObject({ passed: true });
    expect(check('runtime_limits')).toMatchObject({ passed: true });
    expect((await s.call(`/api/v1/modules/${name}`, { key: t.apiKey })).body.certification_tier).toBe(report.tier);
  }, 300_000);

  describe('events and tiers', () => {
    let publisherHooks: Receiver;
    beforeAll(async () => {
      publisherHooks = await startReceiver();
    });
    afterAll(async () => publisherHooks?.close());

    const certificationEvents = (tenantId: string) =>
      s.svc.db
        .select()
        .from(events)
        .where(and(eq(events.tenantId, tenantId), inArray(events.type, ['certification.completed', 'certification.tier_changed'])))
        .orderBy(events.createdAt);

    it('certification.completed reaches the publisher and installers (not others) with exactly the documented fields; a bad update downgrades (tier_changed)', async () => {
      const publisher = await s.register();
      const installer = await s.register();
      const freeInstaller = await s.register();
      const other = await s.register();
      for (const t of [publisher, installer, other]) await s.setPlan(t.tenantId, 'pro');
      const hook = await s.call('/api/v1/webhooks', {
        key: publisher.apiKey,
        body: { url: publisherHooks.url, events: ['certification.completed', 'certification.tier_changed'] },
      });
      expect(hook.status, hook.text).toBe(201);
      const name = uniqueName('steady');
      expect((await publish(publisher.apiKey, jsModule(name, [add(), shout]))).status).toBe(201);
      const first = await finished(name, await publishRun(name), publisher.apiKey);
      expect(['gold', 'silver']).toContain(first.tier);

      for (const t of [installer, freeInstaller])
        expect((await s.call(`/api/v1/modules/${name}/install`, { key: t.apiKey, method: 'POST' })).status).toBe(201);
      const manual = await s.call(`/api/v1/certification/${name}/run`, { key: publisher.apiKey, method: 'POST' });
      expect(manual.status, manual.text).toBe(202);
      expect(manual.body).toMatchObject({ module: name, version: '1.0.0', trigger: 'manual', shared: false });
      const second = await finished(name, manual.body.id, publisher.apiKey);
      const report = (await s.call(`/api/v1/certification/${name}/report`, { key: installer.apiKey })).body;

      const completedFor = async (tenantId: string) =>
        (await certificationEvents(tenantId)).filter((e) => e.type === 'certification.completed');
      const expected = {
        module: name,
        tier: second.tier,
        previous_tier: first.tier,
        trust_score: report.trust_score,
        checks_passed: second.checks_passed,
        checks_total: second.checks_total,
        report_url: `/api/v1/certification/${name}/report`,
      };
      for (const t of [publisher, installer]) {
        const completed = await completedFor(t.tenantId);
        const last = completed.at(-1)!;
        expect(Object.keys(last.data).sort()).toEqual(SPEC_FIELDS);
        expect(last.data).toEqual(expected);
      }
      // The installer on free (no webhooks) and a tenant without the module hear nothing.
      expect(await certificationEvents(freeInstaller.tenantId)).toEqual([]);
      expect(await certificationEvents(other.tenantId)).toEqual([]);
      // The publisher's receiver got both runs' completions (and the first run's upgrade), signed, exactly the documented fields.
      const delivered = await publisherHooks.waitFor(2, { filter: (r) => r.body?.event === 'certification.completed', timeoutMs: 60_000 });
      expect(Object.keys(delivered.at(-1)!.body.data).sort()).toEqual(SPEC_FIELDS);
      const upgrade = await publisherHooks.waitFor(1, { filter: (r) => r.body?.event === 'certification.tier_changed', timeoutMs: 60_000 });
      expect(upgrade[0]!.body.data).toEqual({ module: name, tier: first.tier, previous_tier: 'none', direction: 'upgrade' });

      // A bad update: the update's run downgrades the module, and tier_changed says so.
      const updated = await s.call(`/api/v1/modules/${name}`, {
        key: publisher.apiKey,
        method: 'PUT',
        body: { version: '1.1.0', actions: [add(4), crash] },
      });
      expect(updated.status, updated.text).toBe(200);
      const third = await finished(name, await publishRun(name), publisher.apiKey);
      expect(third).toMatchObject({ version: '1.1.0', trigger: 'publish', previous_tier: second.tier });
      expect(['bronze', 'none']).toContain(third.tier);
      for (const t of [publisher, installer]) {
        const changed = (await certificationEvents(t.tenantId)).filter((e) => e.type === 'certification.tier_changed').at(-1)!;
        expect(changed.data).toEqual({ module: name, tier: third.tier, previous_tier: second.tier, direction: 'downgrade' });
      }
      expect(await certificationEvents(other.tenantId)).toEqual([]);
      const history = await s.call(`/api/v1/certification/${name}/runs?limit=2`, { key: publisher.apiKey });
      expect(history.body.data.map((r: any) => r.id)).toEqual([third.id, second.id]);
      expect(history.body.has_more).toBe(true);
      const older = await s.call(`/api/v1/certification/${name}/runs?limit=2&cursor=${history.body.next_cursor}`, {
        key: publisher.apiKey,
      });
      expect(older.body.data.map((r: any) => r.id)).toEqual([first.id]);
    }, 600_000);
  });

  it('a module made private again is named in no event to the tenants that installed it while public', async () => {
    const publisher = await s.register();
    const installer = await s.register();
    for (const t of [publisher, installer]) await s.setPlan(t.tenantId, 'pro');
    const name = uniqueName('retired');
    expect((await publish(publisher.apiKey, jsModule(name, [add()]))).status).toBe(201);
    await finished(name, await publishRun(name), publisher.apiKey);
    expect((await s.call(`/api/v1/modules/${name}/install`, { key: installer.apiKey, method: 'POST' })).status).toBe(201);
    const hidden = await s.call(`/api/v1/modules/${name}`, {
      key: publisher.apiKey,
      method: 'PUT',
      body: { visibility: 'private', actions: [add(4)] },
    });
    expect(hidden.status, hidden.text).toBe(200);
    expectError(await s.call(`/api/v1/modules/${name}`, { key: installer.apiKey }), 404, 'not_found');
    // The update's run downgrades it (a wrong example): the publisher hears, the installer does not.
    const run = await finished(name, await publishRun(name), publisher.apiKey);
    expect(run.status).toBe('completed');
    const about = async (tenantId: string) =>
      (await s.svc.db.select().from(events).where(eq(events.tenantId, tenantId))).filter(
        (e) => (e.data as { module?: string }).module === name && e.createdAt.getTime() >= new Date(run.started_at).getTime(),
      );
    expect((await about(publisher.tenantId)).map((e) => e.type)).toContain('certification.completed');
    expect(await about(installer.tenantId)).toEqual([]);
  }, 300_000);

  it('only the publisher (modules:write) or an operator starts a run: others 403, unseen modules 404', async () => {
    const publisher = await s.register();
    const stranger = await s.register();
    await s.setPlan(publisher.tenantId, 'pro');
    const pub = uniqueName('guarded');
    const priv = uniqueName('hidden');
    expect((await publish(publisher.apiKey, jsModule(pub, [add()]))).status).toBe(201);
    expect((await publish(publisher.apiKey, jsModule(priv, [add()], { visibility: 'private' }))).status).toBe(201);
    const run = (module: string, key: string) => s.call(`/api/v1/certification/${module}/run`, { key, method: 'POST' });

    expectError(await run(pub, stranger.apiKey), 403, 'forbidden');
    expectError(await run('text', stranger.apiKey), 403, 'forbidden');
    expectError(await run(priv, stranger.apiKey), 404, 'not_found');
    expectError(await run('no-such-module', stranger.apiKey), 404, 'not_found');
    expectError(await s.call(`/api/v1/certification/${priv}/report`, { key: stranger.apiKey }), 404, 'not_found');
    expectError(await s.call(`/api/v1/certification/${priv}/runs`, { key: stranger.apiKey }), 404, 'not_found');
    const readOnly = await s.call('/api/v1/keys', { key: publisher.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    expectError(await run(pub, readOnly.body.api_key), 403, 'insufficient_scope');
    expect((await s.call(`/api/v1/certification/${pub}/report`, { key: readOnly.body.api_key })).status).toBe(200);
    expect((await run(priv, publisher.apiKey)).status).toBe(202);
    expectError(await s.call(`/api/v1/admin/certification/${pub}/run`, { method: 'POST' }), 401, 'unauthorized');
    expect((await s.call(`/api/v1/admin/certification/${pub}/run`, { method: 'POST', headers: admin })).status).toBe(202);
    expectError(await s.call('/api/v1/admin/certification/no-such-module/run', { method: 'POST', headers: admin }), 404, 'not_found');
  });

  it('concurrent requests for one module version share one run', async () => {
    const publisher = await s.register();
    const name = uniqueName('popular');
    expect((await publish(publisher.apiKey, jsModule(name, [add(), shout]))).status).toBe(201);
    await finished(name, await publishRun(name), publisher.apiKey);
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => s.call(`/api/v1/certification/${name}/run`, { key: publisher.apiKey, method: 'POST' })),
      ...Array.from({ length: 2 }, () => s.call(`/api/v1/admin/certification/${name}/run`, { method: 'POST', headers: admin })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.body.shared === false)).toHaveLength(1);
    const run = await finished(name, answers[0]!.body.id, publisher.apiKey);
    expect(run.status).toBe('completed');
    const runs = await s.svc.db.select().from(certificationRuns).where(eq(certificationRuns.moduleName, name));
    expect(runs).toHaveLength(2);
  }, 300_000);

  it('an update while its run is under way gets a run of its own afterwards', async () => {
    const t = await s.register();
    const name = uniqueName('busy');
    const slow = (output: string) => ({
      name: 'slow',
      description: 'Takes its time, then echoes the text.',
      input_schema: objectSchema({ text: { type: 'string', maxLength: 50 } }),
      output_schema: objectSchema({ text: { type: 'string' } }),
      examples: [{ input: { text: 'a' }, output: { text: output } }],
      timeout_ms: 5000,
    });
    expect((await publish(t.apiKey, jsModule(name, [slow('a')]))).status).toBe(201);
    const runsOf = () =>
      s.svc.db.select().from(certificationRuns).where(eq(certificationRuns.moduleName, name)).orderBy(certificationRuns.createdAt);
    const until = Date.now() + 120_000;
    while ((await runsOf())[0]!.status === 'queued') {
      if (Date.now() > until) throw new Error('the publish run did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    // Same version, a wrong example now: the running run certified the old definition.
    const updated = await s.call(`/api/v1/modules/${name}`, { key: t.apiKey, method: 'PUT', body: { actions: [slow('b')] } });
    expect(updated.status, updated.text).toBe(200);
    let runs = await runsOf();
    while (runs.length < 2 || runs.some((r) => r.status === 'queued' || r.status === 'running')) {
      if (Date.now() > until) throw new Error(`runs did not finish: ${JSON.stringify(runs.map((r) => r.status))}`);
      await new Promise((r) => setTimeout(r, 500));
      runs = await runsOf();
    }
    expect(runs).toHaveLength(2);
    const latest = runs[1]!;
    expect(latest).toMatchObject({ status: 'completed', trigger: 'publish', version: '1.0.0' });
    expect(latest.checks.find((c) => c.name === 'examples:slow')).toMatchObject({
      passed: false,
      detail: expect.stringContaining('differs from the expected'),
    });
    const report = (await s.call(`/api/v1/certification/${name}/report`, { key: t.apiKey })).body;
    expect(report).toMatchObject({ run_id: latest.id, tier: latest.tier });
  }, 300_000);

  it('a run requested for a version the module has since left is superseded, not run on the new definition', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const name = uniqueName('moved');
    expect((await publish(t.apiKey, jsModule(name, [add()]))).status).toBe(201);
    const first = await finished(name, await publishRun(name), t.apiKey);
    expect(first).toMatchObject({ status: 'completed', version: '1.0.0', tier: 'gold' });
    // A run of 1.0.0 still waiting to start when an update moves the module to 1.0.1 (a publish
    // delay): the update asked for a 1.0.1 run; the 1.0.0 one must not certify 1.0.1's actions.
    const updated = await s.call(`/api/v1/modules/${name}`, {
      key: t.apiKey,
      method: 'PUT',
      body: { version: '1.0.1', actions: [add(4)] },
    });
    expect(updated.status, updated.text).toBe(200);
    const stale = await s.svc.db.transaction((tx) =>
      requestRun(s.svc, tx, { moduleName: name, version: '1.0.0', trigger: 'manual', tenantId: t.tenantId }),
    );
    expect(stale.created).toBe(true);
    const superseded = await finished(name, stale.run.id, t.apiKey);
    expect(superseded).toMatchObject({ status: 'failed', version: '1.0.0', tier: null, checks_total: 0 });
    expect(superseded.error).toContain('Superseded: the module is now at version 1.0.1');
    const current = await finished(name, await publishRunOf(name, '1.0.1'), t.apiKey);
    expect(current).toMatchObject({ status: 'completed', version: '1.0.1' });
    const report = (await s.call(`/api/v1/certification/${name}/report`, { key: t.apiKey })).body;
    expect(report).toMatchObject({ run_id: current.id, version: '1.0.1' });
    const completedEvents = await s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, 'certification.completed')));
    expect(completedEvents).toHaveLength(2);
  }, 300_000);

  it('the weekly schedule for every public module exists (pg-boss cron)', async () => {
    const schedules = await s.svc.boss.getSchedules();
    expect(schedules.find((x) => x.name === CERTIFICATION_WEEKLY_QUEUE)).toMatchObject({ cron: CERTIFICATION_WEEKLY_CRON });
  });

  describe('http runtime', () => {
    let endpoint: http.Server;
    let url = '';
    const secrets = new Map<string, string>();

    beforeAll(async () => {
      // A publisher endpoint: `/strict/<module>` verifies the signature (401 otherwise), `/lax/<module>` does not.
      endpoint = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          const [, mode, module] = (req.url ?? '').split('/');
          const secret = secrets.get(module ?? '') ?? '';
          const expected = Buffer.from(
            createHmac('sha256', secret).update(`${req.headers['x-module-timestamp']}.`).update(raw).digest('hex'),
          );
          const given = Buffer.from(String(req.headers['x-module-signature'] ?? ''));
          const valid = given.length === expected.length && timingSafeEqual(given, expected);
          const reply = (status: number, body: unknown) => {
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(body));
          };
          if (mode === 'strict' && !valid) return reply(401, { error: 'bad signature' });
          const { input } = JSON.parse(raw.toString('utf8')) as { input: { a: number; b: number } };
          if (mode === 'slow') return void setTimeout(() => reply(200, { sum: input.a + input.b }), 1500);
          return reply(200, { sum: input.a + input.b });
        });
      });
      await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      endpoint.closeAllConnections();
      await new Promise((r) => endpoint.close(r));
    });

    it('an endpoint that verifies the signature passes http_signature; one that does not is reported; one past the deadline fails its examples', async () => {
      const t = await s.register();
      const results: Record<string, any> = {};
      for (const mode of ['strict', 'lax', 'slow']) {
        const name = uniqueName(`remote-${mode}`);
        const secret = `secret-${mode}-0123456789abcdef`;
        secrets.set(name, secret);
        const timeout_ms = mode === 'slow' ? 300 : 3000;
        const res = await publish(
          t.apiKey,
          jsModule(name, [{ ...add(), timeout_ms }], { runtime: { type: 'http', endpoint: `${url}/${mode}/${name}`, secret } }),
        );
        expect(res.status, res.text).toBe(201);
        const run = await finished(name, await publishRun(name), t.apiKey);
        expect(run.status).toBe('completed');
        results[mode] = run;
      }
      const check = (run: any, n: string) => run.checks.find((c: any) => c.name === n);
      expect(check(results.strict, 'http_signature')).toMatchObject({ passed: true });
      expect(check(results.strict, 'examples:add')).toMatchObject({ passed: true });
      expect(['gold', 'silver']).toContain(results.strict.tier);
      expect(check(results.lax, 'http_signature')).toMatchObject({
        passed: false,
        detail: expect.stringContaining('wrong X-Module-Signature was not refused'),
      });
      expect(check(results.lax, 'examples:add')).toMatchObject({ passed: true });
      expect(results.lax.tier).not.toBe('gold');
      // No answer within the action's timeout_ms: the example is a crash (timeout), the tier falls below silver.
      expect(check(results.slow, 'examples:add')).toMatchObject({
        passed: false,
        detail: expect.stringMatching(/^Example 1 failed: timeout: .*300 ms/),
      });
      expect(['bronze', 'none']).toContain(results.slow.tier);
    }, 300_000);
  });
});
