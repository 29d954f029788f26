/**
 * Workflows made in the dashboard: a new workflow from a template, a definition the editor's
 * schema check refuses and one the service refuses (its message and place shown beside the
 * editor), an edit saved as version 2, and a run started from the form built from the steps'
 * `{{input.*}}` references, followed to completion; a viewer finds creating, editing and
 * starting off, with the reason.
 */
import type { Page } from '@playwright/test';
import { api, check, expect, expectFitsNarrowScreen, newOwner, test, uniqueEmail } from './support';

const editor = (page: Page) => page.getByLabel('Definition (JSON)');

test('a workflow is created from a template, edited and run from the dashboard', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Workflow Editor Agent' });
  const { page } = owner;

  // The empty list leads to the editor; the developer's example stays in its disclosure and fits a phone.
  await page.goto('/dashboard/workflows');
  await expect(page.getByText('No workflows yet')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Fan out and join' })).toBeVisible();
  await page.getByText('For developers').click();
  await expectFitsNarrowScreen(page);
  await check(page, 'workflows-editor-empty');

  await page.getByRole('link', { name: 'New workflow' }).first().click();
  await page.waitForURL(/\/dashboard\/workflows\/new$/);
  await expect(page.getByRole('heading', { level: 1, name: 'New workflow' })).toBeVisible();
  await page.getByRole('button', { name: /^Fan out and join/ }).click();
  await expect(page.getByRole('button', { name: /^Fan out and join/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('definition-status')).toHaveText('No problems found.');
  const template = JSON.parse(await editor(page).inputValue()) as { name: string; steps: Record<string, unknown>[] };
  expect(template.steps.map((s) => s.id)).toEqual(['slug', 'snake', 'constant', 'join']);
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-editor-new');

  // The schema check, as the definition is typed: the place, its line, a plain message.
  const badId = structuredClone(template);
  badId.steps[1]!.id = '2nd';
  await editor(page).fill(JSON.stringify(badId, null, 2));
  await expect(page.getByTestId('definition-status')).toHaveText('One problem to fix before saving:');
  const problem = page.getByTestId('definition-problems').getByRole('listitem');
  await expect(problem).toContainText('steps.1.id');
  await expect(problem).toContainText('does not have the expected form');
  await expect(problem.getByRole('button', { name: /^Line \d+$/ })).toBeVisible();
  await check(page, 'workflow-editor-problem');

  // The service's own refusal: a dependency on a step that does not exist.
  const unknownDependency = structuredClone(template);
  unknownDependency.steps[3]!.depends_on = ['slug', 'snake', 'nope'];
  await editor(page).fill(JSON.stringify(unknownDependency, null, 2));
  await expect(page.getByTestId('definition-status')).toHaveText('No problems found.');
  await page.getByRole('button', { name: 'Create workflow' }).click();
  const refusal = page.getByTestId('definition-refusal');
  await expect(refusal).toContainText('steps.3.depends_on.2');
  await expect(refusal).toContainText("Step 'join' depends on unknown step 'nope'.");
  await expect(refusal.getByRole('button', { name: /^Line \d+$/ })).toBeVisible();
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-editor-refused');

  // Back to the template (the edits are replaced after a confirmation), then created.
  await page.getByRole('button', { name: /^Fan out and join/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Replace' }).click();
  await expect(page.getByTestId('definition-refusal')).toHaveCount(0);
  await expect(page.getByTestId('definition-status')).toHaveText('No problems found.');
  await page.getByRole('button', { name: 'Create workflow' }).click();
  await page.waitForURL(/\/dashboard\/workflows\/wf_[^/]+$/);
  const workflowPath = new URL(page.url()).pathname;
  await expect(page.getByRole('heading', { level: 1, name: 'Fan out and join' })).toBeVisible();
  await expect(page.getByTestId('workflow-version')).toHaveText('Version 1');

  // Edit: the same editor with the current definition; saving makes version 2.
  await page.getByRole('link', { name: 'Edit', exact: true }).click();
  await page.waitForURL(`${workflowPath}/edit`);
  await expect(page.getByRole('button', { name: 'Save as version 2' })).toBeVisible();
  const current = JSON.parse(await editor(page).inputValue()) as { name: string; description?: string; steps: unknown[] };
  expect(current.name).toBe('Fan out and join');
  expect(current.steps).toHaveLength(4);
  current.description = 'A title written three ways, merged.';
  await editor(page).fill(JSON.stringify(current, null, 2));
  await check(page, 'workflow-editor-edit');
  await page.getByRole('button', { name: 'Save as version 2' }).click();
  await page.waitForURL(workflowPath);
  await expect(page.getByTestId('workflow-version')).toHaveText('Version 2');
  await expect(page.getByText('A title written three ways, merged.')).toBeVisible();

  // The start form: one field per input the steps read; the raw JSON carries the same input.
  const form = page.getByTestId('start-run-form');
  await form.getByLabel('title', { exact: true }).fill('Hello Wörld');
  await page.getByRole('button', { name: 'Edit as JSON' }).click();
  await expect(page.getByLabel(/^Input \(JSON object/)).toHaveValue(/"title": "Hello Wörld"/);
  await page.getByRole('button', { name: 'Edit as form' }).click();
  await expect(form.getByLabel('title', { exact: true })).toHaveValue('Hello Wörld');
  await form.getByLabel('Idempotency key (optional)').fill('e2e-first-run');
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-start-run');
  await page.getByRole('button', { name: 'Start run' }).click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('run-progress')).toHaveText('4 of 4 steps done');
  await page.getByRole('button', { name: 'Output of join' }).click();
  await expect(page.getByTestId('step-join')).toContainText('"slug": "hello-world"');
  await expect(page.getByTestId('step-join')).toContainText('"constant": "HELLO_W');
});

test('a viewer sees the workflow controls off, with the reason', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Workflow Team' });
  expect((await api(owner.page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  const created = await api(owner.page, owner.apiKey, 'POST', '/api/v1/workflows', {
    name: 'Slugify a title',
    steps: [{ id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } }],
  });
  expect(created.status).toBe(201);
  const viewerEmail = uniqueEmail('wf-viewer');
  const invited = await api(owner.page, owner.apiKey, 'POST', '/api/v1/members/invitations', { email: viewerEmail, role: 'viewer' });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);

  const viewer = await newOwner(browser, { email: viewerEmail, agentName: 'Viewer Own Workspace' });
  const { page } = viewer;
  await page.goto(new URL(String(invited.body!.accept_url)).pathname);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard');

  await page.goto('/dashboard/workflows');
  await expect(page.getByRole('button', { name: 'New workflow' })).toBeDisabled();
  await expect(page.getByTestId('denied-reason')).toContainText("Viewers can't change workflows");
  await page.getByRole('link', { name: 'Slugify a title' }).click();
  await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Start run' })).toBeDisabled();
  await expect(page.getByTestId('denied-reason')).toHaveText([
    /Viewers can't change workflows/,
    /Viewers can't run actions/,
    /Viewers can't cancel or replay runs/,
  ]);
  await check(page, 'workflow-viewer');
});
