/**
 * OAuth for MCP clients in a real browser (docs/auth.md, OAuth 2.1 for MCP clients): the MCP SDK client connects
 * to /api/mcp with no key, gets the 401, discovers the metadata, registers (DCR, then a Client ID
 * Metadata Document on https), and sends the user to the authorization URL; Chromium (Debian's,
 * driven by Playwright) signs in and consents on the real Next pages (/consent/<uid>); the code
 * comes back to the client's redirect URI, the SDK exchanges it with PKCE, lists tools and calls
 * one. axe-core checks the sign-in and consent pages. The server is server.ts with Next
 * (tests/browser/app-server.ts), on the embedded database.
 */
import { chromium, type Browser } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, missing } from '../needs';
import { MemoryProvider } from '../oauth-client';
import { check, SCREENSHOTS } from './page-check';
import { startAppServer, type AppServer } from './app-server';
import { ensureNextBuild } from './next-build';

const STEP = { timeout: 240_000 };
const ANON_KEY = `anon_${randomBytes(16).toString('hex')}`;

describe.skipIf(missing.chromium !== undefined)('MCP OAuth sign-in and consent in Chromium', () => {
  let server: AppServer;
  let browser: Browser;
  let https: HttpsServer;
  let certDir: string;
  let cimdUrl: string;
  // The client's redirect URI: a loopback listener, as a native MCP client runs one, which takes
  // the code the browser arrives with.
  let callback: Server;
  let redirectUri: string;
  let arrivedCode: string | null = null;
  const user = { email: `mcp-${randomBytes(4).toString('hex')}@example.com`, password: 'a long enough password' };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    callback = createServer((req, res) => {
      arrivedCode = new URL(req.url ?? '/', redirectUri).searchParams.get('code');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('You may close this window.');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth-callback`;
    // The CIMD client's document is served on https with a certificate the server trusts.
    certDir = mkdtempSync(path.join(tmpdir(), 'amp-cimd-'));
    const keyFile = path.join(certDir, 'key.pem');
    const certFile = path.join(certDir, 'cert.pem');
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
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    https = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
      if (req.url !== '/client.json') return void res.writeHead(404).end();
      const doc = {
        client_id: cimdUrl,
        client_name: 'CIMD browser client',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    cimdUrl = `https://localhost:${(https.address() as AddressInfo).port}/client.json`;

    await ensureNextBuild();
    server = await startAppServer({ AUTH_ANON_KEY: ANON_KEY, WEBHOOK_ALLOW_PRIVATE: '1', NODE_EXTRA_CA_CERTS: certFile });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });

    // The user signs up and creates its tenant (as the account page would).
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: ANON_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(user),
    });
    expect(signup.status).toBe(200);
    const { access_token: token } = (await signup.json()) as { access_token: string };
    const reg = await fetch(`${server.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'Browser OAuth' }),
    });
    expect(reg.status).toBe(201);
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    https?.close();
    callback?.close();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  }, 60_000);

  /** The MCP client's flow up to the browser, the browser's part, then the code exchange. */
  async function connectThroughBrowser(provider: MemoryProvider, shots: string, uncheck: string[] = []): Promise<Client> {
    const url = new URL(`${server.url}/api/mcp`);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'browser-test', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).toBeDefined();

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      arrivedCode = null;
      await page.goto(provider.authorizationUrl!.href);
      await page.waitForURL(/\/consent\/[A-Za-z0-9_-]+$/);
      await page.getByRole('heading', { level: 1, name: /Authorize/ }).waitFor();
      await page.getByLabel('Email', { exact: true }).waitFor();
      await check(page, `${shots}-sign-in`);

      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill('wrong password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Invalid login credentials' }).waitFor();
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();

      // The consent page names the client, its redirect URI and the scopes.
      await page.getByRole('group', { name: 'Scopes requested' }).waitFor();
      expect(await page.getByRole('main').textContent()).toContain(redirectUri);
      expect(await page.getByRole('main').textContent()).toContain(
        provider.clientMetadataUrl ? 'CIMD browser client' : 'Browser MCP client',
      );
      expect(await page.getByRole('checkbox', { name: /modules:execute/ }).isChecked()).toBe(true);
      // The SDK asked for what the 401's challenge named: the endpoint's two scopes, not everything.
      expect(await page.getByRole('group', { name: 'Scopes requested' }).getByRole('checkbox').count()).toBe(2);
      await check(page, `${shots}-consent`);
      for (const scope of uncheck) await page.getByRole('checkbox', { name: new RegExp(scope.replace('*', '\\*')) }).uncheck();
      await page.getByRole('button', { name: 'Allow' }).click();
      await expect.poll(() => arrivedCode, { timeout: 30_000 }).toBeTruthy();
      await transport.finishAuth(arrivedCode!);
    } finally {
      await context.close();
    }
    const client = new Client({ name: 'browser-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return client;
  }

  it('DCR client: sign in and consent in the browser, then tools/list and tools/call with the token', STEP, async () => {
    const provider = new MemoryProvider(redirectUri, undefined, 'Browser MCP client');
    const client = await connectThroughBrowser(provider, 'oauth-dcr');
    expect((await client.listTools()).tools.some((t) => t.name === 'text__slugify')).toBe(true);
    expect((await client.callTool({ name: 'text__slugify', arguments: { text: 'Through The Browser' } })).structuredContent).toEqual({
      slug: 'through-the-browser',
    });
    await client.close();
  });

  it('CIMD client with modules:execute unchecked: lists tools, tools/call is refused', STEP, async () => {
    const provider = new MemoryProvider(redirectUri, cimdUrl, 'Browser MCP client');
    const client = await connectThroughBrowser(provider, 'oauth-cimd', ['modules:execute']);
    expect(provider.info?.client_id).toBe(cimdUrl);
    expect(provider.saved?.scope?.split(' ')).not.toContain('modules:execute');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await expect(client.callTool({ name: 'text__slugify', arguments: { text: 'x' } })).rejects.toThrow();
    await client.close();
  });
});
