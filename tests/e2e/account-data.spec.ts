/**
 * The account page's "Your data": the owner exports the tenant's data (a JSON download without
 * secrets), deletes the tenant (typing its name), then deletes the account (typing the email).
 */
import { readFileSync } from 'node:fs';
import { check, expect, newOwner, test } from './support';

test('export the tenant, delete it, then delete the account', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Data Agent' });
  const { page } = owner;
  await page.goto('/account');
  await expect(page.getByTestId('account-role')).toHaveText('Owner of this tenant');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export data' }).click();
  const file = await (await download).path();
  const text = readFileSync(file, 'utf8');
  const exported = JSON.parse(text) as { tenant: { agent_name: string }; keys: unknown[] };
  expect(exported.tenant.agent_name).toBe('Data Agent');
  expect(exported.keys).toHaveLength(1);
  expect(text).not.toContain(owner.apiKey);
  await check(page, 'account-your-data');

  // The delete button waits for the tenant's name.
  const deleteTenant = page.getByRole('button', { name: 'Delete tenant' });
  await expect(deleteTenant).toBeDisabled();
  await page.getByLabel('Type “Data Agent” to confirm').fill('Data Agent');
  await deleteTenant.click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete tenant' }).click();
  await page.waitForURL((url) => url.pathname === '/account');
  await expect(page.getByTestId('account-role')).toHaveText('No tenant yet');
  const revoked = await page.request.get('/api/v1/me', { headers: { 'x-api-key': owner.apiKey } });
  expect(revoked.status()).toBe(401);

  await page.getByLabel('Type your email to confirm').fill(owner.email);
  await page.getByRole('button', { name: 'Delete account' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete account' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await page.goto('/sign-in');
  await page.getByLabel('Email', { exact: true }).fill(owner.email);
  await page.getByLabel('Password', { exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Invalid login credentials')).toBeVisible();
});
