/** /docs (docs/dashboard.md): the interactive API reference rendered from the generated OpenAPI document, and the guides. Public. */
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
