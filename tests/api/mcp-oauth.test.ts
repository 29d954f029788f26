/**
 * OAuth 2.1 for MCP clients (docs/auth.md): /api/mcp as a protected resource, the built-in
 * authorization server (oidc-provider) and the real MCP SDK client with its OAuth client
 * provider, through Dynamic Client Registration and through a Client ID Metadata Document.
 * The authorize step is driven through the JSON endpoints the consent page calls (the browser
 * test drives the page itself).
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { oauthStore } from '../../src/db/schema';
import { identityKeys } from '../../src/identity/keys';
import { oauthAdapter, purgeExpiredOAuth, sealOAuthPayloads, storedKey } from '../../src/oauth/adapter';
import { PROVIDER_ENDPOINTS } from '../../src/server/oauth/provider';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { Jar, MemoryProvider } from '../oauth-client';
import { freePort } from '../ports';

const execFileAsync = promisify(execFile);

/** A self-signed certificate for `localhost`, trusted by this process's TLS (for the CIMD server). */
function selfSignedLocalhost(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-cimd-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

backends.describe('MCP OAuth (%s)', (backend) => {
  let s: TestServer;
  let base: string;
  let https: HttpsServer | undefined;
  let cimdUrl: string;
  const user = { email: `oauth-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery staple' };
  let userId: string;
  let tenantId: string;
  let apiKey: string;
  const redirectUrl = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    s = await startTestServer({ backend, env: { PORT: String(port), PUBLIC_BASE_URL: base, WEBHOOK_ALLOW_PRIVATE: '1' } });
    // A user of the built-in identity provider who created a tenant with its bearer token.
    const signedUp = await signUp(user);
    userId = signedUp.userId;
    const registered = await s.call('/api/v1/auth/register', { bearer: signedUp.accessToken, body: { agent_name: 'oauth-tenant' } });
    expect(registered.status).toBe(201);
    tenantId = registered.body.tenant_id;
    apiKey = registered.body.api_key;

    // The CIMD client's metadata document, on https (the SDK and the MCP authorization spec require it).
    const { key, cert } = selfSignedLocalhost();
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
    https = createHttpsServer({ key, cert }, (req, res) => {
      const doc = {
        client_id: cimdUrl,
        client_name: 'CIMD test client',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
      // A metadata document naming a plain-http redirect URI on another host (refused).
      if (req.url === '/evil-client.json') {
        const evil = { ...doc, client_id: cimdUrl.replace('/client.json', '/evil-client.json'), redirect_uris: ['http://evil.example/cb'] };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(evil));
      }
      if (req.url !== '/client.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(JSON.stringify(doc));
    });
    await new Promise<void>((resolve) => https!.listen(0, '127.0.0.1', resolve));
    cimdUrl = `https://localhost:${(https.address() as AddressInfo).port}/client.json`;
  }, 180_000);
  /** GoTrue sign-up (confirmed at once without SMTP_URL): the user's id and access token. */
  async function signUp(u: { email: string; password: string }): Promise<{ userId: string; accessToken: string }> {
    const res = await s.call('/auth/v1/signup', { body: u, headers: { apikey: s.config.auth.anonKey! } });
    expect(res.status).toBe(200);
    return { userId: res.body.user.id, accessToken: res.body.access_token };
  }

  afterAll(async () => {
    https?.close();
    await s?.close();
  });

  /**
   * What the consent page does: follow the authorization URL to the page, read the request,
   * sign in, grant `scopes`, follow the redirect back to the provider; returns the final
   * redirect to the client (with `code` or `error`).
   */
  /** A user with a tenant; `authorize` signs in as `user` unless told another (sign-ins are limited to 10 a minute per email). */
  type Signer = { email: string; password: string; userId: string; tenantId: string };
  let wrongPasswordTried = false;
  async function userWithTenant(): Promise<Signer> {
    const u = { email: `oauth2-${randomBytes(4).toString('hex')}@example.com`, password: 'another correct horse battery' };
    const signedUp = await signUp(u);
    const registered = await s.call('/api/v1/auth/register', { bearer: signedUp.accessToken, body: { agent_name: 'oauth-tenant-2' } });
    expect(registered.status).toBe(201);
    return { ...u, userId: signedUp.userId, tenantId: registered.body.tenant_id };
  }

  async function authorize(url: URL, scopes: string[] | 'all' = 'all', who?: Signer): Promise<URL> {
    const signer = who ?? { ...user, userId, tenantId };
    const jar = new Jar();
    let res = await fetch(url, { redirect: 'manual' });
    jar.take(res);
    expect(res.status).toBe(303);
    const page = new URL(res.headers.get('location')!, base);
    expect(page.pathname).toMatch(/^\/consent\/[A-Za-z0-9_-]+$/);
    const uid = page.pathname.split('/').pop()!;
    const api = `/oauth/interaction/${uid}`;

    let details = await s.call(api);
    expect(details.status).toBe(200);
    if (details.body.step === 'login') {
      if (!wrongPasswordTried) {
        wrongPasswordTried = true;
        const wrong = await s.call(`${api}/login`, { body: { email: signer.email, password: 'wrong password' } });
        expect(wrong.status).toBe(400);
      }
      details = await s.call(`${api}/login`, { body: { email: signer.email, password: signer.password } });
      expect(details.status).toBe(200);
    }
    expect(details.body).toMatchObject({
      step: 'consent',
      account: { id: signer.userId, email: signer.email },
      tenant: { id: signer.tenantId },
      client: { redirect_uri: redirectUrl },
    });
    const grant = scopes === 'all' ? details.body.scopes : scopes;
    const consent = await s.call(`${api}/consent`, { body: { scopes: grant } });
    expect(consent.status).toBe(200);

    let next = new URL(consent.body.redirect_to);
    for (let hops = 0; hops < 5; hops++) {
      res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(res);
      expect([302, 303]).toContain(res.status);
      next = new URL(res.headers.get('location')!, next);
      if (next.href.startsWith(redirectUrl)) return next;
    }
    throw new Error('no redirect back to the client');
  }

  async function connect(provider: MemoryProvider): Promise<Client> {
    const client = new Client({ name: 'vitest-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider }));
    return client;
  }

  /** The SDK's whole flow: 401 -> discovery -> registration -> authorize -> code -> tokens. */
  async function signInClient(provider: MemoryProvider, scopes: string[] | 'all' = 'all'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
    const first = new Client({ name: 'vitest-oauth', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).toBeDefined();
    const back = await authorize(provider.authorizationUrl!, scopes);
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    await transport.finishAuth(code!);
    expect(provider.saved?.access_token).toBeTruthy();
    return connect(provider);
  }

  it('publishes RFC 9728 and RFC 8414 metadata naming each other', async () => {
    const prm = await s.call('/.well-known/oauth-protected-resource/api/mcp');
    expect(prm.status).toBe(200);
    // A discovery document reports the caller's pool, as every API response does: the client IP's without a credential, the tenant's with one.
    expect(prm.headers.get('x-ratelimit-limit')).toBe('600');
    const keyed = await s.call('/.well-known/oauth-protected-resource/api/mcp', { key: (await s.register()).apiKey });
    expect(keyed.headers.get('x-ratelimit-limit')).toBe('60');
    expect(keyed.headers.get('x-execution-remaining')).toBe('1000');
    expect(prm.body).toMatchObject({
      resource: `${base}/api/mcp`,
      authorization_servers: [`${base}/oauth`],
      bearer_methods_supported: ['header'],
    });
    // Only the scopes the endpoint checks, so a client asks for least privilege (not `*`).
    expect(prm.body.scopes_supported).toEqual(['modules:read', 'modules:execute']);
    // The REST API is a resource of the same server (a native app's sign-in asks for it), with every scope.
    const api = await s.call('/.well-known/oauth-protected-resource/api/v1');
    expect(api.status, api.text).toBe(200);
    expect(api.body).toMatchObject({
      resource: `${base}/api/v1`,
      authorization_servers: [`${base}/oauth`],
      bearer_methods_supported: ['header'],
      resource_documentation: `${base}/api/openapi.json`,
    });
    expect(api.body.scopes_supported).toEqual(expect.arrayContaining(['*', 'keys:manage', 'modules:execute']));

    for (const p of [
      '/.well-known/oauth-authorization-server/oauth',
      '/.well-known/openid-configuration/oauth',
      '/oauth/.well-known/openid-configuration',
    ]) {
      const as = await s.call(p);
      expect(as.status, p).toBe(200);
      expect(as.headers.get('x-ratelimit-remaining'), p).toMatch(/^\d+$/);
      expect(as.body).toMatchObject({
        issuer: `${base}/oauth`,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        jwks_uri: `${base}/oauth/jwks`,
        code_challenge_methods_supported: ['S256'],
        client_id_metadata_document_supported: true,
      });
      expect(as.body.response_types_supported).toEqual(['code']);
      expect(as.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    }
    // A forged Host changes none of its URLs.
    const forgedBody = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = http.get(
        `${base}/oauth/.well-known/openid-configuration`,
        { headers: { host: 'attacker.example', 'x-forwarded-host': 'attacker.example' } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
        },
      );
      req.on('error', reject);
    });
    expect(forgedBody.token_endpoint).toBe(`${base}/oauth/token`);
    expect(JSON.stringify(forgedBody)).not.toContain('attacker.example');
    // A NUL in a client_id (PostgreSQL text cannot hold one) is an unknown client, not a 500.
    const nulAuthorize = await fetch(`${base}/oauth/authorize?client_id=%00&response_type=code`, { redirect: 'manual' });
    expect(nulAuthorize.status).toBe(400);
    const nulToken = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: '\u0000' }),
    });
    expect(nulToken.status).toBe(401);
    expect(await nulToken.json()).toMatchObject({ error: 'invalid_client' });
    // One key signs everything: the identity provider's.
    const jwks = await s.call('/oauth/jwks');
    expect(jwks.body.keys).toEqual([expect.objectContaining({ kid: identityKeys(s.svc).kid, kty: 'EC', crv: 'P-256' })]);
    expect(jwks.body.keys[0].d).toBeUndefined();
  });

  it('answers 401 with WWW-Authenticate naming the resource metadata; x-api-key works as before', async () => {
    const rm = `resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`;
    const init = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const none = await s.call('/api/mcp', { body: init });
    expectError(none, 401, 'unauthorized');
    // MCP authorization: the challenge names the scopes to ask for.
    expect(none.headers.get('www-authenticate')).toBe(`Bearer ${rm}, scope="modules:read modules:execute"`);
    const bad = await s.call('/api/mcp', { body: init, bearer: 'not-a-token' });
    expectError(bad, 401, 'unauthorized');
    expect(bad.headers.get('www-authenticate')).toContain(rm);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const key = await s.call('/api/mcp', { body: init, key: apiKey });
    expect(key.status).toBe(200);
    expect(key.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('DCR path: the SDK client registers, signs in, exchanges the code with PKCE, lists tools and calls one; refresh and revocation work', async () => {
    const provider = new MemoryProvider(redirectUrl);
    const client = await signInClient(provider);
    expect(provider.info?.client_id).toBeTruthy();
    expect(provider.info?.client_id).not.toMatch(/^https:/);
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === 'text__slugify')).toBe(true);
    const called = await client.callTool({ name: 'text__slugify', arguments: { text: 'Hello OAuth' } });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toEqual({ slug: 'hello-oauth' });
    await client.close();

    // The token is bound to the MCP resource: REST refuses it.
    const access = provider.saved!.access_token;
    expect((await s.call('/api/v1/modules', { bearer: access })).status).toBe(401);
    const claims = JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ iss: `${base}/oauth`, aud: `${base}/api/mcp`, sub: userId });

    // Refresh: a new access token (and a rotated refresh token) that works.
    const form = (o: Record<string, string>) => new URLSearchParams(o);
    const clientId = provider.info!.client_id;
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: form({
        grant_type: 'refresh_token',
        refresh_token: provider.saved!.refresh_token!,
        client_id: clientId,
        resource: `${base}/api/mcp`,
      }),
    });
    expect(refreshed.status).toBe(200);
    const tokens = (await refreshed.json()) as OAuthTokens;
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.refresh_token).not.toBe(provider.saved!.refresh_token);
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    expect((await s.call('/api/mcp', { body: ping, bearer: tokens.access_token })).status).toBe(200);

    // Revocation of the refresh token revokes the grant: its access tokens stop working too.
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      body: form({ token: tokens.refresh_token!, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const after = await s.call('/api/mcp', { body: ping, bearer: tokens.access_token });
    expectError(after, 401, 'unauthorized');
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const again = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('CIMD path: the client_id is the https URL of its metadata document, fetched through the SSRF guard', async () => {
    const provider = new MemoryProvider(redirectUrl, cimdUrl);
    const client = await signInClient(provider);
    expect(provider.info?.client_id).toBe(cimdUrl);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await client.callTool({ name: 'text__slugify', arguments: { text: 'C I M D' } })).structuredContent).toEqual({
      slug: 'c-i-m-d',
    });
    await client.close();
  });

  it('the MCP Inspector CLI lists tools and calls one with the token the OAuth flow issued', async () => {
    const provider = new MemoryProvider(redirectUrl);
    await (await signInClient(provider)).close();
    const catalog = mkdtempSync(path.join(tmpdir(), 'amp-inspector-'));
    // Asynchronous: the service under test runs in this process and must keep answering.
    const inspector = async (...args: string[]) => {
      const { stdout } = await execFileAsync(
        path.resolve('node_modules/.bin/mcp-inspector'),
        ['--cli', `${base}/api/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${provider.saved!.access_token}`, ...args],
        { encoding: 'utf8', timeout: 60_000, env: { ...process.env, MCP_CATALOG_PATH: path.join(catalog, 'mcp.json') } },
      );
      return JSON.parse(stdout);
    };
    try {
      const listed = await inspector('--method', 'tools/list');
      expect(listed.tools.some((t: { name: string }) => t.name === 'text__slugify')).toBe(true);
      const called = await inspector('--method', 'tools/call', '--tool-name', 'text__slugify', '--tool-arg', 'text=Hello Inspector');
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toEqual({ slug: 'hello-inspector' });
    } finally {
      rmSync(catalog, { recursive: true, force: true });
    }
  });

  it('a token carries only the granted scopes: without modules:execute, tools/call is 403 insufficient_scope', async () => {
    const provider = new MemoryProvider(redirectUrl);
    const client = await signInClient(provider, ['modules:read']);
    expect(provider.saved?.scope?.split(' ')).toEqual(['modules:read']);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await expect(client.callTool({ name: 'text__slugify', arguments: { text: 'x' } })).rejects.toThrow();
    await client.close();
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'text__slugify', arguments: { text: 'x' } } };
    const res = await s.call('/api/mcp', { body: call, bearer: provider.saved!.access_token });
    expectError(res, 403, 'insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="modules:execute"');
  });

  it('oauth_store: expired rows are never returned and the hourly purge deletes them; consume and revokeByGrantId', async () => {
    const Adapter = oauthAdapter(s.svc.db, s.svc.config.encryptionKey);
    const codes = new Adapter('AuthorizationCode');
    const id = `test-${randomBytes(6).toString('hex')}`;
    await codes.upsert(id, { jti: id, grantId: `g-${id}`, uid: `u-${id}` }, 60);
    expect(await codes.find(id)).toMatchObject({ jti: id });
    expect(await codes.findByUid(`u-${id}`)).toMatchObject({ jti: id });
    await codes.consume(id);
    expect((await codes.find(id))?.consumed).toEqual(expect.any(Number));
    await codes.revokeByGrantId(`g-${id}`);
    expect(await codes.find(id)).toBeUndefined();

    await codes.upsert(id, { jti: id }, 60);
    await s.svc.db
      .update(oauthStore)
      .set({ expiresAt: new Date(Date.now() - 120_000) })
      .where(eq(oauthStore.id, storedKey(id)));
    expect(await codes.find(id)).toBeUndefined();
    expect(await purgeExpiredOAuth(s.svc.db)).toBeGreaterThanOrEqual(1);
    expect(
      await s.svc.db
        .select()
        .from(oauthStore)
        .where(eq(oauthStore.id, storedKey(id))),
    ).toEqual([]);
  });

  it('oauth_store keeps no secret as it is: ids and lookup keys hashed, payloads encrypted; rows written before are migrated', async () => {
    const Adapter = oauthAdapter(s.svc.db, s.svc.config.encryptionKey);
    const tokens = new Adapter('RefreshToken');
    const token = `rt-${randomBytes(16).toString('base64url')}`;
    await tokens.upsert(token, { jti: token, grantId: `g-${token}`, uid: `u-${token}`, accountId: 'someone' }, 60);
    const rows = await s.svc.db.select().from(oauthStore).where(eq(oauthStore.model, 'RefreshToken'));
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
    expect(rows.find((r) => r.id === storedKey(token))!.payload).toMatch(/^v1:/);
    expect(await tokens.find(token)).toMatchObject({ jti: token, accountId: 'someone' });

    // A row as it was written before (plain id and payload): migration 0014 hashes its keys, and
    // the start-up pass encrypts its payload; the adapter then finds it by its value as before.
    const legacy = `legacy-${randomBytes(8).toString('hex')}`;
    await s.svc.db
      .insert(oauthStore)
      .values({ model: 'LegacyClient', id: legacy, payload: { client_id: legacy, client_secret: `secret-${legacy}` }, uid: `u-${legacy}` });
    const migration = readFileSync(path.join(import.meta.dirname, '../../drizzle/0014_oauth_store_hashed_keys.sql'), 'utf8')
      .trim()
      .replace(/;$/, '');
    await s.svc.db.execute(sql.raw(`${migration} WHERE "model" = 'LegacyClient'`));
    expect(await sealOAuthPayloads(s.svc.db, s.svc.config.encryptionKey)).toBe(1);
    const [row] = await s.svc.db
      .select()
      .from(oauthStore)
      .where(and(eq(oauthStore.model, 'LegacyClient')));
    expect(JSON.stringify(row)).not.toContain(legacy);
    const clients = new Adapter('LegacyClient');
    expect(await clients.find(legacy)).toEqual({ client_id: legacy, client_secret: `secret-${legacy}` });
    expect(await clients.findByUid(`u-${legacy}`)).toMatchObject({ client_id: legacy });
  });

  describe_protocol_refusals();

  function describe_protocol_refusals() {
    /** POST /oauth/register with `metadata` over the defaults of a public client. */
    function register(metadata: Record<string, unknown> = {}) {
      return fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'raw',
          redirect_uris: [redirectUrl],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          ...metadata,
        }),
      });
    }
    /** A registered client (public unless `metadata` says otherwise) and a PKCE pair. */
    async function registered(metadata: Record<string, unknown> = {}) {
      const reg = await register(metadata);
      expect(reg.status).toBe(201);
      const client = (await reg.json()) as { client_id: string; client_secret?: string };
      if (metadata.token_endpoint_auth_method === undefined) expect(client.client_secret).toBeUndefined();
      const verifier = randomBytes(32).toString('base64url');
      return {
        clientId: client.client_id,
        clientSecret: client.client_secret,
        verifier,
        challenge: createHash('sha256').update(verifier).digest('base64url'),
      };
    }
    const authUrl = (params: Record<string, string>) =>
      new URL(
        `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: redirectUrl, scope: 'modules:read', state: 's1', ...params })}`,
      );
    const form = (o: Record<string, string>) => new URLSearchParams(o);
    const basic = (id: string, secret: string) =>
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    /** The user the tests below sign in as (not `user`, whose sign-ins the tests above spend). */
    let other: Signer | undefined;
    /** A code for `client` through the consent steps, exchanged with `auth` (public: client_id in the form). */
    async function tokensFor(
      client: Awaited<ReturnType<typeof registered>>,
      auth: { form?: Record<string, string>; headers?: Record<string, string> } = { form: { client_id: client.clientId } },
    ) {
      other ??= await userWithTenant();
      const back = await authorize(
        authUrl({
          client_id: client.clientId,
          code_challenge: client.challenge,
          code_challenge_method: 'S256',
          resource: `${base}/api/mcp`,
        }),
        ['modules:read'],
        other,
      );
      const code = back.searchParams.get('code')!;
      return {
        code,
        exchange: (a = auth) =>
          fetch(`${base}/oauth/token`, {
            method: 'POST',
            headers: a.headers,
            body: form({ grant_type: 'authorization_code', code, redirect_uri: redirectUrl, code_verifier: client.verifier, ...a.form }),
          }),
      };
    }
    /** The uid of a fresh authorization request (the consent page's). */
    async function interactionUid(): Promise<string> {
      const { clientId, challenge } = await registered();
      const start = await fetch(authUrl({ client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' }), {
        redirect: 'manual',
      });
      return new URL(start.headers.get('location')!, base).pathname.split('/').pop()!;
    }

    it('redirect URIs: https or loopback http only (RFC 7591 invalid_redirect_uri), at registration, for a stored client and for a metadata document', async () => {
      for (const uri of [
        'http://evil.example/cb',
        'http://localhost.evil.example/cb',
        'http://127.0.0.1.nip.io/cb',
        'myapp://cb',
        'com.example.app:/cb',
        'javascript:alert(1)',
        'not a url',
      ]) {
        for (const extra of [{}, { application_type: 'native' }]) {
          const res = await register({ redirect_uris: [redirectUrl, uri], ...extra });
          expect(res.status, uri).toBe(400);
          expect(await res.json(), uri).toMatchObject({ error: 'invalid_redirect_uri' });
        }
      }
      for (const uri of [
        'http://127.0.0.1:8976/callback',
        'http://127.0.0.1/cb',
        'http://localhost:33418/cb',
        'http://[::1]:9/cb',
        'https://app.example/oauth/callback',
      ]) {
        expect((await register({ redirect_uris: [uri] })).status, uri).toBe(201);
      }

      // A stored client that breaks the rule does not load: no code goes to its URI.
      const clients = new (oauthAdapter(s.svc.db, s.svc.config.encryptionKey))('Client');
      const stored = `legacy-${randomBytes(6).toString('hex')}`;
      const evil = 'http://evil.example/cb';
      await clients.upsert(
        stored,
        {
          client_id: stored,
          client_id_issued_at: Math.floor(Date.now() / 1000),
          redirect_uris: [evil],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
        undefined,
      );
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      for (const clientId of [stored, cimdUrl.replace('/client.json', '/evil-client.json')]) {
        const res = await fetch(
          authUrl({ client_id: clientId, redirect_uri: evil, code_challenge: challenge, code_challenge_method: 'S256' }),
          { redirect: 'manual' },
        );
        expect(res.status, clientId).toBe(400);
        expect(res.headers.get('location'), clientId).toBeNull();
        expect(await res.text(), clientId).toContain('redirect_uris must be https URLs, or http URLs on a loopback host');
      }
    });

    it("revocation: a client revokes only the tokens issued to it (another client's request is 200 and revokes nothing)", async () => {
      const victim = await registered();
      const stranger = await registered();
      const { exchange } = await tokensFor(victim);
      const issued = await exchange();
      expect(issued.status).toBe(200);
      const tokens = (await issued.json()) as OAuthTokens;
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      // (An access token is a JWT, which oidc-provider never revokes by itself: revoking its refresh token ends the grant.)
      const res = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        body: form({ token: tokens.refresh_token!, client_id: stranger.clientId }),
      });
      expect(res.status).toBe(200);
      const jwt = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        body: form({ token: tokens.access_token, client_id: victim.clientId }),
      });
      expect(jwt.status).toBe(400);
      expect(await jwt.json()).toMatchObject({ error: 'unsupported_token_type' });
      expect((await s.call('/api/mcp', { body: ping, bearer: tokens.access_token })).status).toBe(200);
      const refreshed = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        body: form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: victim.clientId }),
      });
      expect(refreshed.status).toBe(200);
      const rotated = (await refreshed.json()) as OAuthTokens;
      // Its own client still can.
      expect(
        (await fetch(`${base}/oauth/revoke`, { method: 'POST', body: form({ token: rotated.refresh_token!, client_id: victim.clientId }) }))
          .status,
      ).toBe(200);
      expectError(await s.call('/api/mcp', { body: ping, bearer: rotated.access_token }), 401, 'unauthorized');
    });

    it('confidential clients: registration issues a secret, and the token endpoint takes only the registered method', async () => {
      const basicClient = await registered({ token_endpoint_auth_method: 'client_secret_basic' });
      const postClient = await registered({ token_endpoint_auth_method: 'client_secret_post' });
      expect(basicClient.clientSecret).toEqual(expect.any(String));
      expect(postClient.clientSecret).toEqual(expect.any(String));

      type Auth = (c: typeof basicClient) => { form?: Record<string, string>; headers?: Record<string, string> };
      const asBasic: Auth = (c) => ({ headers: { authorization: basic(c.clientId, c.clientSecret!) } });
      const asPost: Auth = (c) => ({ form: { client_id: c.clientId, client_secret: c.clientSecret! } });
      const asPublic: Auth = (c) => ({ form: { client_id: c.clientId } });
      for (const [client, right, wrongs] of [
        [basicClient, asBasic, [asPost, asPublic]],
        [postClient, asPost, [asBasic, asPublic]],
      ] as const) {
        const { exchange } = await tokensFor(client, right(client));
        for (const wrong of wrongs) {
          const refused = await exchange(wrong(client));
          expect(refused.status).toBe(401);
          expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
        }
        const ok = await exchange();
        expect(ok.status).toBe(200);
        const tokens = (await ok.json()) as OAuthTokens;
        // The refresh grant and revocation too.
        const wrongRefresh = await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: wrongs[0](client).headers,
          body: form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...wrongs[0](client).form }),
        });
        expect(wrongRefresh.status).toBe(401);
        const wrongRevoke = await fetch(`${base}/oauth/revoke`, {
          method: 'POST',
          headers: wrongs[0](client).headers,
          body: form({ token: tokens.refresh_token!, ...wrongs[0](client).form }),
        });
        expect(wrongRevoke.status).toBe(401);
        const refreshed = await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: right(client).headers,
          body: form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...right(client).form }),
        });
        expect(refreshed.status).toBe(200);
      }
      // A public client presenting a secret it does not have is refused too.
      const pub = await registered();
      const { exchange } = await tokensFor(pub);
      const withSecret = await exchange({ form: { client_id: pub.clientId, client_secret: 'guess' } });
      expect(withSecret.status).toBe(401);
    });

    it('known OAuth paths with another method are 405 with Allow, unknown ones 404, both JSON in the OAuth format', async () => {
      const cases: [string, string, number, string | null][] = [
        ['GET', '/oauth/token', 405, 'POST, OPTIONS'],
        ['PUT', '/oauth/token', 405, 'POST, OPTIONS'],
        ['GET', '/oauth/register', 405, 'POST'],
        ['DELETE', '/oauth/register', 405, 'POST'],
        ['GET', '/oauth/revoke', 405, 'POST, OPTIONS'],
        ['POST', '/oauth/jwks', 405, 'GET, HEAD, OPTIONS'],
        ['POST', '/oauth/authorize', 405, 'GET, HEAD'],
        ['PATCH', '/oauth/par', 405, 'POST, OPTIONS'],
        ['GET', '/oauth/logout/confirm', 405, 'POST'],
        ['POST', '/oauth/.well-known/openid-configuration', 405, 'GET, HEAD, OPTIONS'],
        ['GET', '/oauth/token/', 405, 'POST, OPTIONS'],
        ['GET', '/oauth/jwks/x', 404, null],
        ['POST', '/oauth/token/introspection', 404, null],
        ['POST', '/oauth/introspect', 404, null],
        ['GET', '/oauth/userinfo', 404, null],
        ['GET', '/oauth/nope', 404, null],
        ['GET', '/oauth', 404, null],
      ];
      for (const [method, p, status, allow] of cases) {
        const res = await s.call(p, { method });
        expect(res.status, `${method} ${p}`).toBe(status);
        expect(res.headers.get('content-type'), `${method} ${p}`).toMatch(/^application\/json/);
        expect(res.headers.get('allow'), `${method} ${p}`).toBe(allow);
        expect(res.body, `${method} ${p}`).toMatchObject({
          error: status === 405 ? 'method_not_allowed' : 'not_found',
          error_description: expect.any(String),
        });
        expectError(res, status, res.body.error);
        expect(res.headers.get('x-ratelimit-limit'), `${method} ${p}`).toMatch(/^\d+$/);
      }
      // Every method the table gives each endpoint reaches oidc-provider (never its plain-text 404).
      for (const { path: p, methods } of PROVIDER_ENDPOINTS) {
        for (const method of methods) {
          const res = await fetch(`${base}/oauth${p.replace('*', 'x')}`, {
            method,
            redirect: 'manual',
            headers: { origin: 'https://client.example', 'access-control-request-method': 'POST' },
          });
          expect(res.headers.get('content-type') ?? '', `${method} ${p}`).not.toMatch(/^text\/plain/);
          expect(res.status, `${method} ${p}`).not.toBe(404);
          await res.arrayBuffer();
        }
      }
    });

    it("bodies past the limits are 413: 56 KiB on oidc-provider's endpoints (OAuth format), 16 KiB on the sign-in steps (error format)", async () => {
      const metadata = (size: number) =>
        JSON.stringify({ client_name: 'x'.repeat(size), redirect_uris: [redirectUrl], token_endpoint_auth_method: 'none' });
      // Under the body limit, but past the client metadata's (docs/auth.md): RFC 7591's 400.
      const within = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: metadata(40_000),
      });
      expect(within.status).toBe(400);
      expect(await within.json()).toMatchObject({ error: 'invalid_client_metadata' });
      for (const size of [100_000, 2_000_000]) {
        const res = await s.call('/oauth/register', { rawBody: metadata(size), headers: { 'content-type': 'application/json' } });
        expect(res.status, String(size)).toBe(413);
        expect(res.body).toMatchObject({ error: 'payload_too_large', error_description: expect.stringContaining('57344 bytes') });
      }
      // Sent in chunks, without Content-Length, the same.
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          `${base}/oauth/token`,
          { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.write(`grant_type=authorization_code&code=${'x'.repeat(70_000)}`);
        req.end();
      });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toMatchObject({ error: 'payload_too_large' });
      // A body that merely is not the form is still the library's 400.
      const bad = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(bad.status).toBe(400);

      const uid = await interactionUid();
      for (const size of [20_000, 2_000_000]) {
        const res = await s.call(`/oauth/interaction/${uid}/login`, {
          rawBody: JSON.stringify({ email: user.email, password: 'x'.repeat(size) }),
        });
        expect(expectError(res, 413, 'payload_too_large').message).toContain('16384 bytes');
      }
      expectError(await s.call(`/oauth/interaction/${uid}/login`, { rawBody: '{not json' }), 400, 'invalid_request');
    });

    it('the sign-in step refuses text that cannot be stored with 400, never a 500', async () => {
      const uid = await interactionUid();
      other ??= await userWithTenant();
      for (const body of [
        { email: 'z\u0000@example.com', password: 'whatever' },
        { email: 'z\ud800@example.com', password: 'whatever' },
        { email: other.email, password: 'pass\u0000' },
      ]) {
        const res = await s.call(`/oauth/interaction/${uid}/login`, { body });
        const err = expectError(res, 400, 'invalid_request');
        expect(err.message).toMatch(/NUL \(U\+0000\).*cannot be stored/);
        expect(err.issues).toEqual([{ path: expect.stringMatching(/^(email|password)$/), message: err.message }]);
      }
      expect((await s.call(`/oauth/interaction/${uid}/consent`, { body: { scopes: ['modules:read\u0000'] } })).status).toBe(400);
      // The request is still usable.
      expect(
        (await s.call(`/oauth/interaction/${uid}/login`, { body: { email: other.email, password: other.password } })).body,
      ).toMatchObject({ step: 'consent' });
    });

    it('refuses PKCE plain, a missing code challenge and another resource', async () => {
      const { clientId, verifier } = await registered();
      const attempts: Record<string, string>[] = [
        { client_id: clientId, code_challenge: verifier, code_challenge_method: 'plain' },
        { client_id: clientId },
      ];
      for (const params of attempts) {
        const res = await fetch(authUrl(params), { redirect: 'manual' });
        expect(res.status).toBe(303);
        const to = new URL(res.headers.get('location')!);
        expect(to.href.startsWith(redirectUrl)).toBe(true);
        expect(to.searchParams.get('error')).toBe('invalid_request');
      }
      const { challenge } = await registered();
      const other = await fetch(
        authUrl({
          client_id: clientId,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          resource: 'https://elsewhere.example/api',
        }),
        { redirect: 'manual' },
      );
      const to = new URL(other.headers.get('location')!);
      expect(to.searchParams.get('error')).toBe('invalid_target');
    });

    it('refuses a code exchanged with the wrong verifier, and an access token for another audience', async () => {
      const { clientId, challenge } = await registered();
      const back = await authorize(
        authUrl({ client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256', resource: `${base}/api/mcp` }),
        ['modules:read'],
      );
      const code = back.searchParams.get('code')!;
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUrl,
          client_id: clientId,
          code_verifier: randomBytes(32).toString('base64url'),
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_grant' });

      // A correctly signed token of this issuer for another audience is refused at /api/mcp.
      const { SignJWT, importJWK } = await import('jose');
      const keys = identityKeys(s.svc);
      const key = await importJWK(keys.privateJwk as Parameters<typeof importJWK>[0], 'ES256');
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({ scope: 'modules:read', gid: 'x', client_id: clientId })
        .setProtectedHeader({ alg: 'ES256', kid: keys.kid, typ: 'at+jwt' })
        .setIssuer(`${base}/oauth`)
        .setAudience('https://elsewhere.example/api')
        .setSubject(userId)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(key);
      const refused = await s.call('/api/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, bearer: forged });
      expectError(refused, 401, 'unauthorized');
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('the consent step refuses a user with no tenant, and a declined request returns access_denied', async () => {
      const { clientId, challenge } = await registered();
      const loner = { email: `loner-${randomBytes(4).toString('hex')}@example.com`, password: 'another fine password' };
      await signUp(loner);
      const start = await fetch(authUrl({ client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' }), {
        redirect: 'manual',
      });
      const uid = new URL(start.headers.get('location')!, base).pathname.split('/').pop()!;
      const details = await s.call(`/oauth/interaction/${uid}/login`, { body: loner });
      expect(details.body).toMatchObject({ step: 'consent', tenant: null, account: { email: loner.email } });
      const consent = await s.call(`/oauth/interaction/${uid}/consent`, { body: { scopes: ['modules:read'] } });
      expectError(consent, 409, 'conflict');
      expect(consent.body.reason).toBe('no_tenant');
      const abort = await s.call(`/oauth/interaction/${uid}/abort`, { method: 'POST', body: {} });
      expect(abort.status).toBe(200);
      expect(abort.body.redirect_to).toContain(`/oauth/authorize/${uid}`);
      expectError(await s.call('/oauth/interaction/nope'), 404, 'not_found');
    });
  }
});

describe('MCP OAuth with another identity provider', () => {
  it('AUTH_JWT_SECRET set: no built-in authorization server (its paths are 404), /api/mcp still challenges with Bearer', async () => {
    const s = await startTestServer({ env: { AUTH_JWT_SECRET: 'elsewhere-secret-0123456789-abcdefghijkl' } });
    try {
      for (const p of [
        '/.well-known/oauth-protected-resource/api/mcp',
        '/.well-known/oauth-authorization-server/oauth',
        '/oauth/jwks',
        '/oauth/interaction/abc',
      ]) {
        expectError(await s.call(p), 404, 'not_found');
      }
      const res = await s.call('/api/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      expectError(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    } finally {
      await s.close();
    }
  });
});
