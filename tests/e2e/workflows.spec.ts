/**
 * Workflows in the dashboard: a definition made with the API appears with its steps; a run
 * started from the page is followed step by step until it completes; another tenant gets
 * "not found" for the same URLs.
 */
import { api, check, expect, newOwner, test } from './support';

test('a workflow run is started and followed to completion in the dashboard', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Workflow Agent' });
  const { page } = owner;

  await page.goto('/dashboard/workflows');
  await expect(page.getByText('No workflows yet')).toBeVisible();
  await check(page, 'workflows-empty');

  const created = await api(page, owner.apiKey, 'POST', '/api/v1/workflows', {
    name: 'Slug then hash',
    steps: [
      { id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
      { id: 'hash', module: 'crypto', action: 'hash', input: { text: '{{steps.slug.output.slug}}' }, depends_on: ['slug'] },
      {
        id: 'upper',
        module: 'text',
        action: 'slugify',
        input: { text: '{{steps.slug.output.slug}}', separator: '_' },
        depends_on: ['slug'],
      },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const workflowId = String(created.body!.id);

  await page.reload();
  await page.getByRole('link', { name: 'Slug then hash' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Slug then hash' })).toBeVisible();
  await expect(page.getByText('No runs yet')).toBeVisible();
  await check(page, 'workflow-detail');

  await page.getByTestId('start-run-form').getByLabel('title', { exact: true }).fill('Hello Wörld');
  await page.getByRole('button', { name: 'Start run' }).click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  await expect(page.getByTestId('run-progress')).toHaveText('3 of 3 steps done', { timeout: 60_000 });
  await expect(page.getByText('Completed', { exact: true })).toBeVisible();
  await expect(page.getByTestId('step-slug').getByText('Succeeded')).toBeVisible();
  await page.getByRole('button', { name: 'Output of slug' }).click();
  await expect(page.getByTestId('step-slug')).toContainText('"slug": "hello-world"');
  await check(page, 'workflow-run');

  // The API says the same.
  const runId = page.url().split('/').pop()!;
  const run = await api(page, owner.apiKey, 'GET', `/api/v1/workflows/${workflowId}/runs/${runId}`);
  expect(run.body!.status).toBe('completed');

  // Another tenant sees none of it.
  const other = await newOwner(browser, { agentName: 'Other Agent' });
  await other.page.goto(`/dashboard/workflows/${workflowId}`);
  await expect(other.page.getByText('Workflow not found')).toBeVisible();
  await other.page.goto(`/dashboard/workflows/${workflowId}/runs/${runId}`);
  await expect(other.page.getByText('Run not found')).toBeVisible();
});
