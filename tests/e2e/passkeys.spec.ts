/**
 * Passkeys in the built-in identity provider, with Chromium's virtual authenticator (CDP
 * `WebAuthn.addVirtualAuthenticator`): a signed-in owner adds a passkey on the account page,
 * signs out, signs in with the passkey alone, and removes it. WebAuthn needs a domain name, not an
 * IP address: the test opens the service at http://localhost (its relying party ID).
 */
import { check, expect, newOwner, signIn, test } from './support';

test('add a passkey on the account page, sign in with it, remove it', async ({ browser }) => {
  const owner = await newOwner(browser);
  await owner.page.context().close();
  const localhost = (process.env.E2E_BASE_URL ?? '').replace('127.0.0.1', 'localhost');
  const context = await browser.newContext({ baseURL: localhost, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  await signIn(page, owner.email, owner.password, '/account');
  const passkeys = page.getByRole('list', { name: 'Your passkeys' });
  await expect(page.getByText('No passkeys yet.')).toBeVisible();
  await page.getByLabel('Passkey name', { exact: true }).fill('Test laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(passkeys.getByText('Test laptop', { exact: true })).toBeVisible();
  await expect(passkeys.getByText(/last used Never/)).toBeVisible();
  await check(page, 'account-passkeys');

  // Signed out: the passkey alone signs in.
  await context.clearCookies();
  await page.goto('/sign-in?callbackUrl=%2Faccount');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL((url) => url.pathname === '/account');
  await expect(page.getByTestId('account-email')).toHaveText(owner.email);
  await expect(passkeys.getByText(/last used (?!Never)/)).toBeVisible();

  // Removed: it signs in no more.
  await page.getByRole('button', { name: 'Remove passkey Test laptop' }).click();
  await page.getByRole('button', { name: 'Remove passkey', exact: true }).click();
  await expect(page.getByText('No passkeys yet.')).toBeVisible();
  await context.clearCookies();
  await page.goto('/sign-in');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByText('That passkey was not accepted.', { exact: false })).toBeVisible();
  await context.close();
});
