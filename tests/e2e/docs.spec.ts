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
  // Scalar has fetched /api/openapi.json and rendered its operations.
  const reference = page.getByTestId('api-reference');
  await expect(reference.getByRole('heading', { level: 1, name: 'Agent Module Platform API' })).toBeVisible({ timeout: 60_000 });
  await expect(reference.getByRole('button', { name: /Requests in the current rate-limit window/ }).first()).toBeVisible();
  await expect(reference.getByRole('button', { name: /^executions/ }).first()).toBeVisible();
  // Scalar's own markup (a third-party Vue app) is left out of the axe check; the rest of the page is checked.
  await check(page, 'docs', { exclude: ['#api-reference'], developerPage: true });
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
