/**
 * /docs (docs/dashboard.md): the interactive API reference rendered from the generated OpenAPI
 * document, and the guides; /docs/errors: every error code. Public.
 */
import { ERRORS } from '../../src/contract/errors';
import { check, expect, test } from './support';

test('the API reference renders the OpenAPI document, with the guides', async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByRole('heading', { level: 1, name: 'API reference' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Guides' })).toBeVisible();
  await expect(page.getByText('docs/webhooks.md')).toBeVisible();
  // Every endpoint at a glance, in the first HTML, each linking into the interactive reference.
  const index = page.getByRole('navigation', { name: 'Endpoints' });
  const getKey = index.getByRole('link', { name: /GET\s*\/api\/v1\/keys\/\{key_id\}\s*Get an API key/ });
  await expect(getKey).toHaveAttribute('href', '#tag/keys/GET/api/v1/keys/{key_id}');
  await expect(index.getByRole('heading', { level: 3, name: 'executions' })).toBeVisible();
  // Scalar loads as the reference nears the screen, fetches /api/openapi.json and renders its operations.
  const reference = page.getByTestId('api-reference');
  await reference.scrollIntoViewIfNeeded();
  await expect(reference.getByRole('heading', { level: 1, name: 'Agent Module Platform API' })).toBeVisible({ timeout: 60_000 });
  await expect(reference.getByRole('button', { name: /Requests in the current rate-limit window/ }).first()).toBeVisible();
  await expect(reference.getByRole('button', { name: /^executions/ }).first()).toBeVisible();
  // Scalar's own markup (a third-party Vue app) is left out of the axe check; the rest of the page is checked.
  await check(page, 'docs', { exclude: ['#api-reference'], developerPage: true });
});

test('a link of the endpoint index opens the interactive reference at that endpoint', async ({ page }) => {
  await page.goto('/docs');
  const reference = page.getByTestId('api-reference');
  await expect(reference).toContainText('opens here as you scroll to it');
  await page
    .getByRole('navigation', { name: 'Endpoints' })
    .getByRole('link', { name: /Revoke an API key/ })
    .click();
  await expect(page).toHaveURL(/#tag\/keys\/DELETE\/api\/v1\/keys\/(\{|%7B)key_id(\}|%7D)$/);
  await expect(reference.getByRole('heading', { name: 'Revoke an API key' })).toBeInViewport({ timeout: 60_000 });
});

test('the error reference has a section per error code, linked from /docs and from each doc_url', async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByRole('link', { name: 'Errors', exact: true })).toHaveAttribute('href', '/docs/errors');
  await page.goto('/docs/errors');
  await expect(page.getByRole('heading', { level: 1, name: 'Errors' })).toBeVisible();
  for (const code of Object.keys(ERRORS)) {
    const section = page.locator(`[id="${code}"]`);
    await expect(section, code).toHaveCount(1);
    await expect(section.getByRole('heading', { level: 2, name: code })).toBeVisible();
  }
  await expect(page.locator('#policy_denied')).toContainText('definition_changed');
  await expect(page.locator('#key_limit_exceeded')).toContainText('spend_cap_usd');

  // An error body's doc_url lands on its code's section.
  const answer = await page.request.get('/api/v1/no-such-endpoint');
  const { doc_url: docUrl } = (await answer.json()) as { doc_url: string };
  expect(docUrl).toMatch(/\/docs\/errors#not_found$/);
  await page.goto(docUrl);
  await expect(page.locator('#not_found')).toBeInViewport();
  await check(page, 'docs-errors', { developerPage: true });
});
