/**
 * The built-in identity provider (GoTrue subset at /auth/v1) driven by the real
 * @supabase/supabase-js client, and its bearer tokens on REST, MCP and tRPC.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeProtectedHeader, exportJWK, exportSPKI, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, expectError, startTestServer, type ApiResponse, type TestServer } from '../harness';

const newEmail = () => `user-${randomBytes(5).toString('hex')}@example.com`;
const PASSWORD = 'correct horse battery';

function supabase(s: TestServer): SupabaseClient {
  return createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
}

/** A raw GoTrue call with the anon key. */
function gotrue(
  s: TestServer,
  path: string,
  o: { body?: unknown; method?: string; token?: string; apikey?: string | null } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (o.apikey !== null) headers.apikey = o.apikey ?? s.config.auth.anonKey;
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  return s.call(`/auth/v1${path}`, { method: o.method, body: o.body, headers });
}

async function signUpAndIn(s: TestServer, email = newEmail()) {
  const sb = supabase(s);
  const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  expect(data.session).not.toBeNull();
  return { sb, email, session: data.session!, userId: data.user!.id };
}

/** tRPC answers its own error shape, with the REST body under data.app. */
function expectTrpcUnauthorized(res: ApiResponse) {
  expect(res.status).toBe(401);
  expect(res.body.error.data.app.error).toBe('unauthorized');
  return res.body.error.data.app;
}

function expectUnauthorized(res: ApiResponse) {
  const body = expectError(res, 401, 'unauthorized');
  // The random request id is left out: `req_…SJWSBn…` once matched /JWS/.
  expect(res.text.replace(body.request_id, '')).not.toMatch(/JWS|JWT[A-Z]|jose|stack|at .*\.ts/);
  return body;
}

backends.describe('built-in identity provider with supabase-js (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('signUp, signInWithPassword, getUser, refreshSession, updateUser (password) and signOut', async () => {
    const email = newEmail();
    const { sb, session, userId } = await signUpAndIn(s, email);
    expect(session.user.email).toBe(email);
    expect(session.token_type).toBe('bearer');
    expect(session.expires_in).toBe(3600);

    const signedIn = await sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.id).toBe(userId);

    // The access token: ES256 with the published kid, GoTrue's claims.
    const token = signedIn.data.session!.access_token;
    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('ES256');
    const jwks = await gotrue(s, '/.well-known/jwks.json', { apikey: null });
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.map((k: JWK) => k.kid)).toEqual([header.kid]);
    expect(jwks.body.keys[0]).not.toHaveProperty('d');
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({
      iss: `${s.config.publicBaseUrl}/auth/v1`,
      aud: 'authenticated',
      sub: userId,
      email,
      role: 'authenticated',
      aal: 'aal1',
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(typeof claims.session_id).toBe('string');

    const got = await sb.auth.getUser(token);
    expect(got.error).toBeNull();
    expect(got.data.user?.email).toBe(email);

    const refreshed = await sb.auth.refreshSession({ refresh_token: signedIn.data.session!.refresh_token });
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(signedIn.data.session!.refresh_token);

    const updated = await sb.auth.updateUser({ password: 'a brand new password' });
    expect(updated.error).toBeNull();
    expect((await supabase(s).auth.signInWithPassword({ email, password: PASSWORD })).error?.code).toBe('invalid_credentials');
    expect((await supabase(s).auth.signInWithPassword({ email, password: 'a brand new password' })).error).toBeNull();

    const current = (await sb.auth.getSession()).data.session!;
    expect((await sb.auth.signOut()).error).toBeNull();
    // The signed-out session's refresh token and access token stop working.
    const again = await supabase(s).auth.refreshSession({ refresh_token: current.refresh_token });
    expect(again.error).not.toBeNull();
    expectUnauthorized(await gotrue(s, '/user', { token: current.access_token }));
  });

  it('supabase-js reads GoTrue error codes: weak password, wrong credentials, duplicate sign-up', async () => {
    const sb = supabase(s);
    const weak = await sb.auth.signUp({ email: newEmail(), password: 'short' });
    expect(weak.error?.code).toBe('weak_password');
    expect(weak.error?.name).toBe('AuthWeakPasswordError');

    const { email } = await signUpAndIn(s);
    const wrong = await supabase(s).auth.signInWithPassword({ email, password: 'not the password' });
    expect(wrong.error?.code).toBe('invalid_credentials');
    expect(wrong.error?.message).toBe('Invalid login credentials');
    const unknown = await supabase(s).auth.signInWithPassword({ email: newEmail(), password: PASSWORD });
    expect(unknown.error?.code).toBe('invalid_credentials');

    const twice = await supabase(s).auth.signUp({ email: email.toUpperCase(), password: PASSWORD });
    expect(twice.error?.code).toBe('user_already_exists');
  });

  it("error bodies carry both the project format and GoTrue's fields", async () => {
    const res = await gotrue(s, '/token?grant_type=password', { body: { email: newEmail(), password: 'whatever-123' } });
    const body = expectError(res, 400, 'invalid_request');
    expect(body).toMatchObject({
      code: 'invalid_credentials',
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
      error_description: 'Invalid login credentials',
    });
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('the apikey header is required (except on the JWKS): missing or wrong is 401', async () => {
    const body = { email: newEmail(), password: PASSWORD };
    expect(expectError(await gotrue(s, '/signup', { body, apikey: null }), 401, 'unauthorized').error_code).toBe('no_api_key');
    expect(expectError(await gotrue(s, '/signup', { body, apikey: 'wrong' }), 401, 'unauthorized').error_code).toBe('invalid_api_key');
    expect((await gotrue(s, '/settings')).status).toBe(200);
    expect((await gotrue(s, '/health')).status).toBe(200);
    expectError(await gotrue(s, '/nope'), 404, 'not_found');
    const wrongMethod = await gotrue(s, '/signup', { method: 'GET' });
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toContain('POST');
  });

  it("its access token calls REST after POST /api/v1/auth/register, then MCP and tRPC, on the tenant's pool", async () => {
    const { session, email } = await signUpAndIn(s);
    const token = session.access_token;
    // Not linked yet: 401 naming the two ways in.
    const before = expectUnauthorized(await s.call('/api/v1/me', { bearer: token }));
    expect(before.message).toContain('/api/v1/auth/register');
    expect(before.message).toContain('/api/v1/auth/link');

    const registered = await s.call('/api/v1/auth/register', { bearer: token, body: { agent_name: 'from-bearer' } });
    expect(registered.status).toBe(201);
    expect(registered.body.api_key).toMatch(/^amp_/);
    const tenantId = registered.body.tenant_id;

    const me = await s.call('/api/v1/me', { bearer: token });
    expect(me.status).toBe(200);
    expect(me.body.tenant_id).toBe(tenantId);
    expect(me.body.credential).toMatchObject({ type: 'bearer', scopes: ['*'] });
    // The same pool as the tenant's API key.
    const viaKey = await s.call('/api/v1/me', { key: registered.body.api_key });
    expect(Number(viaKey.headers.get('x-ratelimit-remaining'))).toBe(Number(me.headers.get('x-ratelimit-remaining')) - 1);
    const owner = await s.call('/api/v1/admin/tenants?limit=100', { headers: { 'x-admin-token': 'test-admin-token-0123456789' } });
    expect(owner.body.data.find((t: { tenant_id: string }) => t.tenant_id === tenantId)?.owner_email).toBe(email);

    const client = new Client({ name: 'vitest', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    await client.close();

    const trpc = await s.call(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`, { bearer: token });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.tenant_id).toBe(tenantId);

    // Registered once: a second register is 409.
    expectError(await s.call('/api/v1/auth/register', { bearer: token, body: {} }), 409, 'conflict');
  });

  it('refresh-token reuse after the reuse interval revokes the whole family', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const { session } = await signUpAndIn(s);
      const first = session.refresh_token;
      const second = (await gotrue(s, '/token?grant_type=refresh_token', { body: { refresh_token: first } })).body;
      expect(second.refresh_token).toBeDefined();
      // Within the reuse interval (concurrent refreshes), the old token still yields a session.
      const concurrent = await gotrue(s, '/token?grant_type=refresh_token', { body: { refresh_token: first } });
      expect(concurrent.status).toBe(200);
      vi.setSystemTime(Date.now() + 11_000);
      const reused = await gotrue(s, '/token?grant_type=refresh_token', { body: { refresh_token: first } });
      expect(expectError(reused, 400, 'invalid_request').error_code).toBe('refresh_token_already_used');
      // Every token of the family is dead now, the newest included, and the session's access tokens.
      for (const t of [second.refresh_token, concurrent.body.refresh_token]) {
        expect((await gotrue(s, '/token?grant_type=refresh_token', { body: { refresh_token: t } })).status).toBe(400);
      }
      expectUnauthorized(await gotrue(s, '/user', { token: second.access_token }));
    } finally {
      vi.useRealTimers();
    }
  });

  it('an unknown refresh token is 400 refresh_token_not_found', async () => {
    const res = await gotrue(s, '/token?grant_type=refresh_token', { body: { refresh_token: 'nope' } });
    expect(expectError(res, 400, 'invalid_request').error_code).toBe('refresh_token_not_found');
  });

  it("signing out revokes the session's access tokens on the API too", async () => {
    const { session } = await signUpAndIn(s);
    expect((await s.call('/api/v1/auth/register', { bearer: session.access_token, body: {} })).status).toBe(201);
    expect((await s.call('/api/v1/me', { bearer: session.access_token })).status).toBe(200);
    const out = await gotrue(s, '/logout?scope=global', { method: 'POST', token: session.access_token });
    expect(out.status).toBe(204);
    expectUnauthorized(await s.call('/api/v1/me', { bearer: session.access_token }));
  });

  it('brute-force sign-in is limited per email (429 with Retry-After and over_request_rate_limit)', async () => {
    const { email } = await signUpAndIn(s);
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 12 && !limited; i++) {
      const res = await gotrue(s, '/token?grant_type=password', { body: { email, password: `wrong-password-${i}` } });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(400);
    }
    expect(limited).toBeDefined();
    const body = expectError(limited!, 429, 'rate_limit_exceeded');
    expect(body.error_code).toBe('over_request_rate_limit');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password is refused while limited.
    expect((await gotrue(s, '/token?grant_type=password', { body: { email, password: PASSWORD } })).status).toBe(429);
    const viaJs = await supabase(s).auth.signInWithPassword({ email, password: PASSWORD });
    expect(viaJs.error?.code).toBe('over_request_rate_limit');
  });

  it('the email alone never grants a tenant: an API-registered owner email signed up here gets nothing until it links with the `*` key', async () => {
    const tenant = await s.register();
    await s.setPlan(tenant.tenantId, 'pro');
    const { session } = await signUpAndIn(s, tenant.email);
    const token = session.access_token;
    expectUnauthorized(await s.call('/api/v1/me', { bearer: token }));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: token }));
    expectTrpcUnauthorized(await s.call(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`, { bearer: token }));
    // It cannot register the owner's email either.
    expectError(await s.call('/api/v1/auth/register', { bearer: token, body: {} }), 409, 'conflict');

    // A narrower key of the tenant is not proof.
    const narrow = await s.call('/api/v1/keys', { key: tenant.apiKey, body: { name: 'narrow', scopes: ['keys:manage'] } });
    expect(narrow.status).toBe(201);
    const refused = expectError(
      await s.call('/api/v1/auth/link', { bearer: token, body: { api_key: narrow.body.api_key } }),
      403,
      'insufficient_scope',
    );
    expect(refused.required_scope).toBe('*');
    expectUnauthorized(await s.call('/api/v1/auth/link', { bearer: token, body: { api_key: 'amp_' + 'x'.repeat(40) } }));
    expectUnauthorized(await s.call('/api/v1/auth/link', { body: { api_key: tenant.apiKey } }));
    // Authentication comes before validation: no token (or a bad one) with a bad body is 401, not 400.
    expectUnauthorized(await s.call('/api/v1/auth/link', { body: {} }));
    expectUnauthorized(await s.call('/api/v1/auth/link', { bearer: 'abc', body: {} }));
    expectError(await s.call('/api/v1/auth/link', { bearer: token, body: {} }), 400, 'invalid_request');
    expectUnauthorized(await s.call('/api/v1/me', { bearer: token }));

    // The `*` key links; idempotently.
    const linked = await s.call('/api/v1/auth/link', { bearer: token, body: { api_key: tenant.apiKey } });
    expect(linked.status).toBe(200);
    expect(linked.body).toEqual({ tenant_id: tenant.tenantId });
    expect((await s.call('/api/v1/auth/link', { bearer: token, body: { api_key: tenant.apiKey } })).status).toBe(200);
    const me = await s.call('/api/v1/me', { bearer: token });
    expect(me.status).toBe(200);
    expect(me.body.tenant_id).toBe(tenant.tenantId);

    // Another tenant's `*` key makes the user a member of that one too (its owner: it has none);
    // the token acts for the oldest membership unless X-Tenant-Id names another.
    const other = await s.register();
    expect((await s.call('/api/v1/auth/link', { bearer: token, body: { api_key: other.apiKey } })).body).toEqual({
      tenant_id: other.tenantId,
    });
    expect((await s.call('/api/v1/me', { bearer: token })).body.tenant_id).toBe(tenant.tenantId);
    const named = await s.call('/api/v1/me', { bearer: token, headers: { 'x-tenant-id': other.tenantId } });
    expect(named.body.tenant_id).toBe(other.tenantId);
    const stranger = await s.register();
    expectError(await s.call('/api/v1/me', { bearer: token, headers: { 'x-tenant-id': stranger.tenantId } }), 404, 'not_found');
    expectError(await s.call('/api/v1/me', { bearer: token, headers: { 'x-tenant-id': 'not-a-uuid' } }), 404, 'not_found');
  });

  it('without SMTP: recovery links are logged for the operator; the link signs in once and allows a new password', async () => {
    const { email } = await signUpAndIn(s);
    const info = vi.spyOn(s.svc.logger, 'info');
    try {
      const sb = supabase(s);
      const sent = await sb.auth.resetPasswordForEmail(email, { redirectTo: `${s.config.publicBaseUrl}/reset-password` });
      expect(sent.error).toBeNull();
      // Unknown emails answer the same.
      expect((await supabase(s).auth.resetPasswordForEmail(newEmail())).error).toBeNull();
      const logged = info.mock.calls
        .map((c) => c[0] as { link?: string; email?: string; password?: unknown })
        .filter((f) => typeof f === 'object' && f?.link);
      expect(logged).toHaveLength(1);
      expect(logged[0]!.email).toBe(email);
      expect(JSON.stringify(logged[0])).not.toContain(PASSWORD);
      const link = new URL(logged[0]!.link!);
      expect(link.pathname).toBe('/auth/v1/verify');
      expect(link.searchParams.get('type')).toBe('recovery');

      // Following it (GET, as from a mail) redirects with the session in the fragment.
      const res = await fetch(`${s.url}${link.pathname}${link.search}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.pathname).toBe('/reset-password');
      const fragment = new URLSearchParams(location.hash.slice(1));
      expect(fragment.get('type')).toBe('recovery');
      const access = fragment.get('access_token')!;
      const changed = await gotrue(s, '/user', { method: 'PUT', token: access, body: { password: 'recovered password' } });
      expect(changed.status).toBe(200);
      expect((await supabase(s).auth.signInWithPassword({ email, password: 'recovered password' })).error).toBeNull();

      // The link works once.
      const twice = await fetch(`${s.url}${link.pathname}${link.search}`, { redirect: 'manual' });
      expect(new URLSearchParams(new URL(twice.headers.get('location')!).hash.slice(1)).get('error_code')).toBe('otp_expired');
    } finally {
      info.mockRestore();
    }
  });

  it('text that cannot be stored (U+0000, an unpaired surrogate) is 400 validation_failed on every endpoint, never a 500', async () => {
    const { session } = await signUpAndIn(s);
    const error = vi.spyOn(s.svc.logger, 'error');
    try {
      const cases: [string, { method?: string; body?: unknown; token?: string }, string][] = [
        ['/token?grant_type=password', { body: { email: 'z\u0000@example.com', password: PASSWORD } }, 'email'],
        ['/token?grant_type=password', { body: { email: newEmail(), password: 'pass\u0000word' } }, 'password'],
        ['/token?grant_type=refresh_token', { body: { refresh_token: 'a\u0000' } }, 'refresh_token'],
        ['/signup', { body: { email: newEmail(), password: PASSWORD, data: { x: '\ud800' } } }, 'data'],
        ['/signup', { body: { email: newEmail(), password: PASSWORD, data: { 'x\u0000': 1 } } }, 'data'],
        ['/signup', { body: { email: 'a\u0000@example.com', password: PASSWORD } }, 'email'],
        ['/signup?redirect_to=http://a%00', { body: { email: newEmail(), password: PASSWORD } }, 'redirect_to'],
        ['/recover', { body: { email: 'z\u0000@example.com' } }, 'email'],
        ['/verify', { body: { type: 'recovery', token_hash: 'a\u0000' } }, 'token_hash'],
        ['/user', { method: 'PUT', token: session.access_token, body: { data: { x: 'a\u0000' } } }, 'data'],
        ['/user', { method: 'PUT', token: session.access_token, body: { password: `${PASSWORD}\u0000` } }, 'password'],
        ['/logout?scope=gl%00', { method: 'POST', token: session.access_token }, 'scope'],
      ];
      for (const [path, o, field] of cases) {
        const res = await gotrue(s, path, o);
        const body = expectError(res, 400, 'invalid_request');
        expect(body, path).toMatchObject({ error_code: 'validation_failed', code: 'validation_failed', issues: [{ path: field }] });
        expect(body.message, path).toMatch(/NUL \(U\+0000\).*cannot be stored/);
      }
      // supabase-js reports it as any other validation error.
      const { error: signUpError } = await supabase(s).auth.signUp({
        email: newEmail(),
        password: PASSWORD,
        options: { data: { x: '\ud800' } },
      });
      expect(signUpError?.code).toBe('validation_failed');
      // The mailed link (GET /verify) still answers with a redirect carrying the error.
      const link = await fetch(`${s.url}/auth/v1/verify?type=recovery&token=a%00`, { redirect: 'manual' });
      expect(link.status).toBe(303);
      expect(new URLSearchParams(new URL(link.headers.get('location')!).hash.slice(1)).get('error_code')).toBe('otp_expired');
      expect(error).not.toHaveBeenCalled();
      // The session is untouched (the refused password change changed nothing).
      expect((await gotrue(s, '/user', { token: session.access_token })).status).toBe(200);
    } finally {
      error.mockRestore();
    }
  });

  it('redirect_to is honoured only on this origin', async () => {
    const { email } = await signUpAndIn(s);
    const info = vi.spyOn(s.svc.logger, 'info');
    try {
      await supabase(s).auth.resetPasswordForEmail(email, { redirectTo: 'https://evil.example/steal' });
      const link = new URL(info.mock.calls.map((c) => c[0] as { link?: string }).find((f) => f?.link)!.link!);
      expect(link.searchParams.get('redirect_to')).toBeNull();
      const res = await fetch(`${s.url}${link.pathname}${link.search}&redirect_to=${encodeURIComponent('https://evil.example/x')}`, {
        redirect: 'manual',
      });
      expect(new URL(res.headers.get('location')!).origin).toBe(new URL(s.config.publicBaseUrl).origin);
    } finally {
      info.mockRestore();
    }
  });
});

backends.describe('bearer tokens of the built-in provider: every bad kind is 401 (%s)', (backend) => {
  let s: TestServer;
  let good: { token: string; claims: Record<string, unknown>; kid: string };
  let privateJwk: JWK;
  beforeAll(async () => {
    s = await startTestServer({ backend });
    const { session } = await signUpAndIn(s);
    expect((await s.call('/api/v1/auth/register', { bearer: session.access_token, body: {} })).status).toBe(201);
    privateJwk = JSON.parse(s.config.auth.signingKey!);
    good = {
      token: session.access_token,
      claims: JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString()),
      kid: decodeProtectedHeader(session.access_token).kid!,
    };
  });
  afterAll(async () => s?.close());

  /** Re-signs the good token's claims with changes, by default with the provider's own key. */
  async function forge(o: { claims?: Record<string, unknown>; kid?: string; key?: CryptoKey | Uint8Array; alg?: string } = {}) {
    const key = o.key ?? ((await importJWK(privateJwk, 'ES256')) as CryptoKey);
    return new SignJWT({ ...good.claims, ...o.claims })
      .setProtectedHeader({ alg: o.alg ?? 'ES256', kid: o.kid ?? good.kid, typ: 'JWT' })
      .sign(key);
  }

  it('the good token and a re-signed copy work (the forging helper is sound)', async () => {
    expect((await s.call('/api/v1/me', { bearer: good.token })).status).toBe(200);
    expect((await s.call('/api/v1/me', { bearer: await forge() })).status).toBe(200);
  });

  it('expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const body = expectUnauthorized(await s.call('/api/v1/me', { bearer: await forge({ claims: { iat: now - 7200, exp: now - 3600 } }) }));
    expect(body.message).toMatch(/expired/);
  });

  it('signed with another key (same kid)', async () => {
    const other = await generateKeyPair('ES256');
    expectUnauthorized(await s.call('/api/v1/me', { bearer: await forge({ key: other.privateKey }) }));
  });

  it('wrong audience, wrong issuer', async () => {
    expectUnauthorized(await s.call('/api/v1/me', { bearer: await forge({ claims: { aud: 'anon' } }) }));
    expectUnauthorized(await s.call('/api/v1/me', { bearer: await forge({ claims: { iss: 'https://evil.example/auth/v1' } }) }));
  });

  it('alg none', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    expectUnauthorized(await s.call('/api/v1/me', { bearer: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(good.claims)}.` }));
  });

  it('unknown kid', async () => {
    expectUnauthorized(await s.call('/api/v1/me', { bearer: await forge({ kid: 'some-other-kid' }) }));
  });

  it('HS256 keyed with the public key (algorithm confusion)', async () => {
    const publicJwk = { ...privateJwk };
    delete publicJwk.d;
    const pem = await exportSPKI((await importJWK(publicJwk, 'ES256')) as CryptoKey);
    const asJwk = JSON.stringify(await exportJWK((await importJWK(publicJwk, 'ES256')) as CryptoKey));
    for (const secret of [pem, asJwk]) {
      expectUnauthorized(await s.call('/api/v1/me', { bearer: await forge({ alg: 'HS256', key: new TextEncoder().encode(secret) }) }));
    }
  });

  it('the same refusals on MCP and tRPC', async () => {
    const expired = await forge({ claims: { exp: Math.floor(Date.now() / 1000) - 10 } });
    const mcp = await s.call('/api/mcp', {
      bearer: expired,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expectUnauthorized(mcp);
    expectTrpcUnauthorized(await s.call(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`, { bearer: await forge({ kid: 'x' }) }));
  });
});

describe('the built-in provider is off when another one is configured', () => {
  it("AUTH_URL alone: the JWKS at {AUTH_URL}/auth/v1/.well-known/jwks.json, the issuer {AUTH_URL}/auth/v1, and the project's own email_confirmed_at as proof (a Supabase project with asymmetric keys)", async () => {
    const pair = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'supabase-key-1', alg: 'ES256', use: 'sig' };
    let hits = 0;
    const ANON = 'supabase-anon-key-for-the-test';
    /** Emails the fake Supabase project has confirmed (its GET /auth/v1/user says email_confirmed_at). */
    const confirmed = new Set<string>();
    const provider = createServer((req, res) => {
      if (req.url === '/auth/v1/user') {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (req.headers.apikey !== ANON || !token) return void res.writeHead(401).end('{}');
        const email = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).email as string;
        const body = { id: 'x', email, email_confirmed_at: confirmed.has(email) ? new Date().toISOString() : null };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }
      if (req.url !== '/auth/v1/.well-known/jwks.json') return void res.writeHead(404).end();
      hits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const authUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    const s = await startTestServer({ env: { AUTH_URL: authUrl, AUTH_ANON_KEY: ANON } });
    try {
      expectError(await gotrue(s, '/token?grant_type=password', { body: {} }), 404, 'not_found');
      const tenant = await s.register();
      const sign = (iss: string) =>
        new SignJWT({ email: tenant.email, role: 'authenticated', user_metadata: { email_verified: true } })
          .setProtectedHeader({ alg: 'ES256', kid: 'supabase-key-1', typ: 'JWT' })
          .setSubject(randomBytes(8).toString('hex'))
          .setIssuer(iss)
          .setAudience('authenticated')
          .setExpirationTime('1h')
          .sign(pair.privateKey);
      // Supabase's access tokens carry no top-level email_verified, and user_metadata is
      // user-editable: the project itself is asked (GET /auth/v1/user -> email_confirmed_at).
      expectUnauthorized(await s.call('/api/v1/me', { bearer: await sign(`${authUrl}/auth/v1`) }));
      confirmed.add(tenant.email);
      const me = await s.call('/api/v1/me', { bearer: await sign(`${authUrl}/auth/v1`) });
      expect(me.status).toBe(200);
      expect(me.body.tenant_id).toBe(tenant.tenantId);
      expect(hits).toBeGreaterThan(0);
      expectUnauthorized(await s.call('/api/v1/me', { bearer: await sign('https://other.example/auth/v1') }));
    } finally {
      await s.close();
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  });

  for (const env of [
    { AUTH_JWT_SECRET: 'elsewhere-secret-0123456789-abcdefghijkl' },
    { AUTH_URL: 'https://project.supabase.example', AUTH_JWT_SECRET: 'elsewhere-secret-0123456789-abcdefghijkl' },
  ]) {
    it(`/auth/v1/* is 404 and HS256 tokens from elsewhere work (${Object.keys(env).join(', ')})`, async () => {
      const s = await startTestServer({ env });
      try {
        for (const path of ['/token?grant_type=password', '/signup', '/.well-known/jwks.json', '/user']) {
          const res = await gotrue(s, path, {
            method: path === '/user' || path.startsWith('/.well') ? 'GET' : 'POST',
            body: path === '/user' || path.startsWith('/.well') ? undefined : {},
          });
          expectError(res, 404, 'not_found');
        }
        const tenant = await s.register();
        const issuer = 'AUTH_URL' in env ? `${env.AUTH_URL}/auth/v1` : undefined;
        const sign = (claims: Record<string, unknown>) => {
          let jwt = new SignJWT({ role: 'authenticated', ...claims })
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
            .setSubject(randomBytes(8).toString('hex'))
            .setAudience('authenticated')
            .setExpirationTime('1h');
          if (issuer) jwt = jwt.setIssuer(issuer);
          return jwt.sign(new TextEncoder().encode(env.AUTH_JWT_SECRET));
        };
        // A token saying the email is verified (the OIDC claim) links on first use.
        const verified = await sign({ email: tenant.email, email_verified: true });
        const me = await s.call('/api/v1/me', { bearer: verified });
        expect(me.status).toBe(200);
        expect(me.body.tenant_id).toBe(tenant.tenantId);
        // An unverified email does not.
        const other = await s.register();
        expectUnauthorized(await s.call('/api/v1/me', { bearer: await sign({ email: other.email }) }));
        expectUnauthorized(await s.call('/api/v1/me', { bearer: await sign({ email: other.email, email_verified: false }) }));
        // user_metadata is user-editable at Supabase: a self-declared email_verified is no proof.
        expectUnauthorized(
          await s.call('/api/v1/me', { bearer: await sign({ email: other.email, user_metadata: { email_verified: true } }) }),
        );
      } finally {
        await s.close();
      }
    });
  }
});
