/**
 * `amp login --browser` against a real service (embedded): the command registers itself with the
 * built-in authorization server, a person signs in and consents on the page it opens (driven here
 * with the consent page's own requests), the redirect reaches the command's loopback listener, and
 * the token it keeps calls the REST API, renews itself and is ended by `amp logout`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile, EXIT, runCli } from '../../packages/sdk/src/cli';
import { startTestServer, type TestServer } from '../harness';
import { consentInBrowser } from '../oauth-client';
import { freePort } from '../ports';

let s: TestServer;
let base: string;
let configDir: string;
const person = { email: `cli-${randomBytes(4).toString('hex')}@example.com`, password: 'a long enough password for the cli' };
let tenantId: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  s = await startTestServer({ env: { PORT: String(port), PUBLIC_BASE_URL: base } });
  const signedUp = await s.call('/auth/v1/signup', { body: person, headers: { apikey: s.config.auth.anonKey! } });
  expect(signedUp.status, signedUp.text).toBe(200);
  const registered = await s.call('/api/v1/auth/register', { bearer: signedUp.body.access_token, body: { agent_name: 'cli-login' } });
  expect(registered.status, registered.text).toBe(201);
  tenantId = registered.body.tenant_id;
  await s.setPlan(tenantId, 'pro');
  configDir = mkdtempSync(path.join(tmpdir(), 'amp-login-'));
});
afterAll(async () => {
  rmSync(configDir, { recursive: true, force: true });
  await s?.close();
});

/** One command line; `browser` is what the person does with the sign-in page the command opens. */
async function amp(args: string[], browser?: (url: string) => Promise<unknown>) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { AMP_CONFIG_DIR: configDir },
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    openUrl: async (url) => void (browser ? browser(url) : undefined),
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

const stored = () => JSON.parse(readFileSync(configFile({ AMP_CONFIG_DIR: configDir }), 'utf8'));

describe('amp login --browser (embedded)', () => {
  it('signs in through the consent page; the kept token calls the API, renews itself, and logout ends it', async () => {
    let asked: URL | undefined;
    const login = await amp(['login', '--base-url', base, '--json'], async (url) => {
      asked = new URL(url);
      return consentInBrowser(url, person);
    });
    expect(login.code, login.stderr).toBe(EXIT.ok);
    expect(login.stderr).toContain(asked!.href);
    expect(asked!.searchParams.get('resource')).toBe(`${base}/api/v1`);
    expect(asked!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked!.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(login.json()).toMatchObject({ tenant_id: tenantId, credential: { type: 'bearer' } });
    const first = stored();
    expect(first).toMatchObject({ base_url: base, oauth: { resource: `${base}/api/v1` } });
    expect(first.api_key).toBeUndefined();

    // The token is for the REST API: whoami and a write that needs `*` work with it...
    expect((await amp(['whoami', '--json'])).json()).toMatchObject({ tenant_id: tenantId, credential: { type: 'bearer' } });
    const created = await amp(['webhooks', 'create', 'https://example.com/hooks', '--json']);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    // ...and not for /api/mcp, whose tokens name that resource.
    const mcp = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${first.oauth.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);

    // An access token about to end is renewed with the refresh token, which rotates.
    writeFileSync(configFile({ AMP_CONFIG_DIR: configDir }), JSON.stringify({ ...first, oauth: { ...first.oauth, expires_at: 0 } }));
    const renewed = await amp(['whoami', '--json']);
    expect(renewed.code, renewed.stderr).toBe(EXIT.ok);
    const second = stored();
    expect(second.oauth.refresh_token).not.toBe(first.oauth.refresh_token);
    expect(second.oauth.expires_at).toBeGreaterThan(Date.now() / 1000);

    const out = await amp(['logout', '--json']);
    expect(out.json()).toEqual({ logged_out: true, revoked: true });
    const after = await s.call('/api/v1/me', { bearer: second.oauth.access_token });
    expect(after.status).toBe(401);
    expect((await amp(['whoami'])).code).toBe(EXIT.auth);
  });

  it('grants only the scopes chosen on the consent page; a refusal there ends the command with exit 3', async () => {
    const narrow = await amp(['login', '--browser', '--base-url', base, '--scopes', 'modules:read'], (url) =>
      consentInBrowser(url, person),
    );
    expect(narrow.code, narrow.stderr).toBe(EXIT.ok);
    expect(narrow.stdout).toContain('(modules:read)');
    expect((await amp(['modules', 'show', 'text'])).code).toBe(EXIT.ok);
    const denied = await amp(['webhooks', 'list']);
    expect(denied.code).toBe(EXIT.auth);
    expect(denied.stderr).toMatch(/403 insufficient_scope/);

    const refused = await amp(['login', '--browser', '--base-url', base], (url) => consentInBrowser(url, person, 'abort'));
    expect(refused.code).toBe(EXIT.auth);
    expect(refused.stderr).toMatch(/Sign-in refused/);
  });
});
