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

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

interface Stream {
  status: number;
  /** The error body of a refusal. */
  body?: any;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  retry?: number;
  /** Resolves when the stream ends: `clean` when the server ended it (not a reset, not our abort). */
  ended: Promise<{ clean: boolean }>;
  waitFor(n: number): Promise<SseEvent[]>;
  close(): void;
}

/** An SSE client on fetch (no EventSource in Node): parses `id`, `event`, `data`, `retry` and comment lines. */
async function openStream(url: string, headers: Record<string, string>): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const stream: Stream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    ended: Promise.resolve({ clean: true }),
    waitFor: (n) => until(`${n} events`, async () => (stream.events.length >= n ? stream.events.slice(0, n) : undefined)),
    close: () => controller.abort(),
  };
  if (res.status !== 200) {
    stream.body = await res.json();
    return stream;
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  stream.ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { clean: true };
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data += (hasData ? '\n' : '') + line.slice(6);
              hasData = true;
            } else if (line.startsWith('retry: ')) stream.retry = Number(line.slice(7));
          }
          if (hasData) stream.events.push(event);
        }
      }
    } catch {
      return { clean: false };
    }
  })();
  return stream;
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

  describe('event stream', () => {
    const streams: Stream[] = [];
    const stream = async (key: string | undefined, query = '', headers: Record<string, string> = {}, base = s.url) => {
      const st = await openStream(`${base}/api/v1/events/stream${query}`, { ...(key ? { 'x-api-key': key } : {}), ...headers });
      streams.push(st);
      return st;
    };
    afterAll(() => streams.forEach((st) => st.close()));

    it('refuses before the stream starts with the JSON error format', async () => {
      const t = await proTenant();
      const refused = async (st: Stream, status: number, code: string) => {
        expect(st.status).toBe(status);
        expect(st.headers.get('content-type')).toMatch(/^application\/json/);
        expect(st.body.error).toBe(code);
        expect(st.body.request_id).toBe(st.headers.get('x-request-id'));
        return st.body;
      };
      await refused(await stream(undefined), 401, 'unauthorized');
      const free = await s.register();
      await refused(await stream(free.apiKey), 403, 'plan_required');
      const limited = await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'read', scopes: ['modules:read'] } });
      await refused(await stream(limited.body.api_key), 403, 'insufficient_scope');
      await refused(await stream(t.apiKey, '?events=execution.done'), 400, 'invalid_request');
      await refused(await stream(t.apiKey, '?colour=red'), 400, 'invalid_request');
      await refused(await stream(t.apiKey, '?after=nope'), 400, 'invalid_request');
      await refused(await stream(t.apiKey, '', { 'last-event-id': 'evt_nope' }), 400, 'invalid_request');
      const post = await s.call('/api/v1/events/stream', { key: t.apiKey, body: {} });
      expectError(post, 405, 'method_not_allowed');
      expect(post.headers.get('allow')).toBe('GET, OPTIONS');
    });

    it('streams live events; a reconnect with Last-Event-ID loses none and repeats none', async () => {
      const t = await proTenant();
      const produced: string[] = [];
      const first = await stream(t.apiKey, '?events=execution.completed');
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(first.headers.get('x-ratelimit-limit')).toBeTruthy();
      for (let i = 0; i < 3; i++) produced.push(await slugify(t.apiKey, `live ${i}`));
      const live = await first.waitFor(3);
      expect(first.retry).toBe(2000);
      for (const e of live) {
        expect(e.event).toBe('execution.completed');
        expect(e.id).toMatch(/^evt_/);
        const envelope = JSON.parse(e.data) as Envelope;
        expect(envelope).toMatchObject({ id: e.id, event: 'execution.completed' });
      }
      first.close();
      expect(await first.ended).toEqual({ clean: false });

      // Recorded while no stream is open, then a reconnect from the last id received.
      for (let i = 0; i < 3; i++) produced.push(await slugify(t.apiKey, `offline ${i}`));
      const second = await stream(t.apiKey, '?events=execution.completed', { 'last-event-id': live[2]!.id! });
      expect(second.status).toBe(200);
      await second.waitFor(3);
      produced.push(await slugify(t.apiKey, 'after reconnect'));
      await second.waitFor(4);
      const got = [...live, ...second.events];
      const ids = got.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      const executions = got.map((e) => (JSON.parse(e.data) as Envelope).data.execution_id as string);
      expect(executions).toEqual(produced);

      // ?after= an event id gives the history after it at once; without a filter, every kind.
      const history = await stream(t.apiKey, `?after=${live[0]!.id}`);
      const all = await history.waitFor(6);
      expect(all.map((e) => e.event)).toEqual(Array(6).fill('execution.completed'));
      expect(all.map((e) => e.id)).toEqual(ids.slice(1));
      second.close();
      history.close();
    });

    it('caps the streams a tenant holds open (429 beyond), per tenant', async () => {
      const t = await proTenant();
      const open: Stream[] = [];
      for (let i = 0; i < 5; i++) {
        const st = await stream(t.apiKey);
        expect(st.status).toBe(200);
        open.push(st);
      }
      const sixth = await stream(t.apiKey);
      expect(sixth.status).toBe(429);
      expect(sixth.body).toMatchObject({ error: 'concurrency_limit_exceeded', limit: 5 });
      expect(sixth.headers.get('retry-after')).toBe('5');
      const other = await proTenant();
      expect((await stream(other.apiKey)).status).toBe(200);
      open[0]!.close();
      // Once the server has seen the close, there is room again.
      await until('a free stream slot', async () => {
        const st = await stream(t.apiKey);
        if (st.status === 429) return undefined;
        expect(st.status).toBe(200);
        return st;
      });
      open.forEach((st) => st.close());
    });

    it.skipIf(backend !== 'postgres')('delivers events recorded by another instance; the stream cap spans instances', async () => {
      const b = await startTestServer({ backend, databaseUrl: s.config.databaseUrl, redis: true, env: { PUBLIC_BASE_URL } });
      try {
        const t = await proTenant();
        const onB = await stream(t.apiKey, '?events=execution.completed', {}, b.url);
        expect(onB.status).toBe(200);
        const id = await slugify(t.apiKey, 'on instance a');
        const [e] = await onB.waitFor(1);
        expect((JSON.parse(e!.data) as Envelope).data.execution_id).toBe(id);
        // The cap counts the tenant's streams on every instance (Redis): 1 on b + 4 on a, then 429 on either.
        for (let i = 0; i < 4; i++) expect((await stream(t.apiKey)).status).toBe(200);
        expect((await stream(t.apiKey, '', {}, b.url)).status).toBe(429);
        expect((await stream(t.apiKey)).status).toBe(429);
      } finally {
        // Its shutdown ends onB.
        await b.close();
      }
    });

    it('ends open streams cleanly when the server shuts down', async () => {
      const other = await startTestServer({ backend, env: { PUBLIC_BASE_URL } });
      let closed = false;
      try {
        const reg = await other.register();
        await other.setPlan(reg.tenantId, 'pro');
        const st = await stream(reg.apiKey, '', {}, other.url);
        expect(st.status).toBe(200);
        await until('the stream to start', async () => (st.comments.includes('connected') ? true : undefined));
        const closing = other.close().then(() => (closed = true));
        // The server ends the stream (a clean end of the chunked body), not the forced close of its connection.
        expect(await st.ended).toEqual({ clean: true });
        await closing;
      } finally {
        if (!closed) await other.close();
      }
    });
  });
});
