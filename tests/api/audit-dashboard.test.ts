/**
 * The dashboard's side of the audit findings, on the real service with Next (built once,
 * tests/browser/next-build.ts), over plain HTTP: the sign-in page's return path never leaves the
 * service's origin and never fails; every form that carries a secret posts it (a submission
 * without scripts puts nothing in the URL); a user listed in ADMIN_EMAILS whose email is not
 * proven is no operator in the dashboard either (the API's rule). The unit tests of the return
 * path and the API's parts are in tests/api/audit-findings.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { encode } from 'next-auth/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from '../browser/app-server';
import { ensureNextBuild } from '../browser/next-build';

const ADMIN = 'operator-unproven@example.com';
const PASSWORD = 'a long password 1';

describe('the dashboard and the audit findings', () => {
  let server: AppServer;
  let secrets: { SESSION_SECRET: string; AUTH_ANON_KEY: string };

  beforeAll(async () => {
    await ensureNextBuild();
    // No SMTP_URL: the built-in provider confirms sign-ups without mail, so no email is proven.
    server = await startAppServer({ ADMIN_EMAILS: ADMIN }, 600_000);
    secrets = JSON.parse(readFileSync(path.join(server.dataDir, 'secrets.json'), 'utf8'));
  }, 900_000);
  afterAll(() => server?.stop(), 60_000);

  /** The session cookie next-auth would set for a signed-in user (an API-key session: no provider call behind it). */
  async function sessionCookie(): Promise<string> {
    const token = await encode({
      token: { sub: 't', dashboard: { kind: 'api_key', admin: false, apiKey: 'amp_x', tenantId: 'ten_x' } },
      secret: secrets.SESSION_SECRET,
    });
    return `next-auth.session-token=${token}`;
  }

  it('a signed-in visit to /sign-in redirects only on the service origin, and never answers 500', async () => {
    const cookie = await sessionCookie();
    for (const [callback, expected] of [
      ['/%09/evil.example/x', '/dashboard'],
      ['/%0a/evil.example/x', '/dashboard'],
      ['/%0d/evil.example/x', '/dashboard'],
      ['/%0d%0aSet-Cookie:%20x=1', '/Set-Cookie:%20x=1'],
      ['//evil.example/x', '/dashboard'],
      ['/%5Cevil.example/x', '/dashboard'],
      ['/.//evil.example/x', '/dashboard'],
      ['https://evil.example/x', '/dashboard'],
      ['/dashboard/keys?x=1', '/dashboard/keys?x=1'],
    ] as const) {
      const res = await fetch(`${server.url}/sign-in?callbackUrl=${callback}`, { headers: { cookie }, redirect: 'manual' });
      expect(res.status, callback).toBe(307);
      const location = res.headers.get('location')!;
      expect(new URL(location, server.url).origin, callback).toBe(server.url);
      expect(location.replace(server.url, ''), callback).toBe(expected);
      expect(res.headers.get('set-cookie') ?? '', callback).not.toContain('x=1');
    }
  });

  it('signed out, the page hands the forms no other origin to return to', async () => {
    for (const callback of ['/%09/evil.example/x', '/%0a/evil.example/x', '/.//evil.example/x']) {
      const res = await fetch(`${server.url}/sign-in?callbackUrl=${callback}`);
      expect(res.status, callback).toBe(200);
      // The forms' prop in the page's RSC payload (the payload also carries the requested URL itself).
      const html = await res.text();
      expect(html, callback).toContain('\\"callbackUrl\\":\\"/dashboard\\"');
      expect(html, callback).not.toMatch(/\\"callbackUrl\\":\\"[^"\\]*evil/);
    }
  });

  it('every form with a secret field posts it: none is sent in a URL', async () => {
    const pages = ['/sign-in', '/sign-up', '/reset-password', '/reset-password/update'];
    let checked = 0;
    for (const page of pages) {
      const res = await fetch(`${server.url}${page}`);
      expect(res.status, page).toBe(200);
      const $ = cheerio.load(await res.text());
      $('form').each((_, form) => {
        if ($(form).find('input[type=password], input[name=email]').length === 0) return;
        checked++;
        expect($(form).attr('method')?.toLowerCase(), `${page}: ${$(form).attr('aria-label')}`).toBe('post');
      });
    }
    expect(checked).toBeGreaterThanOrEqual(pages.length);
    // Submitted without scripts: a POST to the page, answered without an error; the URL stays clean.
    const res = await fetch(`${server.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'someone@example.com', password: 'secret password' }),
      redirect: 'manual',
    });
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get('location') ?? '').not.toContain('password');
  });

  it('a user in ADMIN_EMAILS whose email is not proven is no operator in the dashboard (as for the API)', async () => {
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: secrets.AUTH_ANON_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
    });
    expect(signup.status).toBe(200);
    const { access_token: bearer } = (await signup.json()) as { access_token: string };
    // The API's rule: not an operator.
    expect((await fetch(`${server.url}/api/v1/admin/tenants`, { headers: { authorization: `Bearer ${bearer}` } })).status).toBe(403);

    // next-auth's sign-in, as the page does it.
    const csrf = await fetch(`${server.url}/api/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const jar = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
    const signIn = await fetch(`${server.url}/api/auth/callback/password`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
      body: new URLSearchParams({ email: ADMIN, password: PASSWORD, csrfToken, json: 'true' }),
      redirect: 'manual',
    });
    const session = signIn.headers.getSetCookie().find((c) => c.startsWith('next-auth.session-token='));
    expect(session, `sign-in answered ${signIn.status}`).toBeDefined();
    const cookie = [...jar, session!.split(';')[0]].join('; ');
    const view = (await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie } })).json()) as {
      dashboard: { email: string; admin: boolean };
    };
    expect(view.dashboard).toMatchObject({ email: ADMIN, admin: false });
    const admin = await fetch(`${server.url}/dashboard/admin`, { headers: { cookie } });
    expect(await admin.text()).toContain('Your account is not one of them');
  });
});
