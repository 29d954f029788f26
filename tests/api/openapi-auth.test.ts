/**
 * The authentication OpenAPI document (`/api/openapi-auth.json`): the built-in identity provider
 * (`/auth/v1/*`) and the OAuth 2.1 authorization server (`/oauth/*` and its metadata). Served like
 * the main document, lints clean with the same Redocly and Spectral setup, documents every route
 * the handlers serve and nothing else, and real answers (a sign-up, sign-in and refresh; an OAuth
 * registration, authorization, token exchange, refresh and revocation) match it: each status is
 * documented, each body validates (ajv, JSON Schema 2020-12) against the documented schema.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_OPENAPI_PATH, buildAuthOpenApiDocument } from '../../src/server/http/openapi-auth';
import { identityRoutes } from '../../src/server/identity/handler';
import { oauthRoutes } from '../../src/server/oauth/routes';
import { buildOpenApiDocument } from '../../src/server/openapi';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { LINT_BASE_URL, lintsClean, operations } from '../openapi-lint';
import { freePort } from '../ports';

type Json = Record<string, any>;

/** `METHOD /path` of every route the handlers serve (`*` one segment). */
const served = () =>
  [...identityRoutes(), ...oauthRoutes()].flatMap((r) => r.methods.map((m) => `${m} ${r.path}`)).sort((a, b) => a.localeCompare(b));
/** A documented operation as a route: `{param}` -> `*`. */
const asRoute = (where: string) => where.replace(/\{[^}]+\}/g, '*');

describe('authentication OpenAPI document passes Redocly and Spectral', () => {
  const document = lintsClean('openapi-auth', () => buildAuthOpenApiDocument(LINT_BASE_URL));

  it('the rules switched off in redocly.yaml and .spectral.yaml hold everywhere else', () => {
    // Only 401: RFC 7592's read needs a registration access token, which is never issued.
    const noSuccess = new Set(['GET /oauth/register/{client_id}']);
    // Public documents and pages that read no input.
    const no4xx = new Set(['GET /oauth/jwks', 'GET /oauth/logout/success']);
    for (const { where, op } of operations(document())) {
      const codes = Object.keys(op.responses);
      if (noSuccess.has(where)) expect(codes, where).toEqual(['401', '500']);
      else
        expect(
          codes.some((c) => /^[23]\d\d$/.test(c)),
          `${where} has a 2xx or 3xx`,
        ).toBe(true);
      if (!no4xx.has(where))
        expect(
          codes.some((c) => /^4\d\d$/.test(c)),
          `${where} has a 4xx`,
        ).toBe(true);
    }
    for (const where of [...noSuccess, ...no4xx]) expect(operations(document()).map((o) => o.where)).toContain(where);
  });

  it('servers come from PUBLIC_BASE_URL, and the main document is linked', () => {
    expect(document().servers).toEqual([expect.objectContaining({ url: LINT_BASE_URL })]);
    expect(document().externalDocs.url).toBe(`${LINT_BASE_URL}/api/openapi.json`);
    expect(JSON.stringify(document())).not.toMatch(/https?:\/\/localhost/);
  });
});

/** The cookies of one browser-like flow against one origin. */
class Jar {
  cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  res: Response;
}

backends.describe('authentication OpenAPI document (%s)', (backend) => {
  let s: TestServer;
  let base: string;
  let doc: Json;
  let text: string;
  let ajv: Ajv2020;
  const validators = new Map<string, ValidateFunction>();
  /** `METHOD /template` of every operation a real call answered. */
  const answered = new Set<string>();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    s = await startTestServer({ backend, env: { PORT: String(port), PUBLIC_BASE_URL: base } });
    const res = await fetch(`${base}${AUTH_OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    text = await res.text();
    doc = JSON.parse(text);
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
  }, 180_000);
  afterAll(async () => s?.close());

  /** The documented response schema for `where` and `status`, compiled once with the document's components. */
  function validator(where: string, status: number, media: string, schema: Json): ValidateFunction {
    const key = `${where} ${status} ${media}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: doc.components });
      validators.set(key, validate);
    }
    return validate;
  }

  /**
   * Sends a request and checks its answer against the document: the status is documented for
   * `template` (the path when it has no parameter), the media type is the documented one, the
   * body validates against its schema, a declared `Location` is there, and the response headers
   * of the pool family are declared (by an error response, or once for all in `components.headers`).
   */
  async function call(
    method: string,
    target: string,
    opts: { template?: string; headers?: Record<string, string>; json?: unknown; form?: Record<string, string>; raw?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] = 'application/json';
    } else if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] ??= 'application/json';
    }
    const url = new URL(target, base);
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const answerText = await res.text();
    const template = opts.template ?? url.pathname;
    const where = `${method} ${template}`;
    const op = doc.paths?.[template]?.[method.toLowerCase()];
    expect(op, `${where} is documented`).toBeDefined();
    answered.add(where);
    const response = op.responses[String(res.status)];
    expect.soft(response, `${where} -> ${res.status} is documented (${answerText.slice(0, 300)})`).toBeDefined();
    if (!response) return { status: res.status, headers: res.headers, text: answerText, body: tryJson(answerText), res };
    let parsed: unknown = answerText;
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (response.content) {
      const media = Object.keys(response.content);
      expect.soft(media, `${where} -> ${res.status}: ${contentType}`).toContain(contentType);
      const schema = response.content[contentType]?.schema ?? {};
      if (contentType.endsWith('json')) {
        parsed = JSON.parse(answerText);
        const validate = validator(where, res.status, contentType, schema);
        expect
          .soft(validate(parsed), `${where} -> ${res.status}: ${ajv.errorsText(validate.errors)} in ${answerText.slice(0, 500)}`)
          .toBe(true);
      } else expect.soft(answerText, `${where} -> ${res.status}`).toMatch(/\S/);
    } else {
      expect.soft(answerText, `${where} -> ${res.status} has no body`).toBe('');
    }
    const declared = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
    for (const [name, header] of Object.entries(response.headers ?? {}) as [string, Json][]) {
      const resolved = header.$ref ? doc.components.headers[header.$ref.split('/').pop()] : header;
      if (resolved.required) expect.soft(res.headers.get(name), `${where} -> ${res.status}: ${name}`).not.toBeNull();
    }
    // The pool's headers are on every answer: an error response lists them, and the document
    // declares them once (components.headers) for the rest.
    const onceForAll = Object.keys(doc.components.headers).map((h) => h.toLowerCase());
    for (const [name] of res.headers) {
      if (/^(x-request-id|x-ratelimit-.*|ratelimit|ratelimit-policy|x-execution-remaining)$/i.test(name) && res.status < 400)
        expect.soft(onceForAll, `${where} -> ${res.status}: ${name} declared in components.headers`).toContain(name);
      else if (/^(x-request-id|x-ratelimit-.*|ratelimit|ratelimit-policy|x-execution-remaining|retry-after|location)$/i.test(name))
        expect.soft(declared, `${where} -> ${res.status} declares ${name}`).toContain(name);
    }
    return { status: res.status, headers: res.headers, text: answerText, body: parsed, res };
  }

  const anon = () => ({ apikey: s.config.auth.anonKey });
  const signedIn = (token: string) => ({ ...anon(), authorization: `Bearer ${token}` });

  it('is served like /api/openapi.json: 200 JSON, public, the same bytes each time, the pool reported, not consumed', async () => {
    const key = (await s.register()).apiKey;
    const first = await fetch(`${base}${AUTH_OPENAPI_PATH}`, { headers: { 'x-api-key': key } });
    const second = await fetch(`${base}${AUTH_OPENAPI_PATH}`, { headers: { 'x-api-key': key } });
    const main = await fetch(`${base}/api/openapi.json`, { headers: { 'x-api-key': key } });
    for (const res of [first, second]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.text()).toBe(text);
      for (const name of [
        'cache-control',
        'access-control-allow-origin',
        'content-security-policy',
        'x-content-type-options',
        'x-ratelimit-limit',
      ])
        expect(res.headers.get(name), name).toBe(main.headers.get(name));
      expect(res.headers.get('x-request-id')).toMatch(/\S/);
    }
    // Exempt from the request limit: reading it twice consumed nothing of the tenant's pool.
    expect(second.headers.get('x-ratelimit-remaining')).toBe(first.headers.get('x-ratelimit-remaining'));
    const head = await fetch(`${base}${AUTH_OPENAPI_PATH}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await s.call(AUTH_OPENAPI_PATH, { method: 'POST', body: {} });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toContain('GET');
  });

  it("is OpenAPI 3.1.0, passes swagger-parser validation, and shares the main document's ApiError and headers", async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    const main = buildOpenApiDocument(base) as Json;
    expect(doc.components.schemas.ApiError).toEqual(main.components.schemas.ApiError);
    for (const [name, header] of Object.entries(doc.components.headers)) {
      if (name !== 'Location') expect(header, name).toEqual(main.components.headers[name]);
    }
    expect(doc.servers).toEqual([expect.objectContaining({ url: base })]);
  });

  it('the main document documents it as a discovery path', async () => {
    const main = (await s.call('/api/openapi.json')).body;
    const op = main.paths[AUTH_OPENAPI_PATH]?.get;
    expect(op).toBeDefined();
    expect(op.security).toEqual([]);
    expect(op.tags).toEqual(['discovery']);
    expect(op.description).toContain('/auth/v1');
  });

  it('documents every route of the identity provider and the authorization server, and nothing else', () => {
    const documented = operations(doc)
      .map((o) => asRoute(o.where))
      .sort((a, b) => a.localeCompare(b));
    expect(documented).toEqual(served());
  });

  it('security: the anon apikey on /auth/v1 except the open methods, plus the bearer token where a user is needed; client authentication at the token endpoints', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.AnonApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'apikey' });
    expect(schemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.ClientSecretBasic).toMatchObject({ type: 'http', scheme: 'basic' });
    for (const route of identityRoutes()) {
      for (const method of route.methods) {
        const op = doc.paths[route.path][method.toLowerCase()];
        const where = `${method} ${route.path}`;
        if (route.open.includes(method)) expect(op.security, where).toEqual([]);
        else
          expect(
            op.security.every((r: Json) => 'AnonApiKey' in r),
            where,
          ).toBe(true);
      }
    }
    for (const p of ['/oauth/token', '/oauth/revoke', '/oauth/par']) {
      expect(doc.paths[p].post.security, p).toEqual([{}, { ClientSecretBasic: [] }]);
      expect(doc.paths[p].post.requestBody.content, p).toHaveProperty('application/x-www-form-urlencoded');
    }
  });

  it('every operation answers as documented (identity provider)', async () => {
    const email = `doc-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'correct horse battery staple';

    await call('GET', '/auth/v1/.well-known/jwks.json');
    await call('GET', '/auth/v1/health', { headers: anon() });
    expect((await call('GET', '/auth/v1/health')).body.error_code).toBe('no_api_key');
    await call('GET', '/auth/v1/settings', { headers: anon() });

    const signUp = await call('POST', '/auth/v1/signup', { headers: anon(), json: { email, password } });
    expect(signUp.status).toBe(200);
    expect((await call('POST', '/auth/v1/signup', { headers: anon(), json: { email, password } })).body.error_code).toBe(
      'user_already_exists',
    );
    expect((await call('POST', '/auth/v1/signup', { headers: anon(), json: { email: `x${email}`, password: 'short' } })).body.code).toBe(
      'weak_password',
    );
    expect((await call('POST', '/auth/v1/signup', { headers: anon(), raw: '[1]' })).body.code).toBe('bad_json');
    expect((await call('POST', '/auth/v1/signup', { headers: anon(), raw: `{"email":"${'a'.repeat(1024 * 1024)}"}` })).status).toBe(413);

    const signIn = await call('POST', '/auth/v1/token?grant_type=password', { headers: anon(), json: { email, password } });
    expect(signIn.status).toBe(200);
    const wrong = await call('POST', '/auth/v1/token?grant_type=password', {
      headers: anon(),
      json: { email, password: 'wrong password' },
    });
    expect(wrong.body.code).toBe('invalid_credentials');
    const refreshed = await call('POST', '/auth/v1/token?grant_type=refresh_token', {
      headers: anon(),
      json: { refresh_token: signIn.body.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect((await call('POST', '/auth/v1/token?grant_type=magic', { headers: anon(), json: {} })).body.code).toBe('unsupported_grant_type');
    const token: string = refreshed.body.access_token;

    expect((await call('GET', '/auth/v1/user', { headers: signedIn(token) })).body.email).toBe(email);
    expect((await call('GET', '/auth/v1/user', { headers: anon() })).body.code).toBe('no_authorization');
    expect(
      (await call('PUT', '/auth/v1/user', { headers: signedIn(token), json: { data: { plan: 'docs' } } })).body.user_metadata.plan,
    ).toBe('docs');
    expect((await call('PUT', '/auth/v1/user', { headers: signedIn(token), json: { email: `other-${email}` } })).body.code).toBe(
      'email_change_not_supported',
    );

    expect((await call('GET', '/auth/v1/passkeys', { headers: signedIn(token) })).body).toEqual([]);
    expect((await call('DELETE', '/auth/v1/passkeys?id=nope', { headers: signedIn(token) })).status).toBe(404);
    expect((await call('POST', '/auth/v1/passkeys/registration/options', { headers: signedIn(token) })).status).toBe(200);
    const badRegistration = await call('POST', '/auth/v1/passkeys/registration/verify', {
      headers: signedIn(token),
      json: { challenge_id: randomUUID(), response: {} },
    });
    expect(badRegistration.status).toBe(400);
    expect((await call('POST', '/auth/v1/passkeys/authentication/options', { headers: anon() })).status).toBe(200);
    expect((await call('POST', '/auth/v1/passkeys/authentication/verify', { headers: anon(), json: { challenge_id: 'x' } })).status).toBe(
      400,
    );

    expect((await call('POST', '/auth/v1/recover', { headers: anon(), json: { email } })).body).toEqual({});
    expect((await call('POST', '/auth/v1/resend', { headers: anon(), json: { type: 'signup', email } })).body).toEqual({});
    expect((await call('POST', '/auth/v1/verify', { headers: anon(), json: { type: 'signup', token_hash: 'nope' } })).body.code).toBe(
      'otp_expired',
    );
    const link = await call('GET', `/auth/v1/verify?token=nope&type=signup&redirect_to=${encodeURIComponent(`${base}/after`)}`);
    expect(link.status).toBe(303);
    expect(new URL(link.headers.get('location')!).hash).toContain('error_code=otp_expired');

    expect((await call('POST', '/auth/v1/logout?scope=local', { headers: signedIn(token) })).status).toBe(204);
    expect((await call('GET', '/auth/v1/user', { headers: signedIn(token) })).body.code).toBe('session_not_found');
  }, 120_000);

  it('every operation answers as documented (authorization server)', async () => {
    const redirectUri = 'http://127.0.0.1:1/callback';
    const resource = `${base}/api/mcp`;
    const user = { email: `doc-oauth-${randomBytes(5).toString('hex')}@example.com`, password: 'correct horse battery staple' };
    const signUp = await s.call('/auth/v1/signup', { body: user, headers: anon() });
    expect(signUp.status).toBe(200);
    expect((await s.call('/api/v1/auth/register', { bearer: signUp.body.access_token, body: { agent_name: 'doc-oauth' } })).status).toBe(
      201,
    );

    for (const p of [
      '/.well-known/oauth-protected-resource/api/mcp',
      '/.well-known/oauth-protected-resource/api/v1',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server/oauth',
      '/.well-known/openid-configuration/oauth',
      '/oauth/.well-known/openid-configuration',
    ])
      expect((await call('GET', p)).status, p).toBe(200);
    expect((await call('GET', '/oauth/jwks')).body.keys[0].kid).toBe((await s.call('/auth/v1/.well-known/jwks.json')).body.keys[0].kid);

    const clientMetadata = {
      client_name: 'openapi-auth test',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    const registered = await call('POST', '/oauth/register', { json: clientMetadata });
    expect(registered.status).toBe(201);
    const clientId: string = registered.body.client_id;
    expect((await call('POST', '/oauth/register', { json: { ...clientMetadata, redirect_uris: ['http://evil.example/cb'] } })).status).toBe(
      400,
    );
    expect((await call('GET', `/oauth/register/${clientId}`, { template: '/oauth/register/{client_id}' })).status).toBe(401);

    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorizeParams = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'modules:read modules:execute',
      resource,
      state: 'xyz',
    };
    /** `/oauth/authorize` as a browser: the interaction uid and the browser's cookies. */
    const startAuthorization = async () => {
      const jar = new Jar();
      const res = await call('GET', `/oauth/authorize?${new URLSearchParams(authorizeParams)}`);
      jar.take(res.res);
      expect(res.status).toBe(303);
      const page = new URL(res.headers.get('location')!, base);
      expect(page.pathname).toMatch(/^\/consent\/[A-Za-z0-9_-]+$/);
      return { uid: page.pathname.split('/').pop()!, jar };
    };
    const unknownClient = await call('GET', `/oauth/authorize?${new URLSearchParams({ ...authorizeParams, client_id: 'no-such-client' })}`);
    expect(unknownClient.status).toBe(400);

    const { uid, jar } = await startAuthorization();
    const api = `/oauth/interaction/${uid}`;
    expect((await call('GET', api, { template: '/oauth/interaction/{uid}' })).body.step).toBe('login');
    const early = await call('POST', `${api}/consent`, {
      template: '/oauth/interaction/{uid}/consent',
      json: { scopes: ['modules:read'] },
    });
    expect(early.status).toBe(401);
    const badLogin = await call('POST', `${api}/login`, { template: '/oauth/interaction/{uid}/login', json: { email: user.email } });
    expect(badLogin.status).toBe(400);
    const login = await call('POST', `${api}/login`, { template: '/oauth/interaction/{uid}/login', json: user });
    expect(login.body.step).toBe('consent');
    const consent = await call('POST', `${api}/consent`, {
      template: '/oauth/interaction/{uid}/consent',
      json: { scopes: ['modules:read', 'modules:execute'] },
    });
    expect(consent.status).toBe(200);

    // Back through the provider with the browser's cookies, to the client's redirect URI with `code`.
    let next = new URL(consent.body.redirect_to);
    let code: string | null = null;
    for (let hops = 0; hops < 5 && !code; hops++) {
      const template = /^\/oauth\/authorize\/[^/]+$/.test(next.pathname) ? '/oauth/authorize/{uid}' : next.pathname;
      const res = await call('GET', next.pathname + next.search, { template, headers: { cookie: jar.header() } });
      jar.take(res.res);
      expect(res.status).toBe(303);
      next = new URL(res.headers.get('location')!, next);
      if (next.href.startsWith(redirectUri)) code = next.searchParams.get('code');
    }
    expect(code).toBeTruthy();

    const exchange = {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
      resource,
    };
    const tokens = await call('POST', '/oauth/token', { form: exchange });
    expect(tokens.status).toBe(200);
    const refreshed = await call('POST', '/oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId },
    });
    expect(refreshed.status).toBe(200);
    expect((await call('POST', '/oauth/revoke', { form: { token: refreshed.body.access_token, client_id: clientId } })).body.error).toBe(
      'unsupported_token_type',
    );
    expect((await call('POST', '/oauth/revoke', { form: { token: refreshed.body.refresh_token, client_id: clientId } })).status).toBe(200);
    // A code works once (a replay also revokes what it gave).
    expect((await call('POST', '/oauth/token', { form: exchange })).body.error).toBe('invalid_grant');
    expect((await call('POST', '/oauth/token', { form: { ...exchange, client_id: 'no-such-client' } })).status).toBe(401);

    const pushed = await call('POST', '/oauth/par', { form: authorizeParams });
    expect(pushed.status).toBe(201);

    const declined = await startAuthorization();
    const abort = await call('POST', `/oauth/interaction/${declined.uid}/abort`, { template: '/oauth/interaction/{uid}/abort', json: {} });
    expect(abort.status).toBe(200);
    expect((await call('GET', '/oauth/interaction/nope', { template: '/oauth/interaction/{uid}' })).status).toBe(404);

    expect((await call('GET', '/oauth/logout')).status).toBe(200);
    expect((await call('POST', '/oauth/logout/confirm', { form: { xsrf: 'wrong', logout: 'yes' } })).status).toBe(400);
    expect((await call('GET', '/oauth/logout/success')).status).toBe(200);
  }, 120_000);

  it('the real calls above reached every documented operation', () => {
    const documented = operations(doc).map((o) => o.where);
    expect([...answered].sort()).toEqual(documented.sort());
  });
});
