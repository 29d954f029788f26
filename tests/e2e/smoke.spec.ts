/**
 * The dashboard opens for a new tenant owner: signed up, confirmed, signed in, tenant created, each
 * through its form.
 * The pages around it are checked too: sign-in as a visitor sees it, and the account page. At
 * 375 px every section is reached through the Menu button's sheet.
 */
import { check, endEverySession, expect, expectFitsNarrowScreen, newOwner, signIn, test } from './support';

test('a new owner reaches the overview', async ({ browser }) => {
  const visitor = await (await browser.newContext({ baseURL: process.env.E2E_BASE_URL })).newPage();
  await visitor.goto('/sign-in');
  await expect(visitor.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await check(visitor, 'sign-in');
  await visitor.context().close();

  const owner = await newOwner(browser, { agentName: 'Smoke Agent', throughForms: true });
  await owner.page.goto('/dashboard');
  await expect(owner.page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(owner.page.getByTestId('overview-plan')).toContainText('free');
  await check(owner.page, 'overview');

  await owner.page.goto('/account');
  await expect(owner.page.getByTestId('tenant-plan')).toHaveText('free');
  await check(owner.page, 'account');
});

/** Every section of the dashboard navigation, in its order (components/dashboard/nav.tsx). */
const SECTIONS = [
  { label: 'Overview', path: '/dashboard' },
  { label: 'API keys', path: '/dashboard/keys' },
  { label: 'Webhooks', path: '/dashboard/webhooks' },
  { label: 'Modules', path: '/dashboard/modules' },
  { label: 'Executions', path: '/dashboard/executions' },
  { label: 'Usage', path: '/dashboard/usage' },
  { label: 'Invoices', path: '/dashboard/invoices' },
  { label: 'Memory', path: '/dashboard/memory' },
  { label: 'Workflows', path: '/dashboard/workflows' },
  { label: 'Members', path: '/dashboard/members' },
  { label: 'Audit log', path: '/dashboard/audit-log' },
  { label: 'API reference', path: '/docs' },
  { label: 'Account', path: '/account' },
];

test('at 375 px every section is reached and opened through the menu', async ({ browser }) => {
  // Thirteen page loads, each followed by the menu again.
  test.slow();
  const { page } = await newOwner(browser, { agentName: 'Narrow Agent' });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/dashboard');
  await expectFitsNarrowScreen(page);
  // The sidebar is for wider screens; here the current section and a Menu button.
  await expect(page.getByRole('navigation', { name: 'Dashboard' })).toBeHidden();
  await expect(page.getByTestId('nav-current')).toHaveText('Overview');
  const menuButton = page.getByRole('button', { name: 'Menu', exact: true });
  const menu = page.getByRole('dialog', { name: 'Menu' });
  await menuButton.click();
  const links = menu.getByRole('navigation', { name: 'Dashboard' }).getByRole('link');
  await expect(links).toHaveText(SECTIONS.map((s) => s.label));
  for (const { label } of SECTIONS) await expect(menu.getByRole('link', { name: label, exact: true })).toBeInViewport();
  await expect(menu.getByRole('link', { name: 'Overview', exact: true })).toHaveAttribute('aria-current', 'page');
  await check(page, 'nav-menu', { widths: [375] });
  // Escape closes it and gives the focus back to the button.
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(menuButton).toBeFocused();

  for (const { label, path } of SECTIONS) {
    await menuButton.click();
    await menu.getByRole('link', { name: label, exact: true }).click();
    await page.waitForURL((url) => url.pathname === path);
    await expect(menu).toBeHidden();
    if (path === '/docs') {
      // The API reference is a page of its own, outside the dashboard's navigation.
      await expect(page.getByRole('heading', { level: 1, name: 'API reference' })).toBeVisible();
      await page.goto('/dashboard');
      continue;
    }
    await expect(page.getByTestId('nav-current')).toHaveText(label);
    await menuButton.click();
    await expect(menu.getByRole('link', { name: label, exact: true })).toHaveAttribute('aria-current', 'page');
    await expect(menu.locator('[aria-current="page"]')).toHaveCount(1);
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
  }
});

test("signing out ends this device's session only; a session ended elsewhere sends the device to sign in again, back to its page; sign-out stays on this origin", async ({
  browser,
}) => {
  const owner = await newOwner(browser);
  const other = await (await browser.newContext({ baseURL: process.env.E2E_BASE_URL })).newPage();
  await signIn(other, owner.email, owner.password, '/dashboard/keys');
  await expect(other.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();

  // Signing out ends this browser's session (the identity provider's too), as the sign-out page says.
  const origin = new URL(owner.page.url()).origin;
  await owner.page.getByRole('button', { name: 'Sign out' }).click();
  await owner.page.waitForURL((url) => url.pathname === '/');
  expect(new URL(owner.page.url()).origin).toBe(origin);
  await other.reload();
  await expect(other.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();

  // Every session of the user ended at the identity provider (`logout?scope=global`, as a script
  // or another client may do): the other device's next call is refused as an ended session, and
  // it is sent to sign in, not left on an error.
  await endEverySession(owner.email, owner.password);
  await other.reload();
  await expect(other).toHaveURL(/\/sign-in\?callbackUrl=%2Fdashboard%2Fkeys$/);
  await signIn(other, owner.email, owner.password, '/dashboard/keys');
  await expect(other.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await other.context().close();
});
