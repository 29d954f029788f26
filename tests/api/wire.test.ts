import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('wire conventions (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('echoes a valid X-Request-Id and replaces an invalid one', async () => {
    const echoed = await s.call('/api/v1/health', { headers: { 'x-request-id': 'trace-123.abc_D' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123.abc_D');
    const replaced = await s.call('/api/v1/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]+$/);
    const missing = await s.call('/api/v1/nope');
    expect(missing.headers.get('x-request-id')).toBeTruthy();
    expect(missing.body.request_id).toBe(missing.headers.get('x-request-id'));
  });

  it('answers 401 with the error format when credentials are missing or invalid', async () => {
    const none = expectError(await s.call('/api/v1/keys'), 401, 'unauthorized');
    expect(none.message).toMatch(/x-api-key/);
    expectError(await s.call('/api/v1/keys', { key: 'amp_doesnotexist0000000000000000000000000' }), 401, 'unauthorized');
    expectError(await s.call('/api/v1/keys', { key: 'garbage' }), 401, 'unauthorized');
    expectError(await s.call('/api/v1/keys', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }), 401, 'unauthorized');
  });

  it('checks authentication before validation: bad body without a key is 401', async () => {
    expectError(await s.call('/api/v1/keys', { method: 'POST', rawBody: '{not json' }), 401, 'unauthorized');
  });

  it('checks scope and plan before validation', async () => {
    const t = await s.register();
    // free plan + invalid body: the plan check comes first
    expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: { bogus: true } }), 403, 'plan_required');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const big = JSON.stringify({ agent_name: 'x'.repeat(1024 * 1024), owner_email: 'big@example.com' });
    const res = await s.call('/api/v1/auth/register', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'payload_too_large');
  });

  it('credentials before size: a body over 1 MiB without a key is 401, with a valid key 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    expectError(await s.call('/api/v1/keys', { rawBody: big, headers: { 'content-type': 'application/json' } }), 401, 'unauthorized');
    const t = await s.register();
    const res = await s.call('/api/v1/agent/arm', { key: t.apiKey, rawBody: big, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'payload_too_large');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-execution-remaining')).toBe('1000');
  });

  it('a body that is present and not JSON is 400 on every endpoint, after authentication; nothing runs', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro'); // webhooks need pro: the plan check comes before the body
    const keys = await s.call('/api/v1/keys', { key: t.apiKey });
    const keyId = keys.body.data[0].key_id;
    // The truncated body must not rotate with no grace (the old secret would die at once).
    const rotate = expectError(
      await s.call(`/api/v1/keys/${keyId}/rotate`, { key: t.apiKey, rawBody: '{"grace_seconds":86400' }),
      400,
      'invalid_request',
    );
    expect(rotate.issues).toEqual([expect.objectContaining({ path: '' })]);
    expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/api/v1/agent/arm'],
      ['POST', '/api/v1/modules/text/install'],
      ['POST', '/api/v1/webhooks/wh_x/test'],
      ['POST', '/api/v1/webhooks/wh_x/enable'],
      ['DELETE', `/api/v1/keys/${keyId}`],
    ] as const) {
      expectError(await s.call(path, { method, key: t.apiKey, rawBody: '{not json' }), 400, 'invalid_request');
    }
    const installed = await s.call('/api/v1/modules/text', { key: t.apiKey });
    expect(installed.body.installed).toBe(false);
    // Without a credential the same requests are 401.
    expectError(await s.call('/api/v1/agent/arm', { rawBody: '{not json' }), 401, 'unauthorized');
  });

  it("answers the parser's protocol-level refusals in the error format with an X-Request-Id", async () => {
    const requests = [
      'FROB /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /api/v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'GET /api/v1/he\u0000alth HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/v1/he\u00ffalth HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /api/v1/auth/register HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      // No Host (HTTP/1.1 requires one), and CONNECT (this is no proxy).
      'GET /api/v1/keys HTTP/1.1\r\nConnection: close\r\n\r\n',
      'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
    ];
    for (const raw of requests) {
      const answer = await rawExchange(s.port, raw);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head, raw.slice(0, 40)).toMatch(/^HTTP\/1\.1 400 /);
      const requestId = /\r\nX-Request-Id: (\S+)/i.exec(head!)?.[1];
      expect(requestId).toMatch(/^req_/);
      expect(head).toMatch(/\r\nX-RateLimit-Limit: 600/i);
      expect(JSON.parse(body!)).toMatchObject({ error: 'invalid_request', message: expect.any(String), request_id: requestId });
    }
  });

  it('a request target that cannot be parsed as a URL is a 404 (not a crash); absolute-form works', async () => {
    const broken = await rawExchange(s.port, 'GET http://[/api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'not_found' });
    const absolute = await rawExchange(s.port, 'GET http://x/api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(absolute).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('logs one structured access line per API request at info, never a secret', async () => {
    const t = await s.register();
    // The harness runs silent; access lines exist from `info` on.
    const level = s.svc.logger.level;
    s.svc.logger.level = 'info';
    const spy = vi.spyOn(s.svc.logger, 'info').mockImplementation(() => undefined);
    try {
      const ok = await s.call('/api/v1/keys?limit=5', { key: t.apiKey, headers: { 'x-request-id': 'trace-access-1' } });
      const missing = await s.call('/api/v2/secret-in-path', { key: t.apiKey, headers: { 'x-request-id': 'trace-access-2' } });
      const denied = await s.call('/api/v1/keys', {
        key: 'amp_wrongwrongwrongwrongwrongwrongwrong',
        headers: { 'x-request-id': 'trace-access-3' },
      });
      const mcp = await s.call('/api/mcp', {
        key: t.apiKey,
        headers: { 'x-request-id': 'trace-access-4', accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
      await new Promise((r) => setTimeout(r, 50)); // the line is written when the response finishes
      const lines = spy.mock.calls.filter((c) => c[1] === 'request').map((c) => c[0] as Record<string, unknown>);
      const of = (id: string) => lines.filter((l) => l.request_id === id);
      expect(of('trace-access-1')).toEqual([
        {
          method: 'GET',
          path: '/api/v1/keys',
          status: ok.status,
          latency_ms: expect.any(Number),
          request_id: 'trace-access-1',
          tenant_id: t.tenantId,
        },
      ]);
      expect(of('trace-access-2')).toEqual([
        expect.objectContaining({ method: 'GET', path: null, status: missing.status, tenant_id: t.tenantId }),
      ]);
      expect(of('trace-access-3')).toEqual([expect.objectContaining({ path: '/api/v1/keys', status: denied.status, tenant_id: null })]);
      expect(of('trace-access-4')).toEqual([
        expect.objectContaining({ method: 'POST', path: '/api/mcp', status: mcp.status, tenant_id: t.tenantId }),
      ]);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(t.apiKey);
      expect(text).not.toContain('amp_wrong');
      expect(text).not.toContain('secret-in-path');

      // Below `info` no line is built at all.
      s.svc.logger.level = 'warn';
      spy.mockClear();
      await s.call('/api/v1/keys?limit=5', { key: t.apiKey, headers: { 'x-request-id': 'trace-access-5' } });
      await new Promise((r) => setTimeout(r, 50));
      expect(spy.mock.calls.filter((c) => c[1] === 'request')).toEqual([]);
    } finally {
      spy.mockRestore();
      s.svc.logger.level = level;
    }
  });

  it('answers 405 with Allow for a known path and the wrong method, 404 for unknown paths', async () => {
    const res = await s.call('/api/v1/auth/register', { method: 'GET' });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('POST');
    expectError(await s.call('/api/v1/does-not-exist'), 404, 'not_found');
    expectError(await s.call('/api/v1/keys/key_x/rotate', { method: 'GET' }), 405, 'method_not_allowed');
  });

  it('refuses unknown query parameters, __proto__ included (never taken as a prototype)', async () => {
    const t = await s.register();
    for (const query of ['?limit=1&colour=red', '?__proto__=1', '?__proto__[limit]=1', '?constructor=x']) {
      const res = expectError(await s.call(`/api/v1/keys${query}`, { key: t.apiKey }), 400, 'invalid_request');
      expect(JSON.stringify(res.issues)).not.toContain('stack');
    }
  });

  it('answers CORS preflights for any origin without credentials', async () => {
    const res = await fetch(`${s.url}/api/v1/keys`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-api-key/i);
    // A browser app of a user in several tenants names one.
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-tenant-id/i);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('reports the tenant pool on authenticated responses', async () => {
    const t = await s.register();
    const res = await s.call('/api/v1/keys', { key: t.apiKey });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(60);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
  });

  it('never leaks internals: no stack traces or SQL in error bodies', async () => {
    const res = await s.call('/api/v1/keys/%E0%A4%A', { method: 'DELETE', key: (await s.register()).apiKey });
    expect([400, 404]).toContain(res.status);
    expect(res.text).not.toMatch(/at .*\.ts:|select |insert /i);
  });
});

/** Sends bytes as they are on a fresh connection and returns everything the server answers. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Written without half-closing, as a client waiting for its answer does; the server closes.
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from(bytes, 'latin1')));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('admin API', () => {
  it('is 404 when ADMIN_TOKEN is unset', async () => {
    const s = await startTestServer({ env: { ADMIN_TOKEN: undefined } });
    try {
      expectError(await s.call('/api/v1/admin/tenants', { headers: { 'x-admin-token': 'anything-at-all-123' } }), 404, 'not_found');
    } finally {
      await s.close();
    }
  });

  describe('with ADMIN_TOKEN', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer();
    });
    afterAll(async () => s?.close());

    it('refuses a wrong or missing token with 401', async () => {
      expectError(await s.call('/api/v1/admin/tenants'), 401, 'unauthorized');
      expectError(await s.call('/api/v1/admin/tenants', { headers: { 'x-admin-token': 'wrong' } }), 401, 'unauthorized');
    });

    it('checks the token before the body: wrong token and bad body is 401, right token and bad body 400', async () => {
      const path = '/api/v1/admin/webhooks/wh_x/enable';
      expectError(await s.call(path, { method: 'POST', rawBody: '{bad', headers: { 'x-admin-token': 'wrong' } }), 401, 'unauthorized');
      expectError(await s.call(path, { method: 'POST', rawBody: '{bad' }), 401, 'unauthorized');
      expectError(
        await s.call(path, { method: 'POST', rawBody: '{bad', headers: { 'x-admin-token': ADMIN_TOKEN } }),
        400,
        'invalid_request',
      );
    });

    it('lists tenants and changes a plan with a request-limit override', async () => {
      const t = await s.register();
      const list = await s.call('/api/v1/admin/tenants?limit=100', { headers: { 'x-admin-token': ADMIN_TOKEN } });
      expect(list.status).toBe(200);
      expect(list.body.data.map((x: any) => x.tenant_id)).toContain(t.tenantId);

      const changed = await s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, {
        method: 'PUT',
        headers: { 'x-admin-token': ADMIN_TOKEN },
        body: { plan: 'enterprise', requests_per_minute: 12_000 },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ plan: 'enterprise', requests_per_minute: 12_000, limits: { executions_per_month: null } });
      const keys = await s.call('/api/v1/keys', { key: t.apiKey });
      expect(keys.headers.get('x-ratelimit-limit')).toBe('12000');

      expectError(
        await s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, {
          method: 'PUT',
          headers: { 'x-admin-token': ADMIN_TOKEN },
          body: { plan: 'gold' },
        }),
        400,
        'invalid_request',
      );
      expectError(
        await s.call('/api/v1/admin/tenants/00000000-0000-4000-8000-000000000000/plan', {
          method: 'PUT',
          headers: { 'x-admin-token': ADMIN_TOKEN },
          body: { plan: 'pro' },
        }),
        404,
        'not_found',
      );
    });
  });
});
