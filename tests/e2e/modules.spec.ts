/** Modules: browse and search the catalog, install, and run an action in the playground (form and raw JSON). */
import { api, check, expect, newOwner, test } from './support';

test('browse, search, install, and run an action in the playground', async ({ browser }) => {
  const { page, apiKey } = await newOwner(browser, { agentName: 'Modules Agent' });

  await page.goto('/dashboard/modules');
  await expect(page.getByRole('heading', { level: 1, name: 'Modules' })).toBeVisible();
  const card = page.getByTestId('module-card-text');
  await expect(card).toBeVisible();
  await check(page, 'modules');

  // The ranked catalog search.
  await page.getByLabel('Search actions').fill('slugify');
  await expect(page.getByTestId('search-hit').first()).toContainText('text.slugify');
  await check(page, 'modules-search');
  await page.getByLabel('Search actions').fill('');

  // Install (optimistic), as the API then reports it; the installed filter keeps it.
  await card.getByRole('button', { name: /^Install / }).click();
  await expect(card.getByRole('button', { name: /^Uninstall / })).toBeVisible();
  await expect(card.getByText('Installed', { exact: true })).toBeVisible();
  await expect.poll(async () => (await api(page, apiKey, 'GET', '/api/v1/modules/text')).body?.installed).toBe(true);
  await page.getByLabel('Installed only').check();
  await expect(page.getByTestId('module-card-text')).toBeVisible();
  await expect(page.getByTestId('module-card-json')).toHaveCount(0);

  // The module page: actions with schemas, examples and trust.
  await page.goto('/dashboard/modules/text');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByTestId('action-slugify')).toBeVisible();
  await expect(page.getByTestId('trust-components')).toBeVisible();
  await page.getByTestId('action-slugify').getByRole('button', { name: 'Input schema' }).click();
  await expect(page.getByTestId('action-slugify').getByLabel('Input schema')).toContainText('"text"');
  await check(page, 'module-detail');

  // The playground, prefilled from the first example, in form mode.
  await page.getByTestId('action-slugify').getByRole('link', { name: 'Try slugify' }).click();
  await page.waitForURL('**/dashboard/modules/text/slugify');
  const text = page.getByRole('textbox', { name: /^text\b/ });
  await expect(text).toHaveValue(/Héllo Wörld/);
  await check(page, 'playground');
  await text.fill('Hello Playground');
  await page.getByRole('button', { name: 'Run slugify' }).click();
  await expect(page.getByTestId('playground-output')).toContainText('"hello-playground"');
  await expect(page.getByTestId('playground-latency')).toHaveText(/^\d+ ms$/);
  const executionId = (await page.getByTestId('playground-execution-id').textContent())?.trim() ?? '';
  expect(executionId).not.toBe('');
  const execution = await api(page, apiKey, 'GET', `/api/v1/executions/${executionId}`);
  expect(execution.status).toBe(200);
  expect(execution.body).toMatchObject({ module: 'text', action: 'slugify', status: 'success' });
  await expect(page.getByTestId('playground-execution-id')).toHaveAttribute('href', `/dashboard/executions/${executionId}`);
  // The code is behind a disclosure: the page speaks plainly, developers open it.
  await page.getByText('Show the code').click();
  await expect(page.getByTestId('snippet-curl')).toContainText('/api/v1/modules/text/execute');
  await expect(page.getByTestId('snippet-curl')).toContainText('Hello Playground');
  await check(page, 'playground-result');

  // The MCP snippet's JSON-RPC body, sent as an MCP client would, runs the same action.
  await page.getByRole('tab', { name: 'MCP' }).click();
  const rpcBody = JSON.parse((await page.getByTestId('snippet-mcp-body').textContent()) ?? '') as unknown;
  await check(page, 'playground-mcp-snippet');
  const viaMcp = await api(page, apiKey, 'POST', '/api/mcp', rpcBody);
  expect(viaMcp.status).toBe(200);
  expect(viaMcp.body).toMatchObject({ result: { structuredContent: { slug: 'hello-playground' } } });

  // Raw JSON mode, with the form's input carried over.
  await page.getByRole('button', { name: 'Edit as JSON' }).click();
  const raw = page.getByLabel('Input (JSON)');
  await expect(raw).toHaveValue(/Hello Playground/);
  await raw.fill(JSON.stringify({ text: 'Raw Mode Works', separator: '_' }));
  await page.getByRole('button', { name: 'Run slugify' }).click();
  await expect(page.getByTestId('playground-output')).toContainText('"raw_mode_works"');

  // Schema-invalid input: the API's message verbatim and the issue of the field.
  await raw.fill(JSON.stringify({ text: 42 }));
  await page.getByRole('button', { name: 'Run slugify' }).click();
  await expect(page.getByTestId('playground-error')).toContainText("Input does not match the action's input_schema");
  await expect(page.getByTestId('playground-issues')).toContainText('text');
  await check(page, 'playground-invalid');

  // Back to the form with a valid object, the issue shown under its field after a failing run.
  await raw.fill(JSON.stringify({ text: 'x', separator: 'too-long' }));
  await page.getByRole('button', { name: 'Edit as form' }).click();
  await page.getByRole('button', { name: 'Run slugify' }).click();
  await expect(page.getByTestId('field-error-separator')).toBeVisible();
});
