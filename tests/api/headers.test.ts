/**
 * docs/decisions.md, Headers and pools: X-RateLimit-Limit, -Remaining, -Reset, X-Execution-Remaining
 * and X-Request-Id on every API response. A request with a valid credential reports its tenant's
 * pool and executions left on every status; one without (or with an invalid one) reports the
 * client IP's public pool (600) and no X-Execution-Remaining. Walks every route of the route
 * table, plus unknown paths, wrong methods, oversize and malformed bodies, preflights and
 * discovery documents.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RouteTable } from '../../src/server/http/routes';
import { appRouter } from '../../src/server/router';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../harness';

const TENANT_LIMIT = '100000';
const PUBLIC_LIMIT = '600';
const routes = new RouteTable(appRouter).all();
const OVER_1_MIB = `{"pad":"${'x'.repeat(1024 * 1024)}"}`;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

type Who = 'tenant' | 'public';

/** The five headers, for the tenant's pool or the client IP's public one. */
function expectHeaders(res: Answer, who: Who, what: string, errorFormat = true) {
  const label = `${what} -> ${res.status} ${res.text.slice(0, 200)}`;
  const h = res.headers;
  expect(h.get('x-request-id'), label).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  expect(h.get('x-ratelimit-limit'), label).toBe(who === 'tenant' ? TENANT_LIMIT : PUBLIC_LIMIT);
  expect(h.get('x-ratelimit-remaining'), label).toMatch(/^\d+$/);
  expect(Number(h.get('x-ratelimit-reset')), label).toBeGreaterThan(Date.now() / 1000 - 5);
  if (who === 'tenant') expect(h.get('x-execution-remaining'), label).toMatch(/^\d+$/);
  else expect(h.get('x-execution-remaining'), label).toBeNull();
  if (errorFormat && res.status >= 400 && res.headers.get('content-type')?.includes('json')) {
    const body = JSON.parse(res.text);
    if (!('jsonrpc' in body))
      expect(body, label).toMatchObject({ error: expect.any(String), message: expect.any(String), request_id: h.get('x-request-id') });
  }
}

/** A path from a template, every parameter filled with a plausible id that does not exist. */
function concrete(template: string): string {
  return template.replace(/\{(.+?)\}/g, (_, name: string) =>
    name === 'tenant_id' ? '00000000-0000-4000-8000-000000000000' : name === 'module' || name === 'name' ? 'no-such-module' : `${name}_x`,
  );
}

/** Any request, sent as is: GET bodies included (fetch cannot send one), paths not normalised. */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const { host, pathname } = /^http:\/\/(?<host>[^/]+)(?<pathname>.*)$/.exec(url)!.groups!;
  const [hostname, port] = host!.split(':');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port: Number(port),
        path: pathname,
        method,
        headers:
          body === undefined
            ? headers
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode!, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    // The server may answer (413) and close before the whole body is sent.
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

backends.describe('headers on every API response (%s)', (backend) => {
  let s: TestServer;
  let key: string;
  const creds = (who: Who | 'invalid'): Record<string, string> =>
    who === 'tenant' ? { 'x-api-key': key } : who === 'invalid' ? { 'x-api-key': 'amp_invalidinvalidinvalidinvalidinvalid00' } : {};

  beforeAll(async () => {
    s = await startTestServer({ backend });
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro', Number(TENANT_LIMIT));
    key = t.apiKey;
  });
  afterAll(async () => s?.close());

  it(`walks all ${routes.length} routes of the route table with and without a credential`, async () => {
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      const path = concrete(route.template);
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}';
      for (const who of ['tenant', 'public', 'invalid'] as const) {
        const res = await raw(s.url + path, route.method, creds(who), body);
        expectHeaders(res, who === 'tenant' ? 'tenant' : 'public', `${route.method} ${route.template} (${who})`);
      }
      // The admin token is no tenant credential: an operator call reports the public pool.
      if (route.template.startsWith('/api/v1/admin/')) {
        expectHeaders(
          await raw(s.url + path, route.method, { 'x-admin-token': ADMIN_TOKEN }, body),
          'public',
          `${route.method} ${route.template} (admin)`,
        );
      }
      // A method the path does not take: 405, same headers.
      const wrong = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !routes.some((r) => r.method === m && r.pattern.test(path)))!;
      for (const who of ['tenant', 'public'] as const) {
        const res = await raw(s.url + path, wrong, creds(who));
        expect(res.status, `${wrong} ${path}`).toBe(405);
        expectHeaders(res, who, `${wrong} ${route.template} (${who})`);
      }
    }
  });

  it('oversize and malformed bodies: 413 / 400 after authentication, with the headers', async () => {
    for (const route of routes) {
      const path = concrete(route.template);
      const res = await raw(s.url + path, route.method, creds('tenant'), OVER_1_MIB);
      expectHeaders(res, 'tenant', `${route.method} ${route.template} (1 MiB + body)`);
      const bad = await raw(s.url + path, route.method, creds('tenant'), '{"grace_seconds":86400');
      expectHeaders(bad, 'tenant', `${route.method} ${route.template} (malformed body)`);
      // 400 on every method, after authentication, scope and plan (admin routes: the admin token
      // first; a signed-in user's operations (linking a key, accepting an invitation or an
      // ownership offer, deleting the account): the user's bearer token first, which an API key is not).
      const ownCredential = route.template.startsWith('/api/v1/admin/') || route.meta.bearerOnly === true;
      expect(bad.status, `${route.method} ${route.template} (malformed body)`).toBe(ownCredential ? 401 : 400);
      expect(res.status, `${route.method} ${route.template} (1 MiB + body)`).toBe(ownCredential ? 401 : 413);
    }
    // A valid key and a body over 1 MiB: 413 with the tenant's pool.
    const big = await raw(`${s.url}/api/v1/keys`, 'POST', creds('tenant'), OVER_1_MIB);
    expect(big.status).toBe(413);
    // Without a credential it is 401 (credentials before size), with the public pool.
    const anon = await raw(`${s.url}/api/v1/keys`, 'POST', {}, OVER_1_MIB);
    expect(anon.status).toBe(401);
    expectHeaders(anon, 'public', 'POST /api/v1/keys (no key, 1 MiB + body)');
  });

  it('unknown paths under /api/ answer a JSON 404 with the headers, never Next', async () => {
    const unknown = [
      '/api/v2/modules',
      '/api/v1/nope',
      '/api/v1/%2e%2e/health',
      '/api/v1/./health',
      '/api',
      '/api/',
      '/api/nope',
      '/.well-known/nope',
      '/api/v1/keys/a/b/c',
    ];
    for (const path of unknown) {
      for (const who of ['tenant', 'public', 'invalid'] as const) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          const res = await raw(s.url + path, method, creds(who), method === 'POST' ? '{}' : undefined);
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(JSON.parse(res.text).error).toBe('not_found');
          expectHeaders(res, who === 'tenant' ? 'tenant' : 'public', `${method} ${path} (${who})`);
        }
      }
    }
  });

  it('without the dashboard mounted, any other path is a JSON 404 with the headers; so is an unknown /oauth/ path', async () => {
    for (const path of ['/', '/nope', '/favicon.ico', '/API/V1/health', '/oauth/nope', '/oauth/authorize-not']) {
      for (const who of ['tenant', 'public'] as const) {
        const res = await raw(s.url + path, 'GET', creds(who));
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        expect(JSON.parse(res.text).error, path).toBe('not_found');
        expectHeaders(res, who, `GET ${path} (${who})`);
      }
    }
  });

  it('unknown routes with a valid key report the tenant pool without consuming it', async () => {
    const before = await raw(`${s.url}/api/v2/anything`, 'GET', creds('tenant'));
    const after = await raw(`${s.url}/api/v1/nothing-here`, 'PATCH', creds('tenant'));
    expect(after.headers.get('x-ratelimit-remaining')).toBe(before.headers.get('x-ratelimit-remaining'));
  });

  it('preflights, discovery documents, health and the MCP Origin refusal', async () => {
    const paths = ['/api/v1/keys', '/api/v1/health', '/api/mcp', '/api/v2/x', '/api/openapi.json', '/api/trpc/keys.list'];
    for (const path of paths) {
      for (const who of ['tenant', 'public', 'invalid'] as const) {
        const res = await raw(s.url + path, 'OPTIONS', {
          ...creds(who),
          origin: 'https://agent.example',
          'access-control-request-method': 'POST',
        });
        expect(res.status).toBe(204);
        expectHeaders(res, who === 'tenant' ? 'tenant' : 'public', `OPTIONS ${path} (${who})`);
      }
    }
    const documents = [
      '/api/openapi.json',
      '/openapi.json',
      '/api/llms.txt',
      '/.well-known/agent.json',
      '/.well-known/agent-card.json',
      '/api/v1/health',
    ];
    for (const path of documents) {
      for (const who of ['tenant', 'public', 'invalid'] as const) {
        const res = await raw(s.url + path, 'GET', creds(who));
        expect(res.status, path).toBe(200);
        expectHeaders(res, who === 'tenant' ? 'tenant' : 'public', `GET ${path} (${who})`);
        const wrong = await raw(s.url + path, 'DELETE', creds(who));
        expect(wrong.status, `DELETE ${path}`).toBe(405);
        expectHeaders(wrong, who === 'tenant' ? 'tenant' : 'public', `DELETE ${path} (${who})`);
      }
    }
    for (const path of ['/api/mcp', '/api/a2a']) {
      for (const who of ['tenant', 'public'] as const) {
        const res = await raw(s.url + path, 'GET', creds(who));
        expect(res.status, `GET ${path}`).toBe(405);
        expectHeaders(res, who, `GET ${path} (${who})`);
      }
    }
    for (const who of ['tenant', 'public'] as const) {
      const refused = await raw(
        `${s.url}/api/mcp`,
        'POST',
        { ...creds(who), origin: 'https://evil.example', accept: 'application/json, text/event-stream' },
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      );
      expect(refused.status).toBe(403);
      expectHeaders(refused, who, `MCP Origin refusal (${who})`);
    }
  });

  it('/api/trpc: procedures, unknown procedures and wrong methods', async () => {
    const cases: [string, string, string | undefined][] = [
      ['GET', '/api/trpc/keys.list', undefined],
      ['GET', '/api/trpc/health.check', undefined],
      ['GET', '/api/trpc/no.such.procedure', undefined],
      ['POST', '/api/trpc/no.such.procedure', '{}'],
      ['GET', '/api/trpc/keys.create', undefined],
      ['POST', '/api/trpc/keys.list', '{}'],
      ['PUT', '/api/trpc/keys.list', '{}'],
      ['GET', '/api/trpc/keys.list,no.such', undefined],
    ];
    for (const [method, path, body] of cases) {
      for (const who of ['tenant', 'public', 'invalid'] as const) {
        const res = await raw(s.url + path, method, creds(who), body);
        // tRPC's error bodies have tRPC's own shape (data.app is the REST body).
        expectHeaders(res, who === 'tenant' ? 'tenant' : 'public', `${method} ${path} (${who})`, false);
      }
    }
  });

  it('401s report the public pool', async () => {
    for (const headers of [{}, creds('invalid'), { authorization: 'Basic Zm9vOmJhcg==' }, { authorization: 'Bearer not-a-jwt' }]) {
      for (const path of ['/api/v1/keys', '/api/v1/executions']) {
        const res = await raw(s.url + path, 'GET', headers);
        expect(res.status).toBe(401);
        expectHeaders(res, 'public', `GET ${path} 401`);
      }
      const mcp = await raw(
        `${s.url}/api/mcp`,
        'POST',
        { ...headers, accept: 'application/json, text/event-stream' },
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      );
      expect(mcp.status).toBe(401);
      expectHeaders(mcp, 'public', 'POST /api/mcp 401');
    }
  });
});
