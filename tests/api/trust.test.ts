/**
 * Trust scores (docs/trust.md, Trust score): GET /api/v1/trust/{name} (exempt from the request limit),
 * community feedback, trust.score_changed to the module's audience, the daily recomputation, and
 * the score and tier every catalog surface shows.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { certificationRuns, events, executions, modules, trustScoreHistory } from '../../src/db/schema';
import { TRUST_DAILY_CRON, TRUST_DAILY_QUEUE } from '../../src/jobs/trust';
import { newId } from '../../src/lib/ids';
import { unitOfWork } from '../../src/outbox';
import { recomputeAllTrustScores, recomputeTrustScore, TRUST_WEIGHTS } from '../../src/trust/score';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { objectSchema, uniqueName } from '../module-fixtures';
import { startReceiver, verifySignature, type Receiver } from '../receiver';

const SOURCE = `
function handle(action, input) {
  if (action === 'add') return { sum: input.a + input.b };
  throw new Error('exploded');
}`;

const action = (name: string) => ({
  name,
  description: `The ${name} action of the trust test module.`,
  input_schema: objectSchema({ a: { type: 'number' }, b: { type: 'number' } }),
  output_schema: objectSchema({ sum: { type: 'number' } }),
  examples: [{ input: { a: 1, b: 2 }, output: { sum: 3 } }],
});

/** A public javascript module: `add` works, `boom` crashes. */
const publicModule = (name: string) => ({
  name,
  version: '1.0.0',
  title: `Trusty ${name}`,
  description: 'A module whose trust is measured.',
  category: 'math',
  tags: ['trust'],
  visibility: 'public',
  runtime: { type: 'javascript', source: SOURCE },
  actions: [action('add'), action('boom')],
});

backends.describe('trust scores (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    // No publish-triggered certification run during the test: its result would move the scores under test.
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', CERTIFICATION_PUBLISH_DELAY_MS: '86400000' } });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    return t;
  }

  async function publish(key: string, name = uniqueName('trusty')) {
    const res = await s.call('/api/v1/modules', { key, body: publicModule(name) });
    expect(res.status, res.text).toBe(201);
    return name;
  }

  /** A pro tenant's webhook for trust.score_changed, with its receiver. */
  async function subscribe(key: string) {
    const r = await startReceiver();
    receivers.push(r);
    const res = await s.call('/api/v1/webhooks', { key, body: { url: r.url, events: ['trust.score_changed'] } });
    expect(res.status, res.text).toBe(201);
    return { receiver: r, secret: res.body.secret as string };
  }

  /** Executes, then pins the recorded latency: the latency component must not depend on the machine's load. */
  async function execute(key: string, module: string, name = 'add') {
    const res = await s.call(`/api/v1/modules/${module}/execute`, { key, body: { action: name, input: { a: 1, b: 2 } } });
    await s.svc.db.update(executions).set({ latencyMs: 10 }).where(eq(executions.module, module));
    return res;
  }

  const rate = (key: string, module: string, body: Record<string, unknown>) => s.call(`/api/v1/trust/${module}/feedback`, { key, body });
  const trust = async (key: string, module: string) => {
    const res = await s.call(`/api/v1/trust/${module}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const scoreEvents = (tenantId: string, module: string) =>
    s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, 'trust.score_changed')))
      .then((rows) => rows.filter((e) => e.data.module === module));

  it('GET /trust/{name}: weighted components, tier, feedback summary and history; unknown or invisible modules are 404', async () => {
    const t = await s.register();
    const body = await trust(t.apiKey, 'text');
    expect(body).toMatchObject({ module: 'text', feedback: { your_rating: null }, history: expect.any(Array) });
    expect(Object.keys(body.components).sort()).toEqual(['certification', 'feedback', 'latency', 'success_rate']);
    const weights = Object.values(body.components as Record<string, { weight: number; value: number }>).map((c) => c.weight);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    for (const [name, c] of Object.entries(body.components as Record<string, { weight: number; value: number }>)) {
      expect(c.weight).toBe(TRUST_WEIGHTS[name as keyof typeof TRUST_WEIGHTS]);
      expect(c.value).toBeGreaterThanOrEqual(0);
      expect(c.value).toBeLessThanOrEqual(100);
    }
    const detail = await s.call('/api/v1/modules/text', { key: t.apiKey });
    expect(body.trust_score).toBe(detail.body.trust_score);
    expect(body.certification_tier).toBe(detail.body.certification_tier);

    expectError(await s.call('/api/v1/trust/no-such-module', { key: t.apiKey }), 404, 'not_found');
    expectError(await s.call('/api/v1/trust/Not%20A%20Name', { key: t.apiKey }), 404, 'not_found');
    const owner = await s.register();
    const name = uniqueName('private');
    expect((await s.call('/api/v1/modules', { key: owner.apiKey, body: { ...publicModule(name), visibility: 'private' } })).status).toBe(
      201,
    );
    expect((await s.call(`/api/v1/trust/${name}`, { key: owner.apiKey })).status).toBe(200);
    expectError(await s.call(`/api/v1/trust/${name}`, { key: t.apiKey }), 404, 'not_found');
    expectError(await rate(t.apiKey, name, { rating: 5 }), 404, 'not_found');
    expectError(await s.call('/api/v1/trust/text'), 401, 'unauthorized');
  });

  it('feedback: 1–5 only, only from tenants that executed the module, never the publisher, one per tenant (replaced)', async () => {
    const t = await s.register();
    expect(expectError(await rate(t.apiKey, 'text', { rating: 5 }), 403, 'forbidden').message).toMatch(/executed/);
    expectError(await rate(t.apiKey, 'no-such-module', { rating: 5 }), 404, 'not_found');

    expect(
      (await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Rate me' } } })).status,
    ).toBe(200);
    for (const bad of [
      { rating: 0 },
      { rating: 6 },
      { rating: 2.5 },
      { rating: '5' },
      {},
      { rating: 4, stars: 4 },
      { rating: 4, comment: 'x'.repeat(2001) },
    ]) {
      expectError(await rate(t.apiKey, 'text', bad), 400, 'invalid_request');
    }
    const first = await rate(t.apiKey, 'text', { rating: 5, comment: 'Works.' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ module: 'text', rating: 5, comment: 'Works.', trust_score: expect.any(Number) });
    const again = await rate(t.apiKey, 'text', { rating: 2 });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ module: 'text', rating: 2, comment: null, created_at: first.body.created_at });
    const view = await trust(t.apiKey, 'text');
    expect(view.feedback.your_rating).toBe(2);

    // The scope is modules:execute.
    const pro = await proTenant();
    const readOnly = await s.call('/api/v1/keys', { key: pro.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    expect(readOnly.status, readOnly.text).toBe(201);
    expectError(await rate(readOnly.body.api_key, 'text', { rating: 5 }), 403, 'insufficient_scope');
    expect((await s.call('/api/v1/trust/text', { key: readOnly.body.api_key })).status).toBe(200);

    // A publisher cannot rate its own module, even after executing it.
    const publisher = await s.register();
    const name = await publish(publisher.apiKey);
    expect((await execute(publisher.apiKey, name)).status).toBe(200);
    expect(expectError(await rate(publisher.apiKey, name, { rating: 5 }), 403, 'forbidden').message).toMatch(/own module/);
  });

  it('feedback moving the score by 5+ sends trust.score_changed to the publisher and installers on plans with webhooks, not to others', async () => {
    const publisher = await proTenant();
    const name = await publish(publisher.apiKey);
    const installer = await proTenant();
    expect((await s.call(`/api/v1/modules/${name}/install`, { key: installer.apiKey, method: 'POST' })).status).toBe(201);
    const outsider = await proTenant();
    const freeInstaller = await s.register();
    expect((await s.call(`/api/v1/modules/${name}/install`, { key: freeInstaller.apiKey, method: 'POST' })).status).toBe(201);
    const hooks = {
      publisher: await subscribe(publisher.apiKey),
      installer: await subscribe(installer.apiKey),
      outsider: await subscribe(outsider.apiKey),
    };

    const rater = await s.register();
    expect((await execute(rater.apiKey, name)).status).toBe(200);
    const before = await trust(rater.apiKey, name);
    expect(before.trust_score).toBe(50);

    // success 100, latency 100, feedback 100, certification neutral 50: 0.4·50 + 0.3·100 + 0.1·100 + 0.2·100 = 80.
    const five = await rate(rater.apiKey, name, { rating: 5 });
    expect(five.status, five.text).toBe(201);
    expect(five.body.trust_score).toBe(80);
    // 4 stars: feedback 75, 5 points less: exactly the threshold.
    expect((await rate(rater.apiKey, name, { rating: 4 })).body.trust_score).toBe(75);

    for (const who of ['publisher', 'installer'] as const) {
      const got = await hooks[who].receiver.waitFor(2, { timeoutMs: 30_000 });
      const data = got.map((r) => r.body.data);
      expect(
        got.every(
          (r) => r.body.event === 'trust.score_changed' && verifySignature(hooks[who].secret, r.raw, r.headers['x-webhook-signature']),
        ),
      ).toBe(true);
      expect(Object.keys(data[0]).sort()).toEqual(['module', 'previous_score', 'reason', 'score']);
      expect(data).toEqual(
        expect.arrayContaining([
          { module: name, score: 80, previous_score: 50, reason: 'feedback' },
          { module: name, score: 75, previous_score: 80, reason: 'feedback' },
        ]),
      );
    }
    // A second rater agreeing moves nothing; one star less moves 2–3 points: recorded, not announced.
    const second = await s.register();
    expect((await execute(second.apiKey, name)).status).toBe(200);
    expect((await rate(second.apiKey, name, { rating: 4 })).body.trust_score).toBe(75);
    const small = await rate(second.apiKey, name, { rating: 3 });
    expect(Math.abs(small.body.trust_score - 75)).toBeLessThan(5);
    expect(small.body.trust_score).not.toBe(75);

    expect(await scoreEvents(publisher.tenantId, name)).toHaveLength(2);
    expect(await scoreEvents(installer.tenantId, name)).toHaveLength(2);
    for (const t of [outsider, freeInstaller, rater, second]) expect(await scoreEvents(t.tenantId, name)).toHaveLength(0);
    expect(hooks.outsider.receiver.received).toHaveLength(0);

    const view = await trust(publisher.apiKey, name);
    expect(view.trust_score).toBe(small.body.trust_score);
    expect(view.computed_score).toBe(view.trust_score);
    expect(view.feedback).toMatchObject({ count: 2, average: 3.5, distribution: { 1: 0, 2: 0, 3: 1, 4: 1, 5: 0 }, your_rating: null });
    expect(
      view.history.map((h: { score: number; previous_score: number; reason: string }) => [h.previous_score, h.score, h.reason]),
    ).toEqual([
      [75, small.body.trust_score, 'feedback'],
      [80, 75, 'feedback'],
      [50, 80, 'feedback'],
    ]);
  });

  it('a certification result feeds the score; list, detail, search, directory, arm and MCP show the same tier and score', async () => {
    const publisher = await s.register();
    const name = await publish(publisher.apiKey);
    await unitOfWork(s.svc, async (tx, out) => {
      await tx.insert(certificationRuns).values({
        id: newId('crt'),
        moduleName: name,
        version: '1.0.0',
        status: 'completed',
        trigger: 'manual',
        tier: 'gold',
        previousTier: 'none',
        checksPassed: 6,
        checksTotal: 6,
        p95Ms: 20,
        finishedAt: new Date(),
      });
      await tx.update(modules).set({ certificationTier: 'gold' }).where(eq(modules.name, name));
      // certification 100, latency (the run's p95) 100, success and feedback neutral: 40 + 15 + 10 + 10.
      expect(await recomputeTrustScore(tx, out, name, 'certification')).toMatchObject({ score: 75, previous: 50 });
    });
    s.svc.moduleCache.invalidate(name);

    const t = await s.register();
    const view = await trust(t.apiKey, name);
    expect(view).toMatchObject({ trust_score: 75, certification_tier: 'gold', computed_score: 75 });
    expect(view.components.certification).toMatchObject({ value: 100, tier: 'gold' });
    expect(view.components.latency).toMatchObject({ value: 100, p95_ms: 20, source: 'certification' });
    expect(view.history[0]).toMatchObject({ score: 75, previous_score: 50, reason: 'certification' });

    const shown = { trust_score: 75, certification_tier: 'gold' };
    expect((await s.call(`/api/v1/modules/${name}`, { key: t.apiKey })).body).toMatchObject(shown);
    const list = await s.call('/api/v1/modules?category=math&limit=100', { key: t.apiKey });
    expect(list.body.data.find((m: { name: string }) => m.name === name)).toMatchObject(shown);
    const search = await s.call(`/api/v1/catalog/search?q=${name}`, { key: t.apiKey });
    expect(search.body.data.filter((r: { module: string }) => r.module === name)).toEqual([
      expect.objectContaining(shown),
      expect.objectContaining(shown),
    ]);
    let found: unknown[] = [];
    for (let cursor = ''; ;) {
      const page = await s.call(`/api/v1/directory?category=math&limit=100${cursor}`, { key: t.apiKey });
      found = found.concat(page.body.data.filter((r: { module: string }) => r.module === name));
      if (!page.body.next_cursor) break;
      cursor = `&cursor=${page.body.next_cursor}`;
    }
    expect(found).toEqual([expect.objectContaining(shown), expect.objectContaining(shown)]);

    const arm = await s.call('/api/v1/agent/arm', { key: t.apiKey, body: { query: name, format: 'anthropic' } });
    const armed = arm.body.tools.filter((tool: { name: string }) => tool.name.startsWith(`${name}__`));
    expect(armed).toHaveLength(2);
    for (const tool of armed) expect(tool.description).toContain('trust score 75/100, certification gold');
    const mcp = await s.call(`/api/mcp?modules=${name}`, {
      key: t.apiKey,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(mcp.status, mcp.text).toBe(200);
    const tools = mcp.body.result.tools as { description: string }[];
    expect(tools).toHaveLength(2);
    for (const tool of tools) expect(tool.description).toContain('trust score 75/100, certification gold');
  });

  it('the daily recomputation follows executions (reason usage) and its pg-boss schedule exists', async () => {
    const schedules = await s.svc.boss.getSchedules(TRUST_DAILY_QUEUE);
    expect(schedules.map((x) => x.cron)).toEqual([TRUST_DAILY_CRON]);

    const publisher = await proTenant();
    const name = await publish(publisher.apiKey);
    const user = await s.register();
    expect((await execute(user.apiKey, name)).status).toBe(200);
    expect((await execute(user.apiKey, name, 'boom')).status).toBe(502);
    // A caller's invalid input says nothing about the module: not counted.
    const invalid = await s.call(`/api/v1/modules/${name}/execute`, { key: user.apiKey, body: { action: 'add', input: { a: 'x' } } });
    expectError(invalid, 422, 'invalid_input');
    // Never scored yet: the read shows neutral components (it never aggregates executions itself).
    const before = await trust(user.apiKey, name);
    expect(before).toMatchObject({ trust_score: 50, computed_score: 50, computed_at: null });
    expect(before.components.success_rate).toMatchObject({ value: 50, executions: 0 });

    await recomputeAllTrustScores(s.svc);
    const after = await trust(user.apiKey, name);
    expect(after).toMatchObject({ trust_score: 55, computed_score: 55, computed_at: expect.any(String) });
    expect(after.components.success_rate).toMatchObject({ value: 50, executions: 2, succeeded: 1 });
    expect(after.components.latency).toMatchObject({ value: 100, p95_ms: 10, source: 'executions' });
    // 0.4·50 + 0.3·50 + 0.1·100 + 0.2·50 = 55.
    const [row] = await s.svc.db.select({ score: modules.trustScore }).from(modules).where(eq(modules.name, name));
    expect(row!.score).toBe(55);
    const [history] = await s.svc.db.select().from(trustScoreHistory).where(eq(trustScoreHistory.moduleName, name));
    expect(history).toMatchObject({ score: 55, previousScore: 50, reason: 'usage' });
    const [event] = await scoreEvents(publisher.tenantId, name);
    expect(event!.data).toEqual({ module: name, score: 55, previous_score: 50, reason: 'usage' });
    expect((await s.call(`/api/v1/modules/${name}`, { key: user.apiKey })).body.trust_score).toBe(55);
  });

  it('concurrent ratings of one module: each counted once, the stored score is the sum of the final components', async () => {
    const publisher = await s.register();
    const name = await publish(publisher.apiKey);
    const raters = await Promise.all(Array.from({ length: 8 }, () => s.register()));
    for (const r of raters) expect((await execute(r.apiKey, name)).status).toBe(200);
    const answers = await Promise.all(raters.map((r, i) => rate(r.apiKey, name, { rating: (i % 5) + 1 })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    const view = await trust(publisher.apiKey, name);
    expect(view.feedback).toMatchObject({ count: 8, average: 2.63 }); // 21 / 8
    expect(view.trust_score).toBe(view.computed_score);
    // Each history row starts where the previous one ended: no recomputation read a stale score.
    const chain = [...view.history].reverse() as { score: number; previous_score: number }[];
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.previous_score).toBe(chain[i - 1]!.score);
    expect(chain.at(-1)!.score).toBe(view.trust_score);
  });

  it('llms.txt states the trust formula; the OpenAPI webhooks section the data of trust.score_changed', async () => {
    const res = await s.call('/api/llms.txt');
    expect(res.text).toContain(`${TRUST_WEIGHTS.certification} × the certification tier`);
    expect(res.text).toContain('/api/v1/trust/{name}/feedback');

    const doc = (await s.call('/api/openapi.json')).body;
    const resolve = (node: any): any =>
      node?.$ref
        ? resolve(
            node.$ref
              .slice(2)
              .split('/')
              .reduce((at: any, part: string) => at?.[part], doc),
          )
        : node;
    const envelope = resolve(doc.webhooks['trust.score_changed'].post.requestBody.content['application/json'].schema);
    const parts = [envelope, ...((envelope.allOf ?? []) as unknown[]).map(resolve)];
    const data = resolve(parts.find((p) => p.properties?.data)!.properties.data);
    expect(Object.keys(data.properties).sort()).toEqual(['module', 'previous_score', 'reason', 'score']);
    expect(data.required.sort()).toEqual(['module', 'previous_score', 'reason', 'score']);
    expect(data.properties.reason.enum).toEqual(['certification', 'feedback', 'usage']);
  });

  it('GET /trust/{name} is answered while the tenant is rate-limited (exempt); feedback is not', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'free', 3);
    let limited = false;
    for (let i = 0; i < 10 && !limited; i++) limited = (await s.call('/api/v1/executions', { key: t.apiKey })).status === 429;
    expect(limited).toBe(true);
    expectError(await s.call('/api/v1/executions', { key: t.apiKey }), 429, 'rate_limit_exceeded');
    for (let i = 0; i < 3; i++) expect((await s.call('/api/v1/trust/text', { key: t.apiKey })).status).toBe(200);
    expectError(await rate(t.apiKey, 'text', { rating: 5 }), 429, 'rate_limit_exceeded');
  });
});
