/**
 * What the dashboard tests share: accounts made the way a user makes them (sign-up, the mailed
 * confirmation, sign-in, a tenant created on the account page), the API called with the key the
 * dashboard showed, and `check()`: screenshots at 1280 px and 375 px in the light and the dark colour
 * scheme, each with axe-core's verdict (no serious or critical violation), for every page a test visits.
 */
import { expect, test as base, type Browser, type Page } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { seriousViolations, WCAG_21_AA } from '../browser/axe';

/** The operator account (ADMIN_EMAILS of the service under test). */
export const ADMIN_EMAIL = 'operator@example.com';
/**
 * A second operator (also in ADMIN_EMAILS): each spec that signs an operator up needs an address
 * of its own, since the specs share one service and may run at the same time.
 */
export const SECOND_ADMIN_EMAIL = 'operator-two@example.com';
/** The operator of the page-load timings (tests/e2e/page-load.spec.ts). */
export const TIMING_ADMIN_EMAIL = 'operator-timing@example.com';
/** The operator token (ADMIN_TOKEN) of the service under test, for what only the admin API does (e.g. closing a billing cycle now). */
export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
/** Screenshots land in the test output: test-results/screenshots/<name>-<width>[-dark].png (E2E_SCREENSHOT_DIR: elsewhere, e.g. a run of its own). */
export const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR
  ? path.resolve(process.env.E2E_SCREENSHOT_DIR)
  : path.resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');
/**
 * E2E_SCREENSHOTS=0 leaves the screenshots out (`npm test` and CI, where nobody looks at them); the checks of
 * each page (axe, the words a page shows) run the same.
 */
const TAKE_SCREENSHOTS = process.env.E2E_SCREENSHOTS !== '0';

/** Playwright's test, skipped (not passed) when the global setup found no Chromium. */
export const test = base.extend<{ browserPresent: void }>({
  browserPresent: [
    // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object
    async ({}, use, testInfo) => {
      testInfo.skip(Boolean(process.env.E2E_SKIP), `browser tests skipped: ${process.env.E2E_SKIP ?? ''}`);
      await use();
    },
    { auto: true },
  ],
});
export { expect };

const baseUrl = () => process.env.E2E_BASE_URL ?? '';

let counter = 0;
/** A fresh address per account, unique across runs against the same service. */
export function uniqueEmail(prefix = 'owner'): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;
}

interface DroppedMail {
  to: string[];
  subject: string;
  text: string;
}

/** The newest mail to `to` whose subject matches, from the SMTP drop of the global setup. */
export async function waitForMail(to: string, subject: RegExp, timeoutMs = 30_000): Promise<DroppedMail> {
  const dir = process.env.E2E_MAIL_DIR ?? '';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(dir)) {
      const files = readdirSync(dir).sort().reverse();
      for (const f of files) {
        const mail = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as DroppedMail;
        if (mail.to.includes(to.toLowerCase()) && subject.test(mail.subject)) return mail;
      }
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function verifyLink(mail: DroppedMail): string {
  const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no verification link in the mail:\n${mail.text}`);
  return link;
}

export async function signIn(page: Page, email: string, password: string, callbackPath = '/dashboard'): Promise<void> {
  await page.goto(`/sign-in?callbackUrl=${encodeURIComponent(callbackPath)}`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === callbackPath);
}

let cachedAnonKey: string | undefined;

/** The identity provider's anon key (the `apikey` of its HTTP API), read once from the service's DATA_DIR. */
function anonKey(): string {
  cachedAnonKey ??= (
    JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR ?? '', 'secrets.json'), 'utf8')) as { AUTH_ANON_KEY: string }
  ).AUTH_ANON_KEY;
  return cachedAnonKey;
}

/** A password grant at the identity provider, as a script signs in: the access token. */
async function passwordGrant(email: string, password: string): Promise<string> {
  const token = await fetch(`${baseUrl()}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: anonKey(), 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}

/** Ends every session of the user at the identity provider, as a script would: `logout?scope=global` with a fresh token. */
export async function endEverySession(email: string, password: string): Promise<void> {
  const logout = await fetch(`${baseUrl()}/auth/v1/logout?scope=global`, {
    method: 'POST',
    headers: { apikey: anonKey(), authorization: `Bearer ${await passwordGrant(email, password)}` },
  });
  expect(logout.status).toBe(204);
}

export interface Owner {
  email: string;
  password: string;
  /** The tenant's first API key (scope `*`): what the welcome page shows once. */
  apiKey: string;
  page: Page;
}

/**
 * A new user with a workspace, signed in on a page of its own browser context. `throughForms`: made
 * as a person makes one (sign up on the form, open the mailed confirmation link, sign in through the
 * form, name the workspace on the welcome page and keep the API key it shows once). Otherwise the
 * account and its workspace are made over HTTP as a script would (sign-up, the mailed link, a
 * password grant, `POST /api/v1/auth/register` with the token: what the welcome page calls) and only
 * the sign-in goes through the form: a fifth of the page loads, for the tests about what comes after.
 */
export async function newOwner(
  browser: Browser,
  opts: { email?: string; agentName?: string; throughForms?: boolean } = {},
): Promise<Owner> {
  const email = opts.email ?? uniqueEmail();
  const password = `pw-${Math.random().toString(36).slice(2)}-Aa1`;
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
  const page = await context.newPage();
  const agentName = opts.agentName ?? 'E2E Agent';
  if (!opts.throughForms) {
    const signUp = await fetch(`${baseUrl()}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: anonKey(), 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(signUp.status).toBe(200);
    const confirmed = await fetch(verifyLink(await waitForMail(email, /confirm/i)), { redirect: 'manual' });
    // Confirmed: sent on with the session in the fragment, as the identity provider does without a redirect_to.
    expect([confirmed.status, confirmed.headers.get('location')]).toEqual([303, expect.stringMatching(/#access_token=/)]);
    const registered = await fetch(`${baseUrl()}/api/v1/auth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await passwordGrant(email, password)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: agentName }),
    });
    expect(registered.status).toBe(201);
    const { api_key: apiKey } = (await registered.json()) as { api_key: string };
    await signIn(page, email, password);
    return { email, password, apiKey, page };
  }
  await page.goto('/sign-up');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Check your inbox').waitFor();
  await page.goto(verifyLink(await waitForMail(email, /confirm/i)));
  await page.waitForURL(/\/sign-in\?confirmed=1/);
  await signIn(page, email, password, '/welcome');
  await page.getByLabel('Workspace name', { exact: true }).fill(agentName);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('heading', { name: 'Your workspace is ready' }).waitFor();
  const apiKey = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
  expect(apiKey).toMatch(/\S{20,}/);
  await page.getByRole('button', { name: 'Go to the dashboard' }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard');
  return { email, password, apiKey, page };
}

/** Calls the REST API as a script would, with the tenant's key. */
export async function api(page: Page, apiKey: string, method: string, pathname: string, body?: unknown) {
  const res = await page.request.fetch(pathname, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { data: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status(), body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

interface CheckOptions {
  exclude?: string[];
  widths?: number[];
  developerPage?: boolean;
}

/**
 * The page as it is now, in both colour schemes (the dashboard follows the system's): a
 * full-page screenshot at 1280 px and at 375 px (`<name>-<width>.png`, `<name>-<width>-dark.png`)
 * and axe-core's check of each (WCAG 2.1 A/AA; no serious or critical violation, colour contrast
 * included; a violation fails the test after the remaining passes ran); at 375 px, that the page is
 * no wider than the screen and that every table row's cells and actions are reachable without
 * scrolling sideways. The viewport and the colour scheme are restored.
 * `exclude`: selectors of embedded third-party markup left out of the axe check; `widths`: only
 * these (e.g. [375] for what exists on narrow screens only).
 */
export async function check(page: Page, name: string, opts: CheckOptions = {}): Promise<void> {
  // Four screenshots and four axe runs take their time on a loaded machine: each check brings its own budget.
  test.info().setTimeout(test.info().timeout + 90_000);
  // A step of its own, so the run's report shows how much of each test the checks took.
  await test.step(`check ${name}`, () => checkPage(page, name, opts), { box: true });
}

async function checkPage(page: Page, name: string, opts: CheckOptions): Promise<void> {
  if (!opts.developerPage) expect.soft(await developerJargon(page), `${name}: developer details outside "For developers"`).toEqual([]);
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  const originalScheme = (await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)) ? 'dark' : 'light';
  for (const scheme of ['light', 'dark'] as const) {
    // Reduced motion: a toast appears and leaves without fading (sonner honours it), so axe never
    // measures the contrast of one caught half-transparent on its way out.
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    for (const width of opts.widths ?? [1280, 375]) {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      // Charts take the new width a moment later (a ResizeObserver): until then the old width
      // overflows the page.
      const fits = await page
        .waitForFunction((w) => document.documentElement.scrollWidth <= w, width, { timeout: 5_000 })
        .then(() => true)
        .catch(() => false);
      // Every page a test checks: at 375 px no wider than the screen, and each table row's cells and
      // actions reachable without scrolling sideways.
      if (width === 375 && scheme === 'light') {
        expect.soft(fits, `${name}: the page is wider than 375 px`).toBe(true);
        expect.soft(await unreachableInTables(page), `${name}: table rows at 375 px`).toEqual([]);
      }
      // Finite CSS transitions (colours switching with the scheme) are run to their end first, so
      // the screenshot and axe's contrast check see the final colours.
      if (TAKE_SCREENSHOTS)
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `${name}-${width}${scheme === 'dark' ? '-dark' : ''}.png`),
          fullPage: true,
          animations: 'disabled',
        });
      else
        await page.evaluate(() => {
          for (const animation of document.getAnimations())
            if (animation.effect?.getComputedTiming().endTime !== Infinity) animation.finish();
        });
      // Dark: the colour rules only (the markup, names and roles are the same in both schemes and
      // were checked in light). Third-party markup a page embeds and cannot change is excluded
      // (each caller says why).
      const scope = scheme === 'light' ? { tags: WCAG_21_AA } : { rules: ['color-contrast', 'link-in-text-block'] };
      expect.soft(await seriousViolations(page, { ...scope, exclude: opts.exclude }), `${name} at ${width}px, ${scheme}`).toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: originalScheme, reducedMotion: 'no-preference' });
  await page.setViewportSize(original);
}

/**
 * API paths, HTTP calls, environment variable names and the like in the words a page shows (or
 * reads to a screen reader), outside the "For developers" disclosures (`[data-developer]`) where
 * such details belong. The API reference and the landing page are for developers and pass
 * `developerPage`.
 */
async function developerJargon(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    for (const el of body.querySelectorAll('[data-developer], script, style, noscript, template')) el.remove();
    const text = body.textContent ?? '';
    const patterns = [
      /\/api\/(?:v1|mcp)\b\S*/g,
      /\b(?:GET|POST|PUT|PATCH|DELETE) \/\S*/g,
      // Configuration names (ADMIN_EMAILS, SMTP_URL, AMP_API_KEY...), not any constant-case word.
      /\b(?:[A-Z][A-Z0-9]*_)+(?:URL|KEY|TOKEN|EMAILS?|SECRET|MS|DIR|PORT|LIMIT|ENDPOINT)\b|\bAMP_[A-Z0-9_]+\b/g,
      /\bllms\.txt\b/g,
      /\bcurl -/g,
      /\bdocs\/[\w-]+\.md\b/g,
    ];
    return [...new Set(patterns.flatMap((p) => text.match(p) ?? []))];
  });
}

/**
 * Hydration failures of `page` from now on: React reports a server render the browser's first
 * render does not match (error #418 and its kin in production builds), then discards the server's
 * HTML and renders again, dropping whatever was typed before. Read the array at the end of a test.
 */
export function watchHydration(page: Page): string[] {
  const failures: string[] = [];
  const note = (text: string) => {
    if (/Minified React error #(418|419|422|423|425)\b|hydrat/i.test(text)) failures.push(text.slice(0, 200));
  };
  page.on('console', (message) => {
    if (message.type() === 'error') note(message.text());
  });
  page.on('pageerror', (error) => note(String(error)));
  return failures;
}

/** At 375 px the page itself does not scroll sideways (wide tables and code scroll inside their own boxes). */
export async function expectFitsNarrowScreen(page: Page): Promise<void> {
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  await page.setViewportSize({ width: 375, height: 812 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: 'page width at 375 px' })
    .toBeLessThanOrEqual(375);
  await page.setViewportSize(original);
}

/**
 * The toasts on screen cover no button or link of the page's tables and lists (a person acting on
 * a row must not have to wait for a toast to go): polled until a toast is there, in its place,
 * clear of every row action.
 */
export async function expectToastsClearOfActions(page: Page): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const toasts = [...document.querySelectorAll('[data-sonner-toast]')].map((t) => t.getBoundingClientRect());
          const covered = [...document.querySelectorAll('main table :is(a, button), main li :is(a, button)')]
            .filter((el) => {
              const r = el.getBoundingClientRect();
              return r.width > 0 && toasts.some((t) => r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom);
            })
            .map((el) => el.getAttribute('aria-label') || el.textContent?.trim() || el.tagName);
          return toasts.length === 0 ? 'no toast' : covered;
        }),
      { timeout: 5_000 },
    )
    .toEqual([]);
}

/**
 * Every cell of every table row, and every button and link in it, that the user would have to
 * scroll sideways to reach (outside the viewport, or outside a box of an ancestor that clips or
 * scrolls horizontally), described in words. A chart's data, meant to scroll inside a box of its
 * own, and visually hidden tables (a chart's table for screen readers) are left out.
 */
export async function unreachableInTables(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const viewport = document.documentElement.clientWidth;
    const describe = (el: Element) =>
      (el.getAttribute('aria-label') ?? el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60) || el.tagName.toLowerCase();
    const clippingAncestors = (el: Element): Element[] => {
      const out: Element[] = [];
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const overflowX = getComputedStyle(a).overflowX;
        if (overflowX !== 'visible') out.push(a);
      }
      return out;
    };
    const insideHiddenBox = (el: Element) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const r = a.getBoundingClientRect();
        // (a box of `display: contents` has no size of its own)
        if ((r.width <= 1 || r.height <= 1) && getComputedStyle(a).display !== 'contents') return true;
      }
      return false;
    };
    for (const table of document.querySelectorAll('table')) {
      if (table.closest('.sr-only, figure')) continue;
      const name = table.querySelector('caption')?.textContent?.trim() ?? table.getAttribute('data-testid') ?? 'a table';
      const clippers = clippingAncestors(table);
      for (const row of table.querySelectorAll('tbody tr')) {
        const rowName = describe(row.querySelector('td, th') ?? row);
        const targets = [...row.querySelectorAll(':scope > td, :scope > th, button, a, select, input')];
        for (const el of targets) {
          const box = el.getBoundingClientRect();
          // Not rendered, or visually hidden (1 px, or inside a visually hidden part such as a
          // nested table's column headers on a phone).
          if (box.width <= 1 || box.height <= 1 || insideHiddenBox(el)) continue;
          const where = `${name}, row “${rowName}”: ${el.tagName.toLowerCase()} “${describe(el)}” spans ${Math.round(box.left)}–${Math.round(box.right)} px`;
          if (box.left < -1 || box.right > viewport + 1) {
            problems.push(`${where}, outside the ${viewport} px screen`);
            continue;
          }
          for (const c of clippers) {
            const clip = c.getBoundingClientRect();
            if (box.left < clip.left - 1 || box.right > clip.right + 1) {
              problems.push(`${where}, outside its scrolling box (${Math.round(clip.left)}–${Math.round(clip.right)} px)`);
              break;
            }
          }
        }
      }
    }
    return problems;
  });
}
