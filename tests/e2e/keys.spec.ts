/**
 * The API keys page as a tenant owner uses it: the free plan's one key explained; on Pro a key
 * created with chosen scopes, its secret copied once and used from a script, rotated without a
 * grace period (the old secret stops), revoked (the new one stops too); another tenant sees none
 * of it; a key's policy set in its dialog (the API's objection shown under its field), summed up
 * in the table, and the key's usage this cycle with what the policy refused.
 */
import type { Locator, Page } from '@playwright/test';
import { api, check, expect, expectFitsNarrowScreen, expectToastsClearOfActions, newOwner, test } from './support';

const slugify = { action: 'slugify', input: { text: 'Hello Keys' } };

test('a free tenant sees its one key and why it cannot create another', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Free Keys Agent' });
  const { page } = owner;
  await page.goto('/dashboard/keys');
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  const row = page.getByRole('row', { name: /primary/i });
  await expect(row).toContainText('Primary key');
  await expect(row.getByText('*', { exact: true })).toBeVisible();
  const limit = page.getByTestId('keys-plan-limit');
  await expect(limit).toContainText('The free plan comes with one API key');
  await expect(limit.getByRole('link', { name: 'See your usage and change plan' })).toHaveAttribute('href', '/dashboard/usage');
  await expect(page.getByRole('button', { name: 'Create key' })).toBeDisabled();
  await check(page, 'keys-free');

  // The API refuses the same (403 plan_required), so the page's explanation is the rule itself.
  const refused = await api(page, owner.apiKey, 'POST', '/api/v1/keys', { name: 'second' });
  expect(refused.status).toBe(403);
});

test('create a key with scopes, use it, rotate it, revoke it; another tenant sees none of it', async ({ browser }) => {
  test.setTimeout(300_000);
  const owner = await newOwner(browser, { agentName: 'Pro Keys Agent' });
  const { page } = owner;
  expect((await api(page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);

  await page.goto('/dashboard/keys');
  await expect(page.getByTestId('keys-plan-limit')).toHaveCount(0);
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Name').fill('ci-bot');
  // The picker starts at the API's default scopes; swap execute for billing:read.
  await expect(dialog.getByRole('checkbox', { name: 'modules:read' })).toBeChecked();
  await dialog.getByRole('checkbox', { name: 'modules:execute' }).uncheck();
  await dialog.getByRole('checkbox', { name: 'billing:read' }).check();
  await expect(dialog.getByText('View usage and billing')).toBeVisible();
  await check(page, 'keys-create-dialog');
  await dialog.getByRole('button', { name: 'Create key' }).click();

  const created = page.getByRole('dialog', { name: 'Your new key' });
  await expect(created.getByText('Copy the secret now')).toBeVisible();
  const secret = ((await created.getByTestId('new-key-secret').textContent()) ?? '').trim();
  expect(secret).toMatch(/\S{20,}/);
  await created.getByRole('button', { name: 'Copy API key' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await check(page, 'keys-created-secret');
  await created.getByRole('button', { name: 'Done' }).click();
  // Focus goes back to what opened the dialog (WCAG 2.4.3), though no Radix trigger opened it.
  await expect(page.getByRole('button', { name: 'Create key' })).toBeFocused();

  // The key works from a script with exactly its scopes.
  expect((await api(page, secret, 'GET', '/api/v1/modules')).status).toBe(200);
  expect((await api(page, secret, 'GET', '/api/v1/billing/usage')).status).toBe(200);
  const outOfScope = await api(page, secret, 'POST', '/api/v1/modules/text/execute', slugify);
  expect(outOfScope.status).toBe(403);

  const row = page.getByRole('row', { name: /ci-bot/ });
  // last_used_at is written off the request path: reload until the page shows the use.
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText('just now', { timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
  await expect(row).toContainText('modules:read');
  await expect(row).toContainText('billing:read');
  await expect(row).not.toContainText('modules:execute');
  await expect(row).toContainText('Active');
  await check(page, 'keys-list');
  await expectFitsNarrowScreen(page);

  // Rotate without a grace period: the old secret stops at once, the new one works.
  await keyAction(row, 'ci-bot', 'Rotate…');
  const rotate = page.getByRole('dialog', { name: 'Rotate “ci-bot”' });
  await rotate.getByLabel('Grace period (seconds)').fill('0');
  await rotate.getByRole('button', { name: 'Rotate key' }).click();
  await expect(rotate.getByText('The old secret stopped working now.')).toBeVisible();
  const rotated = ((await rotate.getByTestId('new-key-secret').textContent()) ?? '').trim();
  expect(rotated).not.toBe(secret);
  await check(page, 'keys-rotated');
  await rotate.getByRole('button', { name: 'Done' }).click();
  expect((await api(page, secret, 'GET', '/api/v1/modules')).status).toBe(401);
  expect((await api(page, rotated, 'GET', '/api/v1/modules')).status).toBe(200);

  // Revoke, confirmed: the row goes and the secret stops working.
  await keyAction(page.getByRole('row', { name: /ci-bot/ }), 'ci-bot', 'Revoke…');
  const confirm = page.getByRole('alertdialog', { name: 'Revoke “ci-bot”?' });
  await expect(confirm).toContainText('cannot be undone');
  await check(page, 'keys-revoke-confirm');
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByRole('row', { name: /ci-bot/ })).toHaveCount(0);
  await expect(page.getByText('Key “ci-bot” revoked.')).toBeVisible();
  await expectToastsClearOfActions(page);
  expect((await api(page, rotated, 'GET', '/api/v1/modules')).status).toBe(401);
  await page.reload();
  await expect(page.getByRole('row', { name: /primary/i })).toBeVisible();
  await expect(page.getByRole('row', { name: /ci-bot/ })).toHaveCount(0);

  // The last key able to manage keys cannot go: the optimistic removal is rolled back and the API's message shown.
  await keyAction(page, 'primary', 'Revoke…');
  await page.getByRole('alertdialog', { name: 'Revoke “primary”?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('This is the last key that can manage keys; create another before revoking it.')).toBeVisible();
  await expect(page.getByRole('row', { name: /primary/i })).toBeVisible();
  expect((await api(page, owner.apiKey, 'GET', '/api/v1/keys')).status).toBe(200);

  // Another tenant: its own primary key only, and the first tenant's key ids are not its own.
  const firstKeys = await api(page, owner.apiKey, 'GET', '/api/v1/keys');
  const firstPrimary = (firstKeys.body?.data as { key_id: string; prefix: string }[])[0]!;
  const other = await newOwner(browser, { agentName: 'Other Keys Agent' });
  await other.page.goto('/dashboard/keys');
  await expect(other.page.getByRole('row', { name: /primary/i })).toBeVisible();
  await expect(other.page.getByRole('row')).toHaveCount(2); // header + its own primary key
  await expect(other.page.getByText(firstPrimary.prefix)).toHaveCount(0);
  expect((await api(other.page, other.apiKey, 'POST', `/api/v1/keys/${firstPrimary.key_id}/rotate`, { grace_seconds: 0 })).status).toBe(
    404,
  );
  expect((await api(other.page, other.apiKey, 'DELETE', `/api/v1/keys/${firstPrimary.key_id}`)).status).toBe(404);
});

test("a key's policy: set in the dialog, summed up in the table, obeyed; the key's usage shows its runs and refusals", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const owner = await newOwner(browser, { agentName: 'Policy Keys Agent' });
  const { page } = owner;
  expect((await api(page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  const made = await api(page, owner.apiKey, 'POST', '/api/v1/keys', { name: 'policy-bot' });
  expect(made.status).toBe(201);
  const { key_id: keyId, api_key: botKey } = made.body as { key_id: string; api_key: string };
  // Before any policy: two runs, one of them failed (input the action refuses).
  expect((await api(page, botKey, 'POST', '/api/v1/modules/text/execute', slugify)).status).toBe(200);
  expect((await api(page, botKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 1 } })).status).toBe(422);

  await page.goto('/dashboard/keys');
  const row = page.getByRole('row', { name: /policy-bot/ });
  await expect(row.getByTestId('key-policy-summary')).toHaveText('No limits');
  await keyAction(row, 'policy-bot', 'Policy…');
  const dialog = page.getByRole('dialog', { name: 'Policy of “policy-bot”' });
  await dialog.getByLabel('Only these modules', { exact: true }).fill('text');
  await dialog.getByLabel('Minimum certification', { exact: true }).selectOption('bronze');
  await dialog.getByLabel('Requests per minute', { exact: true }).fill('120');
  await dialog.getByLabel('Spend cap (USD) per month', { exact: true }).fill('5');
  const addresses = dialog.getByLabel('Allowed IP addresses (one per line)', { exact: true });
  await addresses.fill('somewhere');
  await dialog.getByRole('button', { name: 'Save policy' }).click();
  // The API's objection, under the field it concerns.
  await expect(addresses).toHaveAttribute('aria-invalid', 'true');
  await expect(addresses.locator('..')).toContainText('Each entry is an IP address or a CIDR block');
  await check(page, 'keys-policy-dialog');
  // No address limit after all.
  await dialog.getByRole('button', { name: 'Remove limit: Allowed IP addresses (one per line)' }).click();
  await expect(addresses).toHaveValue('');
  await dialog.getByRole('button', { name: 'Save policy' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row.getByTestId('key-policy-summary')).toHaveText('1 module · bronze · 120/min · 5 USD/month');
  await expect(row.getByRole('button', { name: 'Manage policy-bot' })).toBeFocused();
  const stored = await api(page, owner.apiKey, 'GET', `/api/v1/keys/${keyId}`);
  expect(stored.body?.policy).toEqual({ modules: ['text'], min_trust_tier: 'bronze', requests_per_minute: 120, spend_cap_usd: '5' });

  // Reopened, the dialog shows the policy; a limit removed there is cleared (null) and the rest kept.
  await keyAction(row, 'policy-bot', 'Policy…');
  await expect(dialog.getByLabel('Only these modules', { exact: true })).toHaveValue('text');
  await dialog.getByRole('button', { name: 'Remove limit: Minimum certification' }).click();
  await dialog.getByRole('button', { name: 'Save policy' }).click();
  await expect(row.getByTestId('key-policy-summary')).toHaveText('1 module · 120/min · 5 USD/month');
  await check(page, 'keys-policy-list');
  await expectFitsNarrowScreen(page);

  // The policy holds for the key's calls: another module is refused, and counted as a refusal.
  const refused = await api(page, botKey, 'POST', '/api/v1/modules/json/execute', { action: 'parse', input: { text: '{}' } });
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ error: 'policy_denied', reason: 'module_not_allowed' });
  await expect
    .poll(async () => ((await api(page, owner.apiKey, 'GET', `/api/v1/keys/${keyId}/usage`)).body?.refusals as unknown[]).length)
    .toBe(1);

  await keyAction(row, 'policy-bot', 'Usage…');
  const usage = page.getByRole('dialog', { name: 'Usage of “policy-bot”' });
  await expect(usage.getByTestId('key-usage-total')).toHaveText('2');
  await expect(usage.getByTestId('key-usage-refused')).toHaveText('1');
  await expect(usage.getByTestId('key-refusals')).toContainText('A module or action the key may not call');
  await expect(usage.getByRole('figure', { name: 'Per day' })).toBeVisible();
  await check(page, 'keys-usage-dialog');
  await page.keyboard.press('Escape');
  await expect(row.getByRole('button', { name: 'Manage policy-bot' })).toBeFocused();
});

test('a key with the longest name the API takes stays inside its table and dialogs', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Long Name Keys Agent' });
  const { page } = owner;
  expect((await api(page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  const name = 'x'.repeat(100);
  expect((await api(page, owner.apiKey, 'POST', '/api/v1/keys', { name })).status).toBe(201);
  await page.goto('/dashboard/keys');
  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row.getByRole('button', { name: `Manage ${name}` })).toBeInViewport();
  await expectFitsNarrowScreen(page);

  await keyAction(row, name, 'Revoke…');
  const confirm = page.getByRole('alertdialog');
  await expect(confirm.getByRole('button', { name: 'Revoke key' })).toBeInViewport({ ratio: 1 });
  await page.keyboard.press('Escape');
  await keyAction(row, name, 'Rotate…');
  const rotate = page.getByRole('dialog');
  await expect(rotate.getByRole('button', { name: 'Rotate key' })).toBeInViewport({ ratio: 1 });
  const box = (await rotate.boundingBox())!;
  const title = (await rotate.getByRole('heading').boundingBox())!;
  expect(title.x + title.width).toBeLessThanOrEqual(box.x + box.width);
  await check(page, 'keys-rotate-long-name');
  await page.keyboard.press('Escape');
  // The row's Manage button, whose menu opened the dialog, has the focus back.
  await expect(row.getByRole('button', { name: `Manage ${name}` })).toBeFocused();
});

test('"Load more" reaches every key past the first page', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Many Keys Agent' });
  const { page, apiKey } = owner;
  expect((await api(page, apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  // More keys than one page (50) holds, made through the API as a script would.
  for (let i = 1; i <= 51; i++)
    expect((await api(page, apiKey, 'POST', '/api/v1/keys', { name: `bulk-${String(i).padStart(2, '0')}` })).status).toBe(201);
  const total = 52; // the primary key and the 51 above

  await page.goto('/dashboard/keys');
  const table = page.getByRole('table', { name: 'Your API keys' });
  await expect(table.getByRole('row')).toHaveCount(50 + 1);
  await expect(page.getByTestId('keys-count')).toContainText('The newest 50 keys shown');
  // The oldest keys (the primary among them) are on the next page.
  await expect(table.getByRole('row', { name: /primary/i })).toHaveCount(0);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(table.getByRole('row')).toHaveCount(total + 1);
  await expect(table.getByRole('row', { name: /primary/i })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
  await expect(page.getByTestId('keys-count')).toHaveCount(0);
  await check(page, 'keys-paged');

  // A key revoked from the middle of the long table: its toast leaves every row's actions in view and usable.
  const row = table.getByRole('row', { name: /bulk-30/ });
  await row.scrollIntoViewIfNeeded();
  await keyAction(row, 'bulk-30', 'Revoke…');
  await page.getByRole('alertdialog', { name: 'Revoke “bulk-30”?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('Key “bulk-30” revoked.')).toBeVisible();
  await expectToastsClearOfActions(page);
});

test('a session opened with an API key ends, back to sign-in, when that key is rotated without grace', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Key Session Agent' });
  const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByText('Sign in with an API key').click();
  // The description shows the scope as code, not as Markdown backticks.
  await expect(page.getByText('it holds the * scope')).toBeVisible();
  await page.getByLabel('API key', { exact: true }).fill(owner.apiKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard');

  await page.goto('/dashboard/keys');
  await keyAction(page, 'primary', 'Rotate…');
  await page.getByLabel('Grace period (seconds)').fill('0');
  await page.getByRole('button', { name: 'Rotate key' }).click();
  const secret = page.getByTestId('new-key-secret');
  await expect(secret).toBeVisible();
  const newKey = /amp_\S+/.exec(await secret.innerText())?.[0] ?? '';
  expect(newKey).toMatch(/^amp_/);
  await page.getByRole('button', { name: 'Done' }).click();
  // The session acted as the old secret, now refused: the page says so and offers to sign in
  // again, not a "Try again" that could never succeed.
  const alert = page.getByRole('alert').filter({ hasText: 'Sign in again' });
  await expect(alert).toContainText('The API key is missing, invalid or revoked.');
  await expect(alert.getByRole('button', { name: 'Try again' })).toHaveCount(0);
  await alert.getByRole('button', { name: 'Sign in again' }).click();
  await page.waitForURL((url) => url.pathname === '/sign-in' && url.searchParams.get('callbackUrl') === '/dashboard/keys');
  await page.getByText('Sign in with an API key').click();
  await page.getByLabel('API key', { exact: true }).fill(newKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard/keys');
  await expect(page.getByRole('row', { name: /primary/ })).toBeVisible();
  await context.close();
});

/** Opens a key's action from its row's Manage menu. */
async function keyAction(scope: Page | Locator, keyName: string, action: string): Promise<void> {
  await scope.getByRole('button', { name: `Manage ${keyName}` }).click();
  const page = 'page' in scope ? scope.page() : scope;
  await page.getByRole('menuitem', { name: action }).click();
}
