/**
 * The dashboard's sign-in in a real browser (Debian's Chromium driven by Playwright; no browser
 * download): sign-up with the mailed confirmation, sign-in with a password and with an API key,
 * the account page (email, tenant from tRPC over the session cookie, create a tenant, change the
 * password), the CSRF rule for cookie sessions, sign-out, and the password reset with the mailed
 * link. Every page is checked by axe-core (no serious or critical violation) and photographed
 * to SCREENSHOTS. The server is server.ts with Next (built once, tests/browser/next-build.ts),
 * on the embedded database, with SMTP_URL pointing at a local SMTP server.
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, missing } from '../needs';
import { check, SCREENSHOTS } from './page-check';
import { startAppServer, type AppServer } from './app-server';
import { startMailbox, verifyLink, type Mailbox } from './mailbox';
import { ensureNextBuild } from './next-build';

const ADMIN = 'owner@example.com';
const STEP = { timeout: 240_000 };

describe.skipIf(missing.chromium !== undefined)('dashboard sign-in in Chromium', () => {
  let server: AppServer;
  let mailbox: Mailbox;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await ensureNextBuild();
    mailbox = await startMailbox();
    server = await startAppServer({ SMTP_URL: mailbox.url, ADMIN_EMAILS: ADMIN });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 900_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await mailbox?.close();
  }, 60_000);

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(30_000);
    return { context, page: await context.newPage() };
  }

  async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
    const form = page.getByRole('form', { name: 'Sign in with email and password' });
    await form.getByLabel('Email', { exact: true }).fill(email);
    await form.getByLabel('Password', { exact: true }).fill(password);
    await form.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it(
    'signs up (confirming the email), signs in, sees the account, creates a tenant, uses tRPC from the cookie, changes the password and signs out',
    STEP,
    async () => {
      const { context, page } = await newPage();
      const email = ADMIN;
      await page.goto('/');
      await check(page, 'home');
      await page.getByRole('main').getByRole('link', { name: 'Create an account' }).click();
      await page.waitForURL('**/sign-up');
      await check(page, 'sign-up');

      // Validation errors are shown next to their fields and announced.
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Enter a valid email address.').waitFor();
      expect(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill('first-password-1');
      await page.getByLabel('Confirm password', { exact: true }).fill('first-password-1');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Check your inbox').waitFor();
      await check(page, 'sign-up-sent');

      // The confirmation link comes back to the sign-in page.
      const confirmation = await mailbox.waitFor(email, /confirm/i);
      await page.goto(verifyLink(confirmation));
      await page.waitForURL(/\/sign-in\?confirmed=1/);
      await page.getByText('Your email address is confirmed').waitFor();
      await check(page, 'sign-in');

      // The same link again: used. The page says so (never a green "confirmed") and offers a new link.
      await page.goto(verifyLink(confirmation));
      await page.waitForURL(/\/sign-in\?confirmed=1/);
      await page.getByText('This confirmation link has expired or was already used').waitFor();
      expect(await page.getByText('Your email address is confirmed').count()).toBe(0);
      await check(page, 'sign-in-link-used');

      // A wrong password is refused with the provider's message.
      await signInWithPassword(page, email, 'not-the-password');
      await page.getByRole('alert').filter({ hasText: 'Invalid login credentials' }).waitFor();

      await signInWithPassword(page, email, 'first-password-1');
      // Signed in without a page asked for: the dashboard, which sends an operator without a tenant to Admin.
      await page.waitForURL('**/dashboard/admin');
      await page.getByRole('heading', { name: 'Admin' }).first().waitFor();
      await page.goto('/account');
      expect(await page.getByTestId('account-email').textContent()).toBe(email);
      expect(await page.getByTestId('account-role').textContent()).toContain('Operator');

      // A new user owns no tenant: create one; its key is shown once.
      await page.getByText('No tenant yet').waitFor();
      await check(page, 'account-no-tenant');
      await page.getByLabel('Agent name', { exact: true }).fill('Browser Test Agent');
      await page.getByRole('button', { name: 'Create tenant' }).click();
      await page.getByText('Your tenant is ready').waitFor();
      const apiKey = (await page.locator('code').filter({ hasText: /^amp_/ }).textContent())!;
      expect(apiKey).toMatch(/^amp_[A-Za-z0-9]{32,}$/);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByTestId('tenant-details').waitFor();
      const tenantId = (await page.getByTestId('tenant-id').textContent())!;
      expect(await page.getByTestId('tenant-plan').textContent()).toBe('free');
      await check(page, 'account');

      // The page's tRPC call is authenticated by the session cookie: so is this one, as the same tenant.
      const me = await context.request.get(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`);
      expect(me.status()).toBe(200);
      expect((await me.json()).result.data).toMatchObject({ tenant_id: tenantId, credential: { type: 'bearer', scopes: ['*'] } });
      // Without the cookie it is a 401.
      const anonymous = await fetch(`${server.url}/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`);
      expect(anonymous.status).toBe(401);

      // A mutation with the cookie from another origin is refused (CSRF) in the error format;
      // from the dashboard's own origin it reaches the procedure (free plan: one key, so 403 plan_required).
      const crossSite = await context.request.post('/api/trpc/keys.create', {
        data: { name: 'csrf' },
        headers: { origin: 'https://evil.example' },
      });
      expect(crossSite.status()).toBe(403);
      const refusal = await crossSite.json();
      expect(refusal).toMatchObject({ error: 'forbidden', request_id: expect.any(String) });
      expect(refusal.message).toMatch(/cross-site/);
      const sameSite = await context.request.post('/api/trpc/keys.create', { data: { name: 'second' }, headers: { origin: server.url } });
      expect((await sameSite.json()).error?.data?.app?.error).toBe('plan_required');

      // Change the password: the current one is checked first.
      await page.getByLabel('Current password', { exact: true }).fill('wrong-password');
      await page.getByLabel('New password', { exact: true }).fill('second-password-2');
      await page.getByLabel('Confirm new password', { exact: true }).fill('second-password-2');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('alert').filter({ hasText: 'The current password is not correct.' }).waitFor();
      await page.getByLabel('Current password', { exact: true }).fill('first-password-1');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Your password has been changed.').waitFor();

      // A second browser signed in as the same user.
      const other = await newPage();
      await other.page.goto('/account');
      await other.page.waitForURL(/\/sign-in/);
      await signInWithPassword(other.page, email, 'second-password-2');
      await other.page.waitForURL('**/account');

      // Sign out from the header: the dashboard is closed again.
      await page.getByRole('navigation', { name: 'Account' }).getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${server.url}/`);
      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Sign in' }).waitFor();
      await page.goto('/account');
      await page.waitForURL(/\/sign-in\?callbackUrl=%2Faccount/);
      const after = await context.request.get(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`);
      expect(after.status()).toBe(401);
      // Only this browser's session ended (the sign-out page says so): the other one still works.
      const elsewhere = await other.context.request.get(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`);
      expect(elsewhere.status()).toBe(200);
      await other.context.close();

      // The new password works; back to the page asked for.
      await signInWithPassword(page, email, 'second-password-2');
      await page.waitForURL('**/account');
      await page.getByTestId('tenant-details').waitFor();
      expect(await page.getByTestId('tenant-id').textContent()).toBe(tenantId);
      await page.goto('/sign-out');
      await check(page, 'sign-out');
      await page.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out').waitFor();
    },
  );

  it('signs in with an API key holding * (a tenant registered by API)', STEP, async () => {
    const registered = await fetch(`${server.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'api-agent', owner_email: 'api-owner@example.com' }),
    });
    expect(registered.status).toBe(201);
    const { api_key: apiKey, tenant_id: tenantId } = (await registered.json()) as { api_key: string; tenant_id: string };

    const { context, page } = await newPage();
    await page.goto('/account');
    await page.waitForURL(/\/sign-in/);
    await page.getByRole('button', { name: 'Sign in with an API key' }).click();
    await check(page, 'sign-in-api-key');
    await page.getByLabel('API key', { exact: true }).fill('amp_notAKeyOfThisService0000000000000');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('API key', { exact: true }).fill(apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/account');
    await page.getByTestId('tenant-details').waitFor();
    expect(await page.getByTestId('tenant-id').textContent()).toBe(tenantId);
    expect(await page.getByTestId('account-email').textContent()).toContain('API key');
    await check(page, 'account-api-key');

    // The session acts as that key: revoking the key ends it at once.
    const me = await context.request.get(`/api/trpc/tenants.me?input=${encodeURIComponent('{}')}`);
    expect((await me.json()).result.data).toMatchObject({ tenant_id: tenantId, credential: { type: 'api_key', scopes: ['*'] } });
  });

  it('an unconfirmed account signing in is told so and gets a new confirmation link that works', STEP, async () => {
    const email = 'unconfirmed@example.com';
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: anonKey(server) },
      body: JSON.stringify({ email, password: 'waiting-password-1' }),
    });
    expect(signup.status).toBe(200);
    await mailbox.waitFor(email, /confirm/i);

    const { page } = await newPage();
    await page.goto('/sign-in');
    await signInWithPassword(page, email, 'waiting-password-1');
    await page.getByText('Your email address is not confirmed yet').waitFor();
    expect(await page.getByRole('form', { name: 'Send a new confirmation link' }).getByLabel('Email').inputValue()).toBe(email);
    await page.getByRole('button', { name: 'Send a new link' }).click();
    await page.getByRole('status').filter({ hasText: 'a new link is on its way' }).waitFor();
    await check(page, 'sign-in-unconfirmed');

    // The second mail's link confirms; the account signs in.
    for (let i = 0; i < 300 && mailbox.all(email, /confirm/i).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    const mails = mailbox.all(email, /confirm/i);
    expect(mails).toHaveLength(2);
    await page.goto(verifyLink(mails[1]!));
    await page.getByText('Your email address is confirmed').waitFor();
    await signInWithPassword(page, email, 'waiting-password-1');
    // Signed in, with no tenant yet: the dashboard asks for the workspace's name first.
    await page.waitForURL('**/welcome');
  });

  it('resets a forgotten password with the mailed link', STEP, async () => {
    const email = 'forgetful@example.com';
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: anonKey(server) },
      body: JSON.stringify({ email, password: 'old-password-1' }),
    });
    expect(signup.status).toBe(200);
    await confirmByMail(email);

    const { page } = await newPage();
    // Without a link's token, the update page says what to do.
    await page.goto('/reset-password/update');
    await page.getByText('This link cannot be used').waitFor();

    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL('**/reset-password');
    await check(page, 'reset-password');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('Link sent').waitFor();

    const mail = await mailbox.waitFor(email, /reset/i);
    await page.goto(verifyLink(mail));
    await page.waitForURL('**/reset-password/update');
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await check(page, 'reset-password-update');
    await page.getByLabel('New password', { exact: true }).fill('new-password-2');
    await page.getByLabel('Confirm new password', { exact: true }).fill('new-password-2');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Password changed').waitFor();
    // The fragment with the token is gone from the address bar.
    expect(page.url()).not.toContain('access_token');

    await page.getByRole('link', { name: 'Sign in' }).last().click();
    await page.waitForURL('**/sign-in');
    await signInWithPassword(page, email, 'old-password-1');
    await page.getByRole('alert').filter({ hasText: 'Invalid login credentials' }).waitFor();
    await signInWithPassword(page, email, 'new-password-2');
    await page.waitForURL('**/welcome');
    await page.goto('/account');
    expect(await page.getByTestId('account-email').textContent()).toBe(email);
  });

  /** Confirms a sign-up made over HTTP by following its mailed link (no browser needed). */
  async function confirmByMail(email: string): Promise<void> {
    const mail = await mailbox.waitFor(email, /confirm/i);
    const res = await fetch(verifyLink(mail), { redirect: 'manual' });
    expect([302, 303]).toContain(res.status);
  }
});

describe.skipIf(missing.chromium !== undefined)('dashboard sign-in in Chromium without a mail server (the default)', () => {
  let server: AppServer;
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    await ensureNextBuild();
    server = await startAppServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 900_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  }, 60_000);

  it('signs up, names the workspace and lands on the dashboard; resets the password with the link from the log', STEP, async () => {
    context = await browser.newContext({ baseURL: server.url });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const email = 'nomail@example.com';
    await page.goto('/sign-up');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('first-password-1');
    await page.getByLabel('Confirm password', { exact: true }).fill('first-password-1');
    await page.getByRole('button', { name: 'Create account' }).click();
    // Confirmed at once without SMTP_URL, and signed in: one question, the workspace's name, then the dashboard.
    await page.waitForURL('**/welcome');
    await page.getByRole('heading', { name: 'Name your workspace' }).waitFor();
    await check(page, 'welcome');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Name your workspace.', { exact: true }).waitFor();
    await page.getByLabel('Workspace name', { exact: true }).fill('Nomail Agent');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Your workspace is ready' }).waitFor();
    expect(await page.getByTestId('new-api-key').textContent()).toMatch(/^amp_/);
    await check(page, 'welcome-key');
    await page.getByRole('button', { name: 'Go to the dashboard' }).click();
    await page.waitForURL('**/dashboard');
    await page.goto('/account');
    expect(await page.getByTestId('account-email').textContent()).toBe(email);
    await page
      .getByTestId('account-role')
      .filter({ hasText: /^Owner of this tenant$/ })
      .waitFor();
    await page.getByTestId('tenant-details').waitFor();
    // Someone who has a workspace and opens the welcome page again goes on to the dashboard.
    await page.goto('/welcome');
    await page.waitForURL('**/dashboard');
    await page.getByRole('navigation', { name: 'Account' }).getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/`);

    await page.goto('/reset-password');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText("in the service's log").waitFor();
    let link: string | undefined;
    for (let i = 0; i < 100 && !link; i++) {
      link = /"link":"(https?:[^"]+type=recovery[^"]*)"/.exec(server.output())?.[1];
      if (!link) await new Promise((r) => setTimeout(r, 100));
    }
    expect(link).toBeDefined();
    await page.goto(link!);
    await page.waitForURL('**/reset-password/update');
    await page.getByLabel('New password', { exact: true }).fill('new-password-2');
    await page.getByLabel('Confirm new password', { exact: true }).fill('new-password-2');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Password changed').waitFor();
    await page.goto('/sign-in');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('new-password-2');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/dashboard');
  });
});

/** The anon key the service generated into its DATA_DIR. */
function anonKey(server: AppServer): string {
  const secrets = JSON.parse(readFileSync(path.join(server.dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
  return secrets.AUTH_ANON_KEY!;
}
