/**
 * The executions page (docs/dashboard.md): the tenant's executions, filtered by module, status and time
 * with the numbers the REST list gives for the same filters, "Load more", the detail page with
 * output or error, and another tenant's execution id answered as not found.
 */
import { api, check, expect, newOwner, test } from './support';

test('executions list, filters and detail; another tenant sees none of them', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Executions Agent' });
  const { page, apiKey } = owner;
  const runs = [
    await api(page, apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 'Exec One' } }),
    await api(page, apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 'Exec Two' } }),
    await api(page, apiKey, 'POST', '/api/v1/modules/math/execute', { action: 'evaluate', input: { expression: '6 * 7' } }),
    // Fails when it runs (an undefined symbol): recorded as a failed execution, or refused before it runs.
    await api(page, apiKey, 'POST', '/api/v1/modules/math/execute', { action: 'evaluate', input: { expression: 'undefinedSymbol + 1' } }),
  ];
  expect(runs.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
  const rest = async (query: string) =>
    (await api(page, apiKey, 'GET', `/api/v1/executions?limit=100${query}`)).body?.data as { execution_id: string; status: string }[];
  const all = await rest('');
  const failed = await rest('&status=failed');

  await page.goto('/dashboard/executions');
  await expect(page.getByRole('heading', { level: 1, name: 'Executions' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Executions' });
  await expect(table.getByRole('row')).toHaveCount(all.length + 1);
  await check(page, 'executions');

  // Module filter.
  await page.getByLabel('Module').fill('math');
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await expect(table.getByRole('row')).toHaveCount((await rest('&module=math')).length + 1);
  await expect(table.getByText('text.slugify')).toHaveCount(0);

  // Status filter on top of it.
  await page.getByLabel('Status').selectOption('failed');
  if (failed.length > 0) {
    await expect(table.getByRole('row')).toHaveCount(failed.length + 1);
    await check(page, 'executions-filtered');
    await table.getByRole('link', { name: failed[0]!.execution_id }).click();
    await page.waitForURL(`**/dashboard/executions/${failed[0]!.execution_id}`);
    await expect(page.getByTestId('execution-error')).not.toBeEmpty();
    await check(page, 'execution-failed');
    await page.goBack();
  } else {
    await expect(page.getByText('No execution matches these filters')).toBeVisible();
  }

  // Time range: everything ran in the last hour; and clearing the filters shows all again.
  await page.goto('/dashboard/executions');
  await page.getByLabel('Time').selectOption('1h');
  await expect(table.getByRole('row')).toHaveCount(all.length + 1);
  await page.getByLabel('Status').selectOption('success');
  await expect(table.getByRole('row')).toHaveCount(all.filter((e) => e.status === 'success').length + 1);

  // The detail of a successful run, found by its id.
  const first = String(runs[0]!.body?.execution_id);
  await page.getByLabel('Execution ID').fill(first);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.waitForURL(`**/dashboard/executions/${first}`);
  await expect(page.getByRole('heading', { level: 1, name: 'text.slugify' })).toBeVisible();
  await expect(page.getByTestId('execution-output')).toContainText('exec-one');
  await check(page, 'execution');

  // Another tenant: its list is empty and the first tenant's execution is not found by URL.
  const other = await newOwner(browser, { agentName: 'Other Agent' });
  await other.page.goto('/dashboard/executions');
  await expect(other.page.getByText('No executions yet')).toBeVisible();
  await other.page.goto(`/dashboard/executions/${first}`);
  await expect(other.page.getByText('Execution not found')).toBeVisible();
  await check(other.page, 'execution-not-found');
});

test('"Load more" pages through a long list', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Paging Agent' });
  const { page, apiKey } = owner;
  for (let i = 0; i < 27; i++) {
    expect(
      (await api(page, apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: `Run ${i}` } })).status,
    ).toBe(200);
  }
  await page.goto('/dashboard/executions');
  const table = page.getByRole('table', { name: 'Executions' });
  await expect(table.getByRole('row')).toHaveCount(26);
  await expect(page.getByTestId('executions-count')).toHaveText('25 shown, more available');
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(table.getByRole('row')).toHaveCount(28);
  await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
});

test('search by request id, action, error code or message; kept in the URL; never another tenant', async ({ browser }) => {
  // Two accounts made through the sign-up form and two full checks (8 screenshots with axe).
  test.slow();
  const owner = await newOwner(browser, { agentName: 'Search Agent' });
  const { page, apiKey } = owner;
  const requestId = `e2e-search-${Date.now().toString(36)}`;
  // A request id the caller chose (X-Request-Id), as an agent's logs would carry it.
  const tagged = await page.request.post('/api/v1/modules/text/execute', {
    headers: { 'x-api-key': apiKey, 'x-request-id': requestId, 'content-type': 'application/json' },
    data: JSON.stringify({ action: 'slugify', input: { text: 'Tagged run' } }),
  });
  expect(tagged.status()).toBe(200);
  expect(
    (await api(page, apiKey, 'POST', '/api/v1/modules/math/execute', { action: 'evaluate', input: { expression: '6 * 7' } })).status,
  ).toBe(200);
  expect(
    (await api(page, apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 'Untagged run' } })).status,
  ).toBe(200);
  // A failed execution: the input breaks the action's schema (invalid_input is recorded with its message).
  const failed = await api(page, apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 42 } });
  expect(failed.status).toBe(422);
  const failure = (failed.body?.execution as { execution_id: string; error: { code: string; message: string } }) ?? null;
  expect(failure?.error.code).toBe('invalid_input');

  const rest = async (q: string) =>
    (await api(page, apiKey, 'GET', `/api/v1/executions?limit=100&q=${encodeURIComponent(q)}`)).body?.data as { execution_id: string }[];
  await page.goto('/dashboard/executions');
  const table = page.getByRole('table', { name: 'Executions' });
  await expect(table.getByRole('row')).toHaveCount(4 + 1);
  const search = page.getByLabel('Search', { exact: true });

  // An action prefix, typed: the search runs when typing pauses, and lands in the URL.
  await search.fill('slug');
  await expect(page).toHaveURL(/[?&]q=slug(&|$)/);
  await expect(table.getByRole('row')).toHaveCount((await rest('slug')).length + 1);
  await expect(table.getByText('math.evaluate')).toHaveCount(0);
  await expect(page.getByTestId('executions-count')).toHaveText(`${(await rest('slug')).length} found`);
  await check(page, 'executions-search');

  // A request id, with Enter (no wait); reloading keeps the search.
  await search.fill(requestId);
  await search.press('Enter');
  await expect(page).toHaveURL(new RegExp(`[?&]q=${requestId}`));
  await expect(table.getByRole('row')).toHaveCount(1 + 1);
  await page.reload();
  await expect(page.getByLabel('Search', { exact: true })).toHaveValue(requestId);
  await expect(table.getByRole('row')).toHaveCount(1 + 1);

  // An error code, then words of the error message in another case.
  await search.fill(failure.error.code);
  await expect(table.getByRole('link', { name: failure.execution_id })).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount((await rest(failure.error.code)).length + 1);
  const words = failure.error.message.slice(0, 12).toUpperCase();
  await search.fill(words);
  await expect(table.getByRole('link', { name: failure.execution_id })).toBeVisible();

  // Combined with a filter; nothing matches; clearing shows everything again.
  await search.fill('zz-nothing-matches');
  await expect(page.getByText('No execution matches “zz-nothing-matches”')).toBeVisible();
  await check(page, 'executions-search-empty');
  await page.getByRole('button', { name: 'Clear search and filters' }).click();
  await expect(page.getByLabel('Search', { exact: true })).toHaveValue('');
  await expect(table.getByRole('row')).toHaveCount(4 + 1);

  // Another tenant finds nothing by the first one's request id or execution id.
  const other = await newOwner(browser, { agentName: 'Other Search Agent' });
  await other.page.goto(`/dashboard/executions?q=${encodeURIComponent(requestId)}`);
  await expect(other.page.getByText(`No execution matches “${requestId}”`)).toBeVisible();
  await other.page.goto(`/dashboard/executions?q=${encodeURIComponent(failure.execution_id)}`);
  await expect(other.page.getByText(`No execution matches “${failure.execution_id}”`)).toBeVisible();
});
