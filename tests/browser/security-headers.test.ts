/**
 * docs/dashboard.md, Security headers: every page answers with a Content-Security-Policy whose
 * script-src holds a fresh nonce (no 'unsafe-inline'), Next puts that nonce on each of the page's
 * scripts, the page cannot be framed, and in Chromium the sign-in page, the consent page and the
 * API reference (Scalar) load without a single CSP violation. server.ts with Next (built once,
 * tests/browser/next-build.ts) on the embedded database.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, missing } from '../needs';
import { startAppServer, type AppServer } from './app-server';
import { ensureNextBuild } from './next-build';

/** The directives of a policy, by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

describe.skipIf(missing.chromium !== undefined)('page security headers', () => {
  let server: AppServer;
  let browser: Browser;

  beforeAll(async () => {
    await ensureNextBuild();
    server = await startAppServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, 60_000);

  it.each(['/sign-in', '/docs', '/dashboard', '/consent/no-such-uid'])(
    '%s: a nonce CSP on every script, no inline scripts allowed',
    async (path) => {
      const nonces = new Set<string>();
      for (let i = 0; i < 2; i++) {
        const res = await fetch(server.url + path, { redirect: 'manual' });
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
        expect(res.headers.get('strict-transport-security')).toBeNull();
        const policy = directives(res.headers.get('content-security-policy') ?? '');
        expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
        expect(policy.get('object-src')).toEqual(["'none'"]);
        expect(policy.get('base-uri')).toEqual(["'self'"]);
        expect(policy.get('form-action')).toEqual(["'self'"]);
        expect(policy.get('connect-src')).toEqual(["'self'"]);
        const scriptSrc = policy.get('script-src') ?? [];
        expect(scriptSrc).not.toContain("'unsafe-inline'");
        expect(scriptSrc).not.toContain("'unsafe-eval'");
        const nonce = scriptSrc.map((s) => /^'nonce-([A-Za-z0-9+/=]+)'$/.exec(s)?.[1]).find(Boolean);
        expect(nonce, `script-src of ${path}: ${scriptSrc.join(' ')}`).toBeDefined();
        nonces.add(nonce!);
        if (res.status !== 200) {
          expect(res.status, path).toBeGreaterThanOrEqual(300);
          continue;
        }
        const html = await res.text();
        const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
        expect(scripts.length).toBeGreaterThan(0);
        for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      }
      expect(nonces.size, 'a fresh nonce per request').toBe(2);
    },
  );

  /** CSP violations seen by the page (its securitypolicyviolation events) and reported to the console. */
  async function violationsOn(path: string, loaded: (page: Page) => Promise<unknown>): Promise<string[]> {
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    const seen: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) seen.push(`console: ${m.text()}`);
    });
    await page.addInitScript(() => {
      const w = window as unknown as { __cspViolations: string[] };
      w.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`),
      );
    });
    await page.goto(path);
    await loaded(page);
    seen.push(...(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations)));
    await context.close();
    return seen;
  }

  /** React has hydrated the document: every script the page needs has run. */
  const hydrated = (page: Page) =>
    page.waitForFunction(() => Object.keys(document).some((k) => k.startsWith('__reactContainer')), undefined, { timeout: 60_000 });

  it.each(['/sign-in', '/consent/no-such-uid'])(
    '%s hydrates in Chromium without a CSP violation',
    async (path) => {
      expect(await violationsOn(path, hydrated)).toEqual([]);
    },
    180_000,
  );

  it('the API reference (Scalar) renders in Chromium without a CSP violation', async () => {
    const seen = await violationsOn('/docs', async (page) => {
      await hydrated(page);
      // Scalar loads as its section nears the screen.
      const reference = page.getByTestId('api-reference');
      await reference.scrollIntoViewIfNeeded();
      await reference.getByRole('heading', { level: 1, name: 'Agent Module Platform API' }).waitFor({ timeout: 90_000 });
    });
    expect(seen).toEqual([]);
  }, 180_000);

  it('a page in a frame of another origin is refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent(`<iframe src="${server.url}/sign-in" onload="window.frameLoaded = true"></iframe>`);
    await page.waitForFunction(() => (window as unknown as { frameLoaded?: boolean }).frameLoaded === true, undefined, { timeout: 60_000 });
    const framed = page.frames().find((f) => f !== page.mainFrame());
    // Chromium shows its error page in the frame instead of the sign-in page.
    expect(framed?.url()).not.toBe(`${server.url}/sign-in`);
    const title = await framed?.title().catch(() => '');
    expect(title ?? '').not.toMatch(/Sign in|Agent Module Platform/);
    await context.close();
  }, 90_000);
});
