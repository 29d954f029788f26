/**
 * The SDK's retries against a local node:http server that answers what each test needs (no
 * service): 429 then 200 honouring `Retry-After`, one `Idempotency-Key` on every attempt of a
 * write, network errors, and what is not retried.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Amp, AmpError, ConnectionError, NotFoundError, RateLimitError, ServerError, type RetryInfo } from '../../packages/sdk/src/index';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** `body` is sent as JSON; `text` as it is, as HTML (a proxy's or a captive portal's page). */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown; text?: string } | 'drop';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A server answering the `answers` in order (the last one again after that), recording each request. */
async function scripted(answers: Answer[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      if (answer === 'drop') {
        req.socket.destroy();
        return;
      }
      if (answer.text !== undefined) {
        res.writeHead(answer.status, { 'content-type': 'text/html', ...answer.headers });
        res.end(answer.text);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const rateLimited = (retryAfter: string): Answer => ({
  status: 429,
  headers: { 'retry-after': retryAfter, 'x-request-id': 'req_limited' },
  body: {
    error: 'rate_limit_exceeded',
    message: 'Too many requests.',
    request_id: 'req_limited',
    doc_url: 'http://x/docs/errors#rate_limit_exceeded',
    retry_after: 1,
  },
});
const executed = {
  status: 200,
  body: { execution_id: 'exe_1', module: 'text', action: 'slugify', status: 'success', output: { slug: 'a' } },
};

describe('SDK retries', () => {
  it('retries a 429 after its Retry-After, sending the same Idempotency-Key on both attempts', async () => {
    const { url, seen } = await scripted([rateLimited('1'), executed]);
    const retries: RetryInfo[] = [];
    const amp = new Amp({ apiKey: 'amp_test' }, { baseUrl: url, onRetry: (r) => retries.push(r) });
    const result = await amp.modules.execute('text', { action: 'slugify', input: { text: 'A' } });
    expect(result.output).toEqual({ slug: 'a' });
    expect(seen).toHaveLength(2);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^amp-sdk-[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(seen.map((s) => s.headers['x-api-key'])).toEqual(['amp_test', 'amp_test']);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, status: 429, retryAfter: 1, idempotencyKey: keys[0] });
    // Retry-After is a floor: the wait is at least 1 s (plus jitter).
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(retries[0]!.delayMs).toBeLessThan(1250);
  });

  it("keeps the caller's Idempotency-Key and a new call gets a new one", async () => {
    const { url, seen } = await scripted([rateLimited('0'), executed, executed]);
    const amp = new Amp({ bearerToken: 'tok', tenantId: 'tenant-2' }, { baseUrl: url });
    await amp.modules.execute('text', { action: 'slugify', input: {} }, { idempotencyKey: 'my-key-1' });
    await amp.modules.execute('text', { action: 'slugify', input: {} });
    expect(seen.map((s) => s.headers['idempotency-key']).slice(0, 2)).toEqual(['my-key-1', 'my-key-1']);
    expect(seen[2]!.headers['idempotency-key']).not.toBe('my-key-1');
    expect(seen[0]!.headers.authorization).toBe('Bearer tok');
    expect(seen[0]!.headers['x-tenant-id']).toBe('tenant-2');
    // Reads carry none.
    await amp.modules.get('text').catch(() => undefined);
    expect(seen[3]!.headers['idempotency-key']).toBeUndefined();
  });

  it('retries 503 and a dropped connection with backoff, then gives up after maxRetries with the last error', async () => {
    const unavailable: Answer = {
      status: 503,
      headers: { 'retry-after': '0' },
      body: { error: 'unavailable', message: 'Down.', request_id: 'r', doc_url: 'u' },
    };
    const { url, seen } = await scripted(['drop', unavailable, executed]);
    const retries: RetryInfo[] = [];
    const amp = new Amp({ apiKey: 'k' }, { baseUrl: url, initialRetryDelayMs: 10, onRetry: (r) => retries.push(r) });
    await expect(amp.modules.execute('text', { action: 'slugify' })).resolves.toMatchObject({ execution_id: 'exe_1' });
    expect(retries.map((r) => r.status)).toEqual([undefined, 503]);
    expect(retries[0]!.error).toBeInstanceOf(ConnectionError);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);

    const always = await scripted([rateLimited('0')]);
    const limited = new Amp({ apiKey: 'k' }, { baseUrl: always.url, maxRetries: 2 });
    const error = await limited.keys.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', requestId: 'req_limited', retryAfter: 0 });
    expect(always.seen).toHaveLength(3);
  });

  it("a 502 or 504 without the API's error body (a proxy's page) is `unavailable`; the API's own keeps its code", async () => {
    for (const status of [502, 504]) {
      const proxy = await scripted([{ status, text: '<html>Bad Gateway</html>' }]);
      const error = await new Amp({ apiKey: 'k' }, { baseUrl: proxy.url, maxRetries: 0 }).modules.get('text').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ status, code: 'unavailable' });
    }
    const api = await scripted([
      { status: 502, body: { error: 'module_error', message: 'The action failed.', request_id: 'req_1', doc_url: 'u' } },
    ]);
    const failed = await new Amp({ apiKey: 'k' }, { baseUrl: api.url, maxRetries: 0 }).modules.get('text').catch((e: unknown) => e);
    expect(failed).toMatchObject({ status: 502, code: 'module_error' });
  });

  it("the caller's mistakes are AmpErrors at once, never sent or retried: a base URL that is not http(s), a header value fetch cannot send", async () => {
    expect(() => new Amp({ apiKey: 'k' }, { baseUrl: 'localhost:3000' })).toThrow(AmpError);
    expect(() => new Amp({ apiKey: 'k' }, { baseUrl: 'not a url' })).toThrow(/baseUrl must be an http:\/\/ or https:\/\/ URL/);
    const server = await scripted([executed]);
    const amp = new Amp({ apiKey: 'k' }, { baseUrl: server.url });
    const refused = await amp.modules.execute('text', { action: 'slugify' }, { idempotencyKey: 'ключ' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AmpError);
    expect(refused).not.toBeInstanceOf(ConnectionError);
    expect((refused as Error).message).toMatch(/idempotency-key header cannot be sent/);
    expect(server.seen).toHaveLength(0);
  });

  it('a 2xx that is not JSON (a captive portal, the wrong host) is an AmpError naming the address', async () => {
    const portal = await scripted([{ status: 200, text: '<html>Sign in to the Wi-Fi</html>' }]);
    const error = await new Amp({ apiKey: 'k' }, { baseUrl: portal.url }).me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmpError);
    expect((error as Error).message).toContain(`GET ${portal.url}/api/v1/me answered 200 with a body that is not JSON`);
  });

  it('does not retry a 404, nor a 429 whose Retry-After is beyond the cap (a monthly quota)', async () => {
    const notFound = await scripted([
      { status: 404, body: { error: 'not_found', message: 'No such module.', request_id: 'req_1', doc_url: 'u' } },
    ]);
    const amp = new Amp({ apiKey: 'k' }, { baseUrl: notFound.url });
    await expect(amp.modules.get('nope')).rejects.toBeInstanceOf(NotFoundError);
    expect(notFound.seen).toHaveLength(1);

    const quota = await scripted([rateLimited('86400')]);
    const capped = new Amp({ apiKey: 'k' }, { baseUrl: quota.url, maxRetryDelayMs: 5_000 });
    await expect(capped.modules.execute('text', { action: 'slugify' })).rejects.toBeInstanceOf(RateLimitError);
    expect(quota.seen).toHaveLength(1);
  });
});
