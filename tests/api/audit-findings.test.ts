/**
 * Findings of a security audit, each pinned by a test: the sign-in's return path stays on the
 * service's origin; the dashboard's operator flag follows the API's rule (a proven email);
 * linking refuses a request without a credential before it looks at its body; OAuth dynamic
 * client registration is bounded (metadata size, registrations per client IP and hour, unused
 * clients expire); with the default PUBLIC_BASE_URL, the loopback names of the service are one
 * origin for the MCP SDK's OAuth resource check. The dashboard's parts that need Next are in
 * tests/browser/audit-dashboard.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { safeCallbackPath } from '@/app/_lib/env';
import { loadConfig, warnDefaultPublicBaseUrl } from '../../src/config';
import { oauthStore } from '../../src/db/schema';
import { CLIENT_UNUSED_TTL_SECONDS, oauthAdapter, storedKey } from '../../src/oauth/adapter';
import { backends, clientAddress, expectError, startTestServer, type TestServer } from '../harness';
import { MemoryProvider } from '../oauth-client';
import { freePort } from '../ports';

const ORIGIN = 'http://localhost:3000';

describe('safeCallbackPath: where to return after signing in', () => {
  it('keeps paths on the service origin, with their query and fragment', () => {
    expect(safeCallbackPath('/dashboard/keys', ORIGIN)).toBe('/dashboard/keys');
    expect(safeCallbackPath('/dashboard/executions?status=failed#top', ORIGIN)).toBe('/dashboard/executions?status=failed#top');
    expect(safeCallbackPath(`${ORIGIN}/account`, ORIGIN)).toBe('/account');
    expect(safeCallbackPath(['/account', '/other'], ORIGIN)).toBe('/account');
  });

  it('refuses every other origin, however it is spelled, for the overview', () => {
    for (const target of [
      '//evil.example/x',
      '/\\evil.example/x',
      '/\t/evil.example/x',
      '/\n/evil.example/x',
      '/\r/evil.example/x',
      '\t//evil.example/x',
      '/.//evil.example/x',
      '/..//evil.example/x',
      'https://evil.example/x',
      'http://localhost:3001/x',
      'http://user:pass@localhost:3000/x',
      'javascript:alert(1)',
      'data:text/html,hi',
      '',
      undefined,
    ]) {
      expect(safeCallbackPath(target, ORIGIN), JSON.stringify(target)).toBe('/dashboard');
    }
  });

  it('never returns a control character (the value goes into a Location header)', () => {
    for (const target of ['/a\u0000b', '/a\u0001b', '/a\u007fb', '/a\u0085b', '/a b', '/a\tb\nc\rd']) {
      const path = safeCallbackPath(target, ORIGIN);
      // eslint-disable-next-line no-control-regex
      expect(path, JSON.stringify(target)).not.toMatch(/[\u0000-\u0020\u007f-\u009f]/);
      expect(path.startsWith('/') && !path.startsWith('//')).toBe(true);
    }
  });
});

describe('PUBLIC_BASE_URL left to its default', () => {
  it('is warned about at start-up, and only then', () => {
    const warn = vi.fn();
    warnDefaultPublicBaseUrl(loadConfig({ DATA_DIR: '/tmp/amp-audit-config', PORT: '4202' }), { warn });
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]![0]).toEqual({ publicBaseUrl: 'http://localhost:4202' });
    expect(warn.mock.calls[0]![1]).toContain('PUBLIC_BASE_URL is not set');
    warn.mockClear();
    warnDefaultPublicBaseUrl(loadConfig({ DATA_DIR: '/tmp/amp-audit-config', PUBLIC_BASE_URL: 'https://amp.example' }), { warn });
    expect(warn).not.toHaveBeenCalled();
  });
});

backends.describe('audit findings on the API (%s)', (backend) => {
  let s: TestServer;
  let anon: string;

  beforeAll(async () => {
    // TRUST_PROXY: each test names its own client address (X-Forwarded-For), so per-IP limits
    // are its own even on a Redis that other files share.
    s = await startTestServer({ backend, env: { TRUST_PROXY: '1', OAUTH_REGISTER_LIMIT_PER_HOUR: '3' } });
    anon = s.config.auth.anonKey!;
  });
  afterAll(() => s?.close());

  describe('POST /api/v1/auth/link: authenticate before the body', () => {
    it('without a valid bearer token is 401 whatever the body', async () => {
      for (const rawBody of ['{not json', '[', '{"api_key": 5}', '{"other": true}']) {
        const none = await s.call('/api/v1/auth/link', { method: 'POST', rawBody, headers: { 'content-type': 'application/json' } });
        expectError(none, 401, 'unauthorized');
        const forged = await s.call('/api/v1/auth/link', {
          method: 'POST',
          rawBody,
          bearer: 'not-a-token',
          headers: { 'content-type': 'application/json' },
        });
        expectError(forged, 401, 'unauthorized');
      }
    });

    it('with a valid bearer token, the body is then checked (400)', async () => {
      const signup = await s.call('/auth/v1/signup', {
        headers: { apikey: anon },
        body: { email: `link-${randomBytes(4).toString('hex')}@example.com`, password: 'a long password 1' },
      });
      expect(signup.status).toBe(200);
      const bearer = signup.body.access_token as string;
      expectError(
        await s.call('/api/v1/auth/link', {
          method: 'POST',
          rawBody: '{not json',
          bearer,
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'invalid_request',
      );
      expectError(await s.call('/api/v1/auth/link', { bearer, body: { api_key: 5 } }), 400, 'invalid_request');
      expectError(await s.call('/api/v1/auth/link', { bearer, body: { api_key: 'amp_nope' } }), 401, 'unauthorized');
    });
  });

  describe('OAuth dynamic client registration is bounded', () => {
    const redirect = 'http://127.0.0.1:1/callback';
    const register = (metadata: Record<string, unknown>, ip = clientAddress()) =>
      fetch(`${s.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: 'none', ...metadata }),
      });

    it('refuses metadata past its limits with RFC 7591 errors; at the limits it registers', async () => {
      const refusals: [Record<string, unknown>, string, string][] = [
        [{ client_name: 'x'.repeat(54_000) }, 'invalid_client_metadata', 'client_name'],
        [{ client_name: 'x'.repeat(201) }, 'invalid_client_metadata', 'client_name'],
        [{ redirect_uris: Array.from({ length: 2000 }, (_, i) => `http://127.0.0.1:${1 + i}/cb`) }, 'invalid_redirect_uri', '10'],
        [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${1 + i}/cb`) }, 'invalid_redirect_uri', '10'],
        [{ redirect_uris: [`http://127.0.0.1:1/${'p'.repeat(2000)}`] }, 'invalid_redirect_uri', '2000'],
        // Each field within its own limit, the whole past 16 KiB.
        [
          {
            redirect_uris: Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/${'p'.repeat(1900)}`),
            client_uri: `https://app.example/${'q'.repeat(1900)}`,
          },
          'invalid_client_metadata',
          '16 KiB',
        ],
      ];
      for (const [metadata, error, says] of refusals) {
        const res = await register(metadata);
        const body = (await res.json()) as { error: string; error_description: string };
        expect(res.status, says).toBe(400);
        expect(body.error, says).toBe(error);
        expect(body.error_description, says).toContain(says);
      }
      const atLimits = await register({
        client_name: 'n'.repeat(200),
        redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${1 + i}/${'p'.repeat(1000)}`),
      });
      expect(atLimits.status).toBe(201);
    });

    it('limits registrations per client IP and hour (OAUTH_REGISTER_LIMIT_PER_HOUR): 429 in the OAuth format with Retry-After', async () => {
      const ip = clientAddress();
      for (let i = 0; i < 3; i++) expect((await register({ client_name: `c${i}` }, ip)).status).toBe(201);
      const refused = await register({ client_name: 'one too many' }, ip);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({
        error: 'rate_limit_exceeded',
        error_description: expect.stringContaining('registrations'),
        message: expect.any(String),
        request_id: refused.headers.get('x-request-id'),
      });
      // Another address is not affected.
      expect((await register({ client_name: 'elsewhere' })).status).toBe(201);
    });

    it('a client never used is kept 24 hours; each authorization keeps it 30 days; an expired one is gone', async () => {
      const res = await register({ client_name: 'expiring' });
      expect(res.status).toBe(201);
      const clientId = ((await res.json()) as { client_id: string }).client_id;
      const expiry = async () => {
        const [row] = await s.svc.db
          .select({ expiresAt: oauthStore.expiresAt })
          .from(oauthStore)
          .where(and(eq(oauthStore.model, 'Client'), eq(oauthStore.id, storedKey(clientId))));
        return (row?.expiresAt?.getTime() ?? Infinity) - Date.now();
      };
      const minute = 60_000;
      expect(Math.abs((await expiry()) - CLIENT_UNUSED_TTL_SECONDS.registered * 1000)).toBeLessThan(5 * minute);

      // A grant issued to it (what an authorization stores) keeps it.
      const Adapter = oauthAdapter(s.svc.db, s.svc.config.encryptionKey);
      await new Adapter('Grant').upsert(`grant-${randomBytes(6).toString('hex')}`, { clientId, accountId: 'someone' }, 3600);
      expect(Math.abs((await expiry()) - CLIENT_UNUSED_TTL_SECONDS.used * 1000)).toBeLessThan(5 * minute);

      await s.svc.db
        .update(oauthStore)
        .set({ expiresAt: new Date(Date.now() - minute) })
        .where(and(eq(oauthStore.model, 'Client'), eq(oauthStore.id, storedKey(clientId))));
      expect(await new Adapter('Client').find(clientId)).toBeUndefined();
      const authorize = await fetch(
        `${s.url}/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirect, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
        { redirect: 'manual' },
      );
      expect(authorize.status).toBe(400);
      expect(await authorize.text()).toContain('client is invalid');
    });
  });
});

backends.describe('the default PUBLIC_BASE_URL and loopback clients (%s)', (backend) => {
  let s: TestServer;
  let port: number;
  const user = { email: `loop-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery staple' };
  const redirectUrl = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    port = await freePort();
    s = await startTestServer({ backend, env: { PORT: String(port), PUBLIC_BASE_URL: undefined } });
    expect(s.config.publicBaseUrl).toBe(`http://localhost:${port}`);
    const signup = await s.call('/auth/v1/signup', { body: user, headers: { apikey: s.config.auth.anonKey! } });
    expect(signup.status).toBe(200);
    const registered = await s.call('/api/v1/auth/register', { bearer: signup.body.access_token, body: { agent_name: 'loopback' } });
    expect(registered.status).toBe(201);
  });
  afterAll(() => s?.close());

  it('answers the protected resource metadata with the loopback name the client used, and only a loopback name of that port', async () => {
    const prm = (host: string) =>
      fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/api/mcp`, { headers: { host } }).then(
        (r) => r.json() as Promise<{ resource: string; authorization_servers: string[] }>,
      );
    // fetch sets Host from the URL: these go through a raw request instead.
    const raw = async (host: string) => {
      const http = await import('node:http');
      return new Promise<{ resource: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/.well-known/oauth-protected-resource/api/mcp', headers: { host } }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve(JSON.parse(body)));
          })
          .on('error', reject);
      });
    };
    expect((await prm(`127.0.0.1:${port}`)).resource).toBe(`http://127.0.0.1:${port}/api/mcp`);
    expect((await raw(`127.0.0.1:${port}`)).resource).toBe(`http://127.0.0.1:${port}/api/mcp`);
    expect((await raw(`localhost:${port}`)).resource).toBe(`http://localhost:${port}/api/mcp`);
    expect((await raw(`[::1]:${port}`)).resource).toBe(`http://[::1]:${port}/api/mcp`);
    for (const other of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`, `127.0.0.2:${port}`]) {
      expect((await raw(other)).resource, other).toBe(`http://localhost:${port}/api/mcp`);
    }
    const challenge = await fetch(`http://127.0.0.1:${port}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain(
      `resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/api/mcp"`,
    );
  });

  it('the MCP SDK client at http://127.0.0.1:PORT completes its OAuth flow and calls a tool', async () => {
    const serverUrl = new URL(`http://127.0.0.1:${port}/api/mcp`);
    const provider = new MemoryProvider(redirectUrl);
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(new Client({ name: 'loopback', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(serverUrl.href);
    const code = await authorize(provider.authorizationUrl!);
    await transport.finishAuth(code);
    const claims = JSON.parse(Buffer.from(provider.saved!.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.aud).toBe(serverUrl.href);
    const client = new Client({ name: 'loopback', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const called = await client.callTool({ name: 'text__slugify', arguments: { text: 'Loop Back' } });
    expect(called.structuredContent).toEqual({ slug: 'loop-back' });
    await client.close();
  });

  /** What the consent page does: sign in, grant what was asked, follow the redirects back; the code. */
  async function authorize(url: URL): Promise<string> {
    const cookies = new Map<string, string>();
    const keep = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair!.indexOf('=');
        cookies.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
      }
    };
    const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let res = await fetch(url, { redirect: 'manual' });
    keep(res);
    const uid = new URL(res.headers.get('location')!, url).pathname.split('/').pop()!;
    const login = await s.call(`/oauth/interaction/${uid}/login`, { body: user });
    expect(login.status).toBe(200);
    const consent = await s.call(`/oauth/interaction/${uid}/consent`, { body: { scopes: login.body.scopes } });
    expect(consent.status).toBe(200);
    let next = new URL(consent.body.redirect_to);
    for (let hops = 0; hops < 5; hops++) {
      res = await fetch(next, { redirect: 'manual', headers: { cookie: cookie() } });
      keep(res);
      next = new URL(res.headers.get('location')!, next);
      if (next.href.startsWith(redirectUrl)) return next.searchParams.get('code')!;
    }
    throw new Error('no redirect back to the client');
  }
});
