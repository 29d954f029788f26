/**
 * docs/decisions.md, Security headers: every API answer carries nosniff, frame denial,
 * no-referrer and a CSP that loads nothing (the OAuth variant under /oauth/), whatever wrote it
 * (a REST route, tRPC, MCP, the identity provider, oidc-provider, a discovery document, the raw
 * 400 of a request that is not HTTP); HSTS only when the public URL is https; oidc-provider's
 * cookies are Secure then.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startTestServer, type TestServer } from '../harness';

const API_CSP = "default-src 'none'; frame-ancestors 'none'";
const HSTS = 'max-age=63072000; includeSubDomains';

interface Answer {
  status: number;
  headers: Headers;
}

function expectSecurityHeaders(res: Answer, what: string, opts: { https?: boolean; oauth?: boolean } = {}) {
  const label = `${what} -> ${res.status}`;
  const h = res.headers;
  expect(h.get('x-content-type-options'), label).toBe('nosniff');
  expect(h.get('x-frame-options'), label).toBe('DENY');
  expect(h.get('referrer-policy'), label).toBe('no-referrer');
  const csp = h.get('content-security-policy') ?? '';
  if (opts.oauth) {
    expect(csp, label).toContain("default-src 'none'");
    expect(csp, label).toContain("frame-ancestors 'none'");
    expect(csp, label).toMatch(/script-src 'none'/);
  } else expect(csp, label).toBe(API_CSP);
  expect(h.get('strict-transport-security'), label).toBe(opts.https ? HSTS : null);
}

/** Bytes that are not HTTP/1.1, answered by server.ts's raw 400 (refuseUnparsable). */
function rawRefusal(url: string): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
  });
}

const get = (server: TestServer, path: string, init: RequestInit = {}) => fetch(server.url + path, { redirect: 'manual', ...init });

describe.each(backends())('security headers (%s)', (backend) => {
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer({ backend });
    ({ apiKey } = await server.register());
  }, 180_000);
  afterAll(() => server?.close());

  it('on REST answers: JSON 200, 404, 401, 400, 405 and a preflight', async () => {
    const cases: [string, RequestInit, number][] = [
      ['/api/v1/me', { headers: { 'x-api-key': apiKey } }, 200],
      ['/api/v1/no-such-thing', {}, 404],
      ['/api/v1/me', {}, 401],
      ['/api/v1/auth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }, 400],
      ['/api/v1/me', { method: 'DELETE', headers: { 'x-api-key': apiKey } }, 405],
      ['/api/v1/me', { method: 'OPTIONS' }, 204],
    ];
    for (const [path, init, status] of cases) {
      const res = await get(server, path, init);
      expect(res.status, path).toBe(status);
      expectSecurityHeaders(res, `${init.method ?? 'GET'} ${path}`);
    }
  });

  it('on discovery documents, tRPC, MCP, A2A and the identity provider', async () => {
    for (const path of ['/openapi.json', '/api/openapi.json', '/api/llms.txt', '/.well-known/agent.json', '/.well-known/agent-card.json']) {
      const res = await get(server, path);
      expect(res.status, path).toBe(200);
      expectSecurityHeaders(res, path);
    }
    expectSecurityHeaders(await get(server, '/api/trpc/tenants.me'), 'tRPC without a session');
    const mcp = await get(server, '/api/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expectSecurityHeaders(mcp, 'MCP without a credential');
    expectSecurityHeaders(await get(server, '/api/a2a', { method: 'POST', body: '{}' }), 'A2A without a credential');
    expectSecurityHeaders(await get(server, '/auth/v1/settings'), 'identity provider');
    expectSecurityHeaders(await get(server, '/dashboard'), 'a page path with no dashboard mounted (404)');
  });

  it('on the OAuth endpoints: metadata, JWKS, interaction errors and the HTML error page', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server/oauth']) {
      const res = await get(server, path);
      expect(res.status, path).toBe(200);
      expectSecurityHeaders(res, path);
    }
    for (const path of ['/oauth/jwks', '/oauth/interaction/no-such-uid', '/oauth/no-such-endpoint'])
      expectSecurityHeaders(await get(server, path), path, { oauth: true });
    const page = await get(server, '/oauth/authorize?client_id=nobody&response_type=code');
    expect(page.headers.get('content-type')).toContain('text/html');
    expectSecurityHeaders(page, 'the authorization error page', { oauth: true });
  });

  it('on the raw 400 of a request that is not HTTP', async () => {
    const res = await rawRefusal(server.url);
    expect(res.status).toBe(400);
    expectSecurityHeaders(res, 'raw refusal');
  });
});

describe('security headers behind an https public URL', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { PUBLIC_BASE_URL: 'https://platform.example.com' } });
  }, 180_000);
  afterAll(() => server?.close());

  it('adds HSTS to every kind of answer', async () => {
    expectSecurityHeaders(await get(server, '/api/v1/me'), 'REST 401', { https: true });
    expectSecurityHeaders(await get(server, '/openapi.json'), 'discovery', { https: true });
    expectSecurityHeaders(await get(server, '/oauth/jwks'), 'OAuth', { https: true, oauth: true });
    expectSecurityHeaders(await rawRefusal(server.url), 'raw refusal', { https: true });
  });

  it("marks oidc-provider's cookies Secure", async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const reg = await get(server, '/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'c', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = (await reg.json()) as { client_id: string };
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const query = new URLSearchParams({
      client_id,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'modules:read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const res = await get(server, `/oauth/authorize?${query}`);
    expect(res.status).toBe(303);
    const cookies = res.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie.toLowerCase()).toMatch(/;\s*secure(;|$)/);
    expectSecurityHeaders(res, 'authorize redirect', { https: true, oauth: true });

    // An error answered by form_post: oidc-provider's page with its one inline script, whose hash
    // it appends to the policy's script-src (and nothing else runs there).
    query.set('response_mode', 'form_post');
    query.set('code_challenge_method', 'plain');
    const formPost = await get(server, `/oauth/authorize?${query}`);
    expect(await formPost.text()).toContain('<script>');
    expect(formPost.headers.get('content-security-policy')).toMatch(/script-src 'none' 'sha256-[A-Za-z0-9+/=]+'/);
  });
});
