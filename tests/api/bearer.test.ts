import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type ApiResponse, type TestServer } from '../harness';

const SECRET = 'bearer-test-secret-0123456789-abcdefghij';
const OTHER_SECRET = 'another-secret-0123456789-abcdefghijklmn';
const ISSUER = 'https://auth.test.example/auth/v1';
const AUDIENCE = 'authenticated';

const enc = (s: string) => new TextEncoder().encode(s);
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

interface TokenOptions {
  email?: string | null;
  alg?: string;
  secret?: string | Uint8Array | CryptoKey;
  kid?: string;
  audience?: string;
  issuer?: string;
  /** Seconds from now; negative = already expired. */
  expiresIn?: number;
  claims?: JWTPayload;
  /** The user at the provider; by default one per email address. */
  sub?: string;
}

/**
 * A JWT shaped like the identity provider's access tokens (HS256 with SECRET by default), its email
 * marked verified by the OIDC claim `email_verified` unless the claims say otherwise.
 */
async function signToken(o: TokenOptions = {}): Promise<string> {
  const payload: JWTPayload = { role: 'authenticated', email_verified: true, ...o.claims };
  if (o.email !== null) payload.email = o.email ?? 'nobody@example.com';
  const alg = o.alg ?? 'HS256';
  const key = o.secret === undefined ? enc(SECRET) : typeof o.secret === 'string' ? enc(o.secret) : o.secret;
  return (
    new SignJWT(payload)
      .setProtectedHeader({ alg, typ: 'JWT', ...(o.kid ? { kid: o.kid } : {}) })
      // One user per address, as at a real provider: the same email (in any case) is the same `sub`.
      .setSubject(
        o.sub ??
          `user-${createHash('sha256')
            .update((o.email ?? 'none').toLowerCase())
            .digest('hex')
            .slice(0, 16)}`,
      )
      .setIssuedAt()
      .setAudience(o.audience ?? AUDIENCE)
      .setIssuer(o.issuer ?? ISSUER)
      .setExpirationTime(nowSeconds() + (o.expiresIn ?? 3600))
      .sign(key)
  );
}

/** An unsigned token (`alg: none`): header.payload. with an empty signature. */
function unsignedToken(email: string): string {
  const payload = { email, aud: AUDIENCE, iss: ISSUER, sub: 'x', iat: nowSeconds(), exp: nowSeconds() + 3600 };
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`;
}

function expectUnauthorized(res: ApiResponse) {
  const body = expectError(res, 401, 'unauthorized');
  // No verifier internals leak (jose error names, stack traces).
  // The random request id is left out: `req_…SJWSBn…` once matched /JWS/.
  expect(res.text.replace(body.request_id, '')).not.toMatch(/JWS|JWT[A-Z]|jose|stack|at .*\.ts/);
  return body;
}

backends.describe('bearer tokens, shared secret (%s)', (backend) => {
  let s: TestServer;
  let tenant: { apiKey: string; tenantId: string; email: string };
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { AUTH_JWT_SECRET: SECRET, AUTH_ISSUER: ISSUER } });
    tenant = await s.register();
  });
  afterAll(async () => s?.close());

  it("a valid token whose verified email is a tenant's owner email links to that tenant and authenticates as it", async () => {
    const token = await signToken({ email: tenant.email });
    const res = await s.call('/api/v1/keys', { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].primary).toBe(true);
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('the bearer principal holds scope `*`', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const token = await signToken({ email: t.email });
    // Granting `*` requires holding `*` (a keys:manage-only key gets 403 here, see keys.test.ts).
    const created = await s.call('/api/v1/keys', { bearer: token, body: { name: 'from-bearer', scopes: ['*'] } });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(['*']);
    // Rotating the primary key requires holding every scope it has, i.e. `*`.
    const primary = (await s.call('/api/v1/keys', { bearer: token })).body.data.find((k: any) => k.primary);
    const rotated = await s.call(`/api/v1/keys/${primary.key_id}/rotate`, { bearer: token, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.scopes).toEqual(['*']);
  });

  it('matches the owner email case-insensitively, both ways', async () => {
    const mixed = `Owner-${randomBytes(4).toString('hex')}@Example.COM`;
    const t = await s.register({ owner_email: mixed });
    const lower = await s.call('/api/v1/keys', { bearer: await signToken({ email: mixed.toLowerCase() }) });
    expect(lower.status).toBe(200);
    const upper = await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email.toUpperCase() }) });
    expect(upper.status).toBe(200);
    // Each token reached its own tenant.
    const ownKeys = (await s.call('/api/v1/keys', { key: t.apiKey })).body.data.map((k: any) => k.key_id);
    expect(lower.body.data.map((k: any) => k.key_id)).toEqual(ownKeys);
    expect(upper.body.data.map((k: any) => k.key_id)).not.toEqual(ownKeys);
  });

  it('accepts the scheme name in any case', async () => {
    const token = await signToken({ email: tenant.email });
    const res = await s.call('/api/v1/keys', { headers: { authorization: `bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const token = await signToken({ email: tenant.email, expiresIn: -120 });
    const body = expectUnauthorized(await s.call('/api/v1/keys', { bearer: token }));
    expect(body.message).toMatch(/expired/i);
  });

  it('refuses a token without `exp` (bearer tokens expire)', async () => {
    const noExp = await new SignJWT({ email: tenant.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(AUDIENCE)
      .setIssuer(ISSUER)
      .sign(enc(SECRET));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: noExp }));
  });

  it('refuses a token signed with another secret', async () => {
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email, secret: OTHER_SECRET }) }));
  });

  it('refuses `alg: none`', async () => {
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: unsignedToken(tenant.email) }));
  });

  it('refuses an unexpected algorithm even with the right secret (HS512, HS384)', async () => {
    for (const alg of ['HS512', 'HS384']) {
      expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email, alg }) }));
    }
  });

  it('refuses a wrong audience', async () => {
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email, audience: 'anon' }) }));
  });

  it('refuses a wrong issuer', async () => {
    const token = await signToken({ email: tenant.email, issuer: 'https://evil.example/auth/v1' });
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: token }));
  });

  it('an email the provider does not say is verified links nothing (an email alone never grants a tenant)', async () => {
    const t = await s.register();
    expectUnauthorized(
      await s.call('/api/v1/keys', { bearer: await signToken({ email: t.email, claims: { email_verified: undefined } }) }),
    );
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: t.email, claims: { email_verified: false } }) }));
    // Supabase's user_metadata is user-editable (updateUser({ data })): its email_verified proves nothing.
    const selfDeclared = await signToken({
      email: t.email,
      claims: { email_verified: undefined, user_metadata: { email_verified: true } },
    });
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: selfDeclared }));
    expect((await s.call('/api/v1/keys', { bearer: await signToken({ email: t.email }) })).status).toBe(200);
  });

  it('refuses a valid token whose email owns no tenant', async () => {
    const token = await signToken({ email: `stranger-${randomBytes(4).toString('hex')}@example.com` });
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: token }));
  });

  it('refuses a valid token without an email claim', async () => {
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: null }) }));
  });

  it('refuses a tampered payload', async () => {
    const [h, , sig] = (await signToken({ email: 'nobody@example.com' })).split('.');
    const forged = `${h}.${b64url({ email: tenant.email, aud: AUDIENCE, iss: ISSUER, exp: nowSeconds() + 3600 })}.${sig}`;
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: forged }));
  });

  it('refuses malformed Authorization headers', async () => {
    const token = await signToken({ email: tenant.email });
    for (const authorization of [
      `Basic ${Buffer.from(`${tenant.email}:password`).toString('base64')}`,
      `Basic ${token}`,
      'Bearer',
      'Bearer not-a-jwt',
      `Bearer ${token} extra`,
      token,
    ]) {
      expectUnauthorized(await s.call('/api/v1/keys', { headers: { authorization } }));
    }
  });

  it('no credential at all is 401 too', async () => {
    expectUnauthorized(await s.call('/api/v1/keys'));
  });

  it('x-api-key takes precedence: a bad key with a good token is still 401', async () => {
    const token = await signToken({ email: tenant.email });
    expectUnauthorized(await s.call('/api/v1/keys', { key: 'amp_wrong', bearer: token }));
  });
});

backends.describe("bearer tokens, no external provider configured: only the built-in provider's (%s)", (backend) => {
  let s: TestServer;
  let tenant: { email: string };
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { AUTH_JWT_SECRET: undefined, AUTH_JWKS_URL: undefined, AUTH_ISSUER: ISSUER } });
    tenant = await s.register();
  });
  afterAll(async () => s?.close());

  it('refuses every bearer token, whatever it is signed with', async () => {
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email }) }));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email, secret: OTHER_SECRET }) }));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: unsignedToken(tenant.email) }));
  });
});

backends.describe('bearer tokens, JWKS (%s)', (backend) => {
  const KID = 'test-key-1';
  let jwks: Server;
  let s: TestServer;
  let tenant: { email: string };
  let privateKey: CryptoKey;
  let publicPem: string;
  let jwksHits = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    publicPem = await exportSPKI(pair.publicKey);
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
    const body = JSON.stringify({ keys: [jwk] });
    jwks = createServer((req, res) => {
      jwksHits++;
      if (req.url !== '/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    s = await startTestServer({
      backend,
      env: { AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`, AUTH_ISSUER: ISSUER },
    });
    tenant = await s.register();
  });
  afterAll(async () => {
    await s?.close();
    await new Promise<void>((resolve) => (jwks ? jwks.close(() => resolve()) : resolve()));
  });

  it('accepts an RS256 token signed with a key from the JWKS', async () => {
    const res = await s.call('/api/v1/keys', {
      bearer: await signToken({ email: tenant.email, alg: 'RS256', kid: KID, secret: privateKey }),
    });
    expect(res.status).toBe(200);
    expect(jwksHits).toBeGreaterThan(0);
  });

  it('refuses an RS256 token signed with a key outside the JWKS', async () => {
    const stranger = await generateKeyPair('RS256');
    expectUnauthorized(
      await s.call('/api/v1/keys', {
        bearer: await signToken({ email: tenant.email, alg: 'RS256', kid: KID, secret: stranger.privateKey }),
      }),
    );
  });

  it('refuses HS256 tokens, including one keyed with the public key (algorithm confusion)', async () => {
    for (const secret of [SECRET, publicPem]) {
      expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email, secret }) }));
      expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ email: tenant.email, secret, kid: KID }) }));
    }
  });

  it('refuses `alg: none`, expired, wrong-audience and wrong-issuer RS256 tokens', async () => {
    const rs = { alg: 'RS256', kid: KID, secret: privateKey, email: tenant.email };
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: unsignedToken(tenant.email) }));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ ...rs, expiresIn: -120 }) }));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ ...rs, audience: 'anon' }) }));
    expectUnauthorized(await s.call('/api/v1/keys', { bearer: await signToken({ ...rs, issuer: 'https://evil.example' }) }));
  });
});
