import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

const PUBLIC_BASE_URL = 'https://amp.example.com';

interface Envelope {
  id: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Waits until `check` answers a value (not undefined), polling; throws after `timeoutMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

backends.describe('Webhook polling and the event stream (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1', PUBLIC_BASE_URL } });
  });
  afterAll(async () => s?.close());

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro', 100_000);
    return t;
  }

  async function pollSubscription(key: string, events: string[] = ['execution.completed']) {
    const res = await s.call('/api/v1/webhooks', { key, body: { kind: 'poll', events } });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; kind: string; url: string | null };
  }

  async function slugify(key: string, text = 'Hello World'): Promise<string> {
    const res = await s.call('/api/v1/modules/text/execute', { key, body: { action: 'slugify', input: { text } } });
    expect(res.status, res.text).toBe(200);
    return res.body.execution_id as string;
  }

  const page = async (key: string, id: string, query = '') => {
    const res = await s.call(`/api/v1/webhooks/${id}/messages${query}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body as { data: Envelope[]; next_cursor: string; has_more: boolean };
  };

  describe('poll subscriptions', () => {
    it('are created without a URL; url is required for push and refused for poll', async () => {
      const t = await proTenant();
      const sub = await pollSubscription(t.apiKey);
      expect(sub.kind).toBe('poll');
      expect(sub.url).toBeNull();
      const push = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
      expect(push.status, push.text).toBe(201);
      expect(push.body.kind).toBe('push');

      const withUrl = expectError(
        await s.call('/api/v1/webhooks', { key: t.apiKey, body: { kind: 'poll', url: 'http://127.0.0.1:9/hook', events: ['*'] } }),
        400,
        'invalid_request',
      );
      expect(withUrl.issues[0].path).toBe('url');
      expect(
        expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { events: ['*'] } }), 400, 'invalid_request').issues[0].path,
      ).toBe('url');
      expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { kind: 'push', events: ['*'] } }), 400, 'invalid_request');
      expectError(await s.call('/api/v1/webhooks', { key: t.apiKey, body: { kind: 'pull', events: ['*'] } }), 400, 'invalid_request');
      expectError(
        await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { url: 'http://127.0.0.1:9/hook' } }),
        400,
        'invalid_request',
      );
      // Changing the kinds of a poll subscription is fine.
      const put = await s.call(`/api/v1/webhooks/${sub.id}`, { method: 'PUT', key: t.apiKey, body: { events: ['*'] } });
      expect(put.status, put.text).toBe(200);
      expect(put.body).toMatchObject({ kind: 'poll', url: null, events: ['*'] });
    });

    it('are never pushed: no deliveries, test send 400, replay 409; a push subscription cannot be polled (409)', async () => {
      const t = await proTenant();
      const sub = await pollSubscription(t.apiKey, ['*']);
      await slugify(t.apiKey);
      const events = await until('the events', async () => {
        const p = await page(t.apiKey, sub.id);
        return p.data.length >= 2 ? p.data : undefined;
      });
      expect(events.map((e) => e.event).sort()).toEqual(['execution.completed', 'module.installed']);
      const detail = await s.call(`/api/v1/webhooks/${sub.id}`, { key: t.apiKey });
      expect(detail.body.stats.total_deliveries).toBe(0);
      expect(detail.body.deliveries).toEqual([]);
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/test`, { method: 'POST', key: t.apiKey }), 400, 'invalid_request');
      expectError(
        await s.call(`/api/v1/webhooks/${sub.id}/replay`, { key: t.apiKey, body: { since: new Date(Date.now() - 60_000).toISOString() } }),
        409,
        'conflict',
      );
      const push = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
      expectError(await s.call(`/api/v1/webhooks/${push.body.id}/messages`, { key: t.apiKey }), 409, 'conflict');
    });

    it('is tenant-scoped (another tenant: 404), needs scope * and a webhook plan, validates after and limit', async () => {
      const t = await proTenant();
      const sub = await pollSubscription(t.apiKey);
      const other = await proTenant();
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/messages`, { key: other.apiKey }), 404, 'not_found');
      const free = await s.register();
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/messages`, { key: free.apiKey }), 403, 'plan_required');
      const limited = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'read', scopes: ['modules:read'] } });
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/messages`, { key: limited.body.api_key }), 403, 'insufficient_scope');
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/messages`), 401, 'unauthorized');
      for (const q of ['?limit=0', '?limit=501', '?limit=abc', '?after=garbage!', '?after=evt_nope', '?colour=red'])
        expectError(await s.call(`/api/v1/webhooks/${sub.id}/messages${q}`, { key: t.apiKey }), 400, 'invalid_request');
      // Another tenant's event id names no position of this tenant.
      await slugify(other.apiKey);
      const otherSub = await pollSubscription(other.apiKey);
      const theirs = await until('their event', async () => (await page(other.apiKey, otherSub.id)).data[0]);
      expectError(await s.call(`/api/v1/webhooks/${sub.id}/messages?after=${theirs.id}`, { key: t.apiKey }), 400, 'invalid_request');
      expect((await page(t.apiKey, sub.id, '?limit=500')).data).toEqual([]);
    });

    it('returns the envelope a push delivery sends, from an event id or from now', async () => {
      const t = await proTenant();
      const sub = await pollSubscription(t.apiKey);
      const first = await slugify(t.apiKey, 'One');
      const [one] = await until('the first event', async () => {
        const p = await page(t.apiKey, sub.id);
        return p.data.length === 1 ? p.data : undefined;
      });
      expect(one).toMatchObject({ event: 'execution.completed', data: { execution_id: first, output: { slug: 'one' } } });
      expect(one!.id).toMatch(/^evt_/);
      expect(Date.parse(one!.timestamp)).not.toBeNaN();

      const now = await page(t.apiKey, sub.id, '?after=now');
      expect(now.data).toEqual([]);
      const second = await slugify(t.apiKey, 'Two');
      const fromNow = await until('the event after now', async () => {
        const p = await page(t.apiKey, sub.id, `?after=${now.next_cursor}`);
        return p.data.length ? p.data : undefined;
      });
      expect(fromNow.map((e) => e.data.execution_id)).toEqual([second]);
      const afterFirst = await page(t.apiKey, sub.id, `?after=${one!.id}`);
      expect(afterFirst.data.map((e) => e.data.execution_id)).toEqual([second]);
      // An empty page gives its cursor back.
      const last = await page(t.apiKey, sub.id, `?after=${afterFirst.next_cursor}`);
      expect(last).toEqual({ data: [], next_cursor: afterFirst.next_cursor, has_more: false });
    });

    it('returns every message exactly once across pages while new ones are produced concurrently', async () => {
      const t = await proTenant();
      const sub = await pollSubscription(t.apiKey);
      const produced: string[] = [];
      for (let i = 0; i < 10; i++) produced.push(await slugify(t.apiKey, `before ${i}`));
      let producing = true;
      // Four clients executing at once while the pages are read.
      const producer = Promise.all(
        [0, 1, 2, 3].map(async (w) => {
          for (let i = 0; i < 15; i++) produced.push(await slugify(t.apiKey, `during ${w} ${i}`));
        }),
      ).finally(() => (producing = false));

      const seen: Envelope[] = [];
      let cursor: string | undefined;
      let pages = 0;
      const deadline = Date.now() + 60_000;
      while (producing || seen.length < produced.length) {
        if (Date.now() > deadline) throw new Error(`read ${seen.length} of ${produced.length}`);
        const p = await page(t.apiKey, sub.id, `?limit=7${cursor ? `&after=${cursor}` : ''}`);
        pages++;
        expect(p.data.length).toBeLessThanOrEqual(7);
        seen.push(...p.data);
        cursor = p.next_cursor;
        if (!p.has_more) await new Promise((r) => setTimeout(r, 10));
      }
      await producer;
      const tail = await page(t.apiKey, sub.id, `?after=${cursor}`);
      expect(tail.data).toEqual([]);
      expect(pages).toBeGreaterThan(1);
      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      const executions = seen.map((e) => e.data.execution_id as string);
      expect(new Set(executions).size).toBe(executions.length);
      expect([...executions].sort()).toEqual([...produced].sort());
      expect(seen.every((e) => e.event === 'execution.completed')).toBe(true);
      // Read again from the start in one page: the same events in the same order.
      const again = await page(t.apiKey, sub.id, '?limit=500');
      expect(again.data.map((e) => e.id)).toEqual(ids);
    });
  });
});
