import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { EVENT_EXAMPLES } from '../../src/contract/event-examples';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, TEST_EVENT_DATA_SCHEMA } from '../../src/contract/events';
import { webhookSubscriptions } from '../../src/db/schema';
import { purgeOldRecords } from '../../src/events/retention';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver, verifySignature, type Received, type Receiver } from '../receiver';

const SCHEDULE = [0, 40, 80, 120];

/** The event catalog, test sends of any kind, custom headers and secret rotation with an overlap (docs/webhooks.md). */
backends.describe('Webhook controls (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','), WEBHOOK_TIMEOUT_MS: '2000' },
    });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  async function receiver() {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    return t;
  }

  async function subscribe(key: string, body: Record<string, unknown>) {
    const res = await s.call('/api/v1/webhooks', { key, body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; secret: string; headers: Record<string, string>; previous_secret_expires_at: string | null };
  }

  async function sendTest(key: string, id: string, body?: Record<string, unknown>) {
    const res = await s.call(`/api/v1/webhooks/${id}/test`, { method: 'POST', key, ...(body ? { body } : {}) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.delivered, res.text).toBe(true);
    return res.body as { event_id: string };
  }

  const byEventId = (r: Receiver, id: string) => r.received.find((x) => x.body?.id === id)!;
  const verifies = (secret: string, got: Received, opts?: { format: 'raw' }) => {
    try {
      new Webhook(secret, opts).verify(got.raw.toString('utf8'), got.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };

  it('the catalog lists every event kind with a description, the OpenAPI schema of its data and an example that validates', async () => {
    // Any authenticated key reads it, whatever its plan and scopes; no credential is 401.
    const free = await s.register();
    const res = await s.call('/api/v1/webhooks/event-types', { key: free.apiKey });
    expect(res.status, res.text).toBe(200);
    const entries = res.body.data as { type: string; description: string; subscribable: boolean; schema: object; example: object }[];
    expect(entries.map((e) => e.type)).toEqual([...EVENT_TYPES, 'webhook.test']);
    expectError(await s.call('/api/v1/webhooks/event-types'), 401, 'unauthorized');
    const pro = await proTenant();
    const narrow = await s.call('/api/v1/keys', { key: pro.apiKey, body: { name: 'read', scopes: ['modules:read'] } });
    expect(narrow.status, narrow.text).toBe(201);
    const viaNarrow = await s.call('/api/v1/webhooks/event-types', { key: narrow.body.api_key });
    expect(viaNarrow.status).toBe(200);
    expect(viaNarrow.body).toEqual(res.body);

    const doc = (await s.call('/api/openapi.json')).body;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    for (const entry of entries) {
      const zodSchema =
        entry.type === 'webhook.test' ? TEST_EVENT_DATA_SCHEMA : EVENT_DATA_SCHEMAS[entry.type as keyof typeof EVENT_DATA_SCHEMAS];
      expect(entry.description, entry.type).toBe(zodSchema.description);
      expect(entry.description.length).toBeGreaterThan(10);
      expect(entry.subscribable).toBe(entry.type !== 'webhook.test');
      // The same JSON Schema as the OpenAPI document's `webhooks` section refers to.
      const ref = doc.webhooks[entry.type].post.requestBody.content['application/json'].schema.properties.data.$ref as string;
      expect(entry.schema, entry.type).toEqual(doc.components.schemas[ref.split('/').pop()!]);
      // The example is valid against both the zod schema and the served JSON Schema.
      expect(zodSchema.safeParse(entry.example).success, entry.type).toBe(true);
      // Served open (a receiver accepts members added later); closed here, so an example holds only documented members.
      expect(JSON.stringify(entry.schema), entry.type).not.toContain('"additionalProperties":false');
      const validate = ajv.compile(closed(entry.schema) as object);
      expect(validate(entry.example), `${entry.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    // Every kind of src/contract/events.ts has its example beside the schemas.
    for (const kind of EVENT_TYPES) expect(EVENT_EXAMPLES[kind], kind).toBeTypeOf('object');
  });

  it('a test send of a chosen kind carries its catalog example, marked as a test; the default is webhook.test', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['module.installed'] });
    const catalog = (await s.call('/api/v1/webhooks/event-types', { key: t.apiKey })).body.data as { type: string; example: object }[];

    for (const kind of ['billing.invoice_created', 'execution.failed'] as const) {
      const res = await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey, body: { event_type: kind } });
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['delivered', 'delivery_id', 'error', 'event_id', 'latency_ms', 'status_code']);
      expect(res.body).toMatchObject({ delivered: true, status_code: 200, error: null });
      const got = byEventId(r, res.body.event_id);
      expect(got.body).toEqual({
        id: res.body.event_id,
        event: kind,
        timestamp: expect.any(String),
        data: catalog.find((e) => e.type === kind)!.example,
        test: true,
      });
      expect(got.headers['x-webhook-test']).toBe('1');
      expect(got.headers['x-webhook-event']).toBe(kind);
      expect(verifies(sub.secret, got)).toBe(true);
      expect(verifySignature(sub.secret, got.raw, got.headers['x-webhook-signature'])).toBe(true);
    }
    // No body: webhook.test, marked the same way.
    const plain = await sendTest(t.apiKey, sub.id);
    const got = byEventId(r, plain.event_id);
    expect(got.body).toMatchObject({ event: 'webhook.test', test: true, data: { subscription_id: sub.id, tenant_id: t.tenantId } });
    expect(got.headers['x-webhook-test']).toBe('1');
    const history = (await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey })).body;
    expect(history.deliveries.map((d: { event: string; kind: string }) => [d.event, d.kind])).toEqual([
      ['webhook.test', 'test'],
      ['execution.failed', 'test'],
      ['billing.invoice_created', 'test'],
    ]);
    expect(history.stats.total_deliveries).toBe(0);

    const bad = expectError(
      await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey, body: { event_type: 'execution.done' } }),
      400,
      'invalid_request',
    );
    expect(bad.message).toMatch(/execution\.done/);
    expectError(
      await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey, body: { event_type: 'webhook.test', x: 1 } }),
      400,
      'invalid_request',
    );
    expect(r.received).toHaveLength(3);
  });

  it('custom headers arrive on every delivery and test send; names the platform sets, bad names and values, too many are 400', async () => {
    const t = await proTenant();
    const r = await receiver();
    const headers = { Authorization: 'Bearer receiver-token-123', 'X-Tenant-Ref': 'acme  42\tok' };
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'], headers });
    expect(sub.headers).toEqual(headers);
    expect((await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey })).body.headers).toEqual(headers);
    expect((await s.call('/api/v1/webhooks', { key: t.apiKey })).body.data[0].headers).toEqual(headers);

    const exec = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Hi there' } } });
    expect(exec.status, exec.text).toBe(200);
    const [delivered] = await r.waitFor(1, { filter: (x) => x.body?.event === 'execution.completed' });
    expect(delivered!.headers.authorization).toBe('Bearer receiver-token-123');
    expect(delivered!.headers['x-tenant-ref']).toBe('acme  42\tok');
    expect(delivered!.headers['x-webhook-test']).toBeUndefined();
    expect(delivered!.headers['content-type']).toBe('application/json');
    expect(verifies(sub.secret, delivered!)).toBe(true);

    const test = await sendTest(t.apiKey, sub.id);
    expect(byEventId(r, test.event_id).headers.authorization).toBe('Bearer receiver-token-123');

    // PUT replaces the set; {} removes it.
    const put = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { headers: { 'X-Only': 'one' } } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.headers).toEqual({ 'X-Only': 'one' });
    const second = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
    expect(second.headers['x-only']).toBe('one');
    expect(second.headers.authorization).toBeUndefined();
    const cleared = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { headers: {} } });
    expect(cleared.body.headers).toEqual({});

    const refused: Record<string, string>[] = [
      ...[
        'Content-Type',
        'content-length',
        'Host',
        'User-Agent',
        'Connection',
        'Transfer-Encoding',
        'webhook-signature',
        'Webhook-Id',
        'X-Webhook-Signature',
        'x-webhook-test',
        'traceparent',
      ].map((name) => ({ [name]: 'x' })),
      { 'bad name': 'x' },
      { 'X-Colon:': 'x' },
      { '': 'x' },
      { 'X-Injected': 'a\r\nX-Evil: 1' },
      { 'X-Lf': 'a\nb' },
      { 'X-Unicode': 'caf\u00e9' },
      { 'X-Same': 'a', 'x-same': 'b' },
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])),
      { 'X-Big-1': 'v'.repeat(2100), 'X-Big-2': 'v'.repeat(2100) },
    ];
    for (const body of refused) {
      const created = expectError(
        await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], headers: body } }),
        400,
        'invalid_request',
      );
      expect(created.issues.length, JSON.stringify(body)).toBeGreaterThan(0);
      expectError(
        await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { headers: body } }),
        400,
        'invalid_request',
      );
    }
    const reserved = expectError(
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], headers: { 'X-Webhook-Id': 'x' } } }),
      400,
      'invalid_request',
    );
    expect(reserved.issues[0].message).toMatch(/set by the platform/);
    expectError(
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: r.url, events: ['*'], headers: { 'X-Num': 1 } } }),
      400,
      'invalid_request',
    );
    // Nothing refused was stored.
    expect((await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey })).body.headers).toEqual({});
    expect((await s.call('/api/v1/webhooks', { key: t.apiKey })).body.data).toHaveLength(1);
  });

  it('rotation with an overlap: both secrets verify during it, only the new one after; PUT secret and overlap 0 replace at once', async () => {
    const t = await proTenant();
    const r = await receiver();
    const sub = await subscribe(t.apiKey, { url: r.url, events: ['execution.completed'] });
    const first = sub.secret;
    expect(sub.previous_secret_expires_at).toBeNull();

    const rotated = await s.call(`/api/v1/webhooks/${sub.id}/rotate-secret`, { key: t.apiKey, body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    const second = rotated.body.secret as string;
    expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(second).not.toBe(first);
    // Default overlap: 24 hours.
    const expires = Date.parse(rotated.body.previous_secret_expires_at);
    expect(Math.abs(expires - Date.now() - 86_400_000)).toBeLessThan(60_000);
    const view = (await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey })).body;
    expect(view.secret).toBe(`…${second.slice(-4)}`);
    expect(view.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);

    // A real event during the overlap: two signatures; a receiver holding either secret verifies.
    const exec = await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'Rotate' } } });
    expect(exec.status, exec.text).toBe(200);
    const [event] = await r.waitFor(1, { filter: (x) => x.body?.event === 'execution.completed' });
    expect(String(event!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(first, event!)).toBe(true);
    expect(verifies(second, event!)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, event!)).toBe(false);
    // X-Webhook-Signature: the new secret's only.
    expect(verifySignature(second, event!.raw, event!.headers['x-webhook-signature'])).toBe(true);
    expect(verifySignature(first, event!.raw, event!.headers['x-webhook-signature'])).toBe(false);
    const duringTest = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
    expect(verifies(first, duringTest) && verifies(second, duringTest)).toBe(true);

    // A short overlap, with a chosen (raw) secret: the second secret signs until it expires.
    const third = 'my-own-receiver-secret-3';
    const short = await s.call(`/api/v1/webhooks/${sub.id}/rotate-secret`, {
      key: t.apiKey,
      body: { secret: third, overlap_seconds: 1 },
    });
    expect(short.status, short.text).toBe(200);
    expect(short.body.secret).toBe(third);
    const overlapping = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
    if (String(overlapping.headers['webhook-signature']).includes(' ')) {
      expect(verifies(second, overlapping)).toBe(true);
      expect(verifies(third, overlapping, { format: 'raw' })).toBe(true);
    }
    expect(verifies(first, overlapping)).toBe(false);
    // Wait (on the condition, not a clock) until a send carries one signature.
    let after: Received | undefined;
    for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
      const got = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
      if (!String(got.headers['webhook-signature']).includes(' ')) {
        after = got;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(after, 'the overlap never ended').toBeDefined();
    expect(verifies(third, after!, { format: 'raw' })).toBe(true);
    expect(verifies(second, after!)).toBe(false);
    expect(verifySignature(third, after!.raw, after!.headers['x-webhook-signature'])).toBe(true);
    expect((await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey })).body.previous_secret_expires_at).toBeNull();
    // The expired secret is gone from the database, not only unused.
    const [row] = await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
    expect(row!.previousSecretEncrypted).toBeNull();
    expect(row!.previousSecretExpiresAt).toBeNull();
    // A real event after the overlap: one signature too.
    await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'slugify', input: { text: 'After' } } });
    const events = await r.waitFor(2, { filter: (x) => x.body?.event === 'execution.completed' });
    expect(String(events[1]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(third, events[1]!, { format: 'raw' })).toBe(true);

    // PUT {secret} during an overlap replaces at once: the rotated-out secret stops too.
    const fourth = (await s.call(`/api/v1/webhooks/${sub.id}/rotate-secret`, { key: t.apiKey, body: {} })).body.secret as string;
    const fifth = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;
    const put = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { secret: fifth } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.previous_secret_expires_at).toBeNull();
    const replaced = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
    expect(String(replaced.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(fifth, replaced)).toBe(true);
    expect(verifies(fourth, replaced)).toBe(false);

    // overlap_seconds 0: at once.
    const sixth = await s.call(`/api/v1/webhooks/${sub.id}/rotate-secret`, { key: t.apiKey, body: { overlap_seconds: 0 } });
    expect(sixth.body.previous_secret_expires_at).toBeNull();
    const immediate = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
    expect(verifies(sixth.body.secret, immediate)).toBe(true);
    expect(verifies(fifth, immediate)).toBe(false);

    // Invalid input, and another tenant's subscription.
    for (const body of [
      { overlap_seconds: 7 * 86_400 + 1 },
      { overlap_seconds: -1 },
      { overlap_seconds: 1.5 },
      { secret: 'short' },
      { x: 1 },
    ]) {
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/rotate-secret`, { key: t.apiKey, body }), 400, 'invalid_request');
    }
    const other = await proTenant();
    expectError(await s.call(`/api/v1/webhooks/${sub.id}/rotate-secret`, { key: other.apiKey, body: {} }), 404, 'not_found');
    // The secret shown is still the one that signs.
    const last = byEventId(r, (await sendTest(t.apiKey, sub.id)).event_id);
    expect(verifies(sixth.body.secret, last)).toBe(true);

    // A subscription nothing is sent to: the hourly retention job forgets its expired old secret.
    const idle = await subscribe(t.apiKey, { url: r.url, events: ['certification.completed'] });
    await s.call(`/api/v1/webhooks/${idle.id}/rotate-secret`, { key: t.apiKey, body: { overlap_seconds: 1 } });
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      if ((await s.call(`/api/v1/webhooks/${idle.id}`, { key: t.apiKey })).body.previous_secret_expires_at === null) break;
    }
    await purgeOldRecords(s.svc);
    const [idleRow] = await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, idle.id));
    expect(idleRow!.previousSecretEncrypted).toBeNull();
  });
});

/** `schema` with every object that names its members closed to others (`additionalProperties: false`). */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  return 'properties' in copy && !('additionalProperties' in copy) ? { ...copy, additionalProperties: false } : copy;
}
