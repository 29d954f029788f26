/**
 * The dashboard's chosen tenant (the `amp-tenant` cookie) on API calls authenticated by the
 * session cookie: sent on as `x-tenant-id` for a password session when the request names none;
 * never for an API-key session, never over the request's own header, and only when it is a UUID.
 */
import { encode } from 'next-auth/jwt';
import { describe, expect, it } from 'vitest';
import { sessionHeaders } from './session';

const config = { publicBaseUrl: 'http://localhost:3000', sessionSecret: 'session-secret-for-tests-0123456789' };
const TENANT = '0b6c2b5e-4a57-4f43-9d0e-6f1a2b3c4d5e';

async function cookieOf(dashboard: Record<string, unknown>, extra = ''): Promise<string> {
  const value = await encode({ token: { sub: 'x', dashboard }, secret: config.sessionSecret });
  return `next-auth.session-token=${value}${extra}`;
}
const password = { kind: 'password', admin: false, accessToken: 'access-token', expiresAt: Math.floor(Date.now() / 1000) + 3600 };

describe('the tenant cookie on dashboard calls', () => {
  it('a password session names the chosen tenant with x-tenant-id', async () => {
    const headers = await sessionHeaders({ cookie: await cookieOf(password, `; amp-tenant=${TENANT.toUpperCase()}`) }, config);
    expect(headers).toMatchObject({ authorization: 'Bearer access-token', 'x-tenant-id': TENANT });
  });

  it('no cookie, or one that is not a tenant id: no x-tenant-id (the default tenant)', async () => {
    expect((await sessionHeaders({ cookie: await cookieOf(password) }, config))?.['x-tenant-id']).toBeUndefined();
    for (const bad of ['nope', `${TENANT}x`, '../admin', ''])
      expect((await sessionHeaders({ cookie: await cookieOf(password, `; amp-tenant=${bad}`) }, config))?.['x-tenant-id']).toBeUndefined();
  });

  it("the request's own X-Tenant-Id wins over the cookie", async () => {
    const own = '11111111-2222-4333-8444-555555555555';
    const headers = await sessionHeaders({ cookie: await cookieOf(password, `; amp-tenant=${TENANT}`), 'x-tenant-id': own }, config);
    expect(headers?.['x-tenant-id']).toBe(own);
  });

  it('an API-key session acts for its key alone', async () => {
    const headers = await sessionHeaders(
      { cookie: await cookieOf({ kind: 'api_key', admin: false, apiKey: 'amp_key' }, `; amp-tenant=${TENANT}`) },
      config,
    );
    expect(headers).toMatchObject({ 'x-api-key': 'amp_key' });
    expect(headers?.['x-tenant-id']).toBeUndefined();
  });
});
