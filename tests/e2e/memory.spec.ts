/** Memory: entries written through the API are browsed, searched, viewed and deleted in the dashboard. */
import { api, check, expect, newOwner, test } from './support';

test('browse, search, view and delete an agent’s memory entries', async ({ browser }) => {
  const { page, apiKey } = await newOwner(browser, { agentName: 'Memory Agent' });
  const agent = 'e2e-bot';
  for (const entry of [
    { key: 'greeting', value: { text: 'hello there' }, tags: ['welcome'] },
    { key: 'invoice-42', value: { amount: 42, note: 'due friday' }, tags: ['billing'] },
  ]) {
    const res = await api(page, apiKey, 'POST', '/api/v1/memory', { agent_id: agent, ...entry });
    expect(res.status).toBe(201);
  }

  await page.goto('/dashboard/memory');
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  await expect(page.getByText('Choose an agent')).toBeVisible();
  await check(page, 'memory-start');

  // The agents with memory are listed (memory.agents); one click browses an agent.
  await page.getByRole('button', { name: /^e2e-bot\s*2$/ }).click();
  await expect(page.getByLabel('Agent id')).toHaveValue(agent);
  await expect(page.getByRole('cell', { name: 'greeting', exact: true })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'invoice-42', exact: true })).toBeVisible();
  await check(page, 'memory');

  // Full-text search over values.
  await page.getByLabel('Search keys and values').fill('friday');
  await page.getByRole('button', { name: 'Show entries' }).click();
  await expect(page.getByRole('cell', { name: 'invoice-42', exact: true })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'greeting', exact: true })).toHaveCount(0);

  // The value, in full.
  await page.getByRole('button', { name: 'View invoice-42' }).click();
  await expect(page.getByTestId('memory-value')).toContainText('due friday');
  await check(page, 'memory-value');
  await page.keyboard.press('Escape');

  // Delete, confirmed: gone from the list and from the API.
  await page.getByRole('button', { name: 'Delete invoice-42' }).click();
  await page.getByRole('button', { name: 'Delete entry' }).click();
  await expect(page.getByRole('cell', { name: 'invoice-42', exact: true })).toHaveCount(0);
  await expect(page.getByText('No entry matches')).toBeVisible();
  // The row leaves the list optimistically, before the server has answered the delete: wait for the API to agree.
  await expect.poll(async () => (await api(page, apiKey, 'GET', `/api/v1/memory/${agent}/invoice-42`)).status).toBe(404);
  expect((await api(page, apiKey, 'GET', `/api/v1/memory/${agent}/greeting`)).status).toBe(200);
});

test('"Load more" pages through an agent’s entries', async ({ browser }) => {
  const { page, apiKey } = await newOwner(browser, { agentName: 'Memory Paging Agent' });
  // Pro's request rate: the page size (50) and one more entry, written as an agent would.
  expect((await api(page, apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  for (let i = 1; i <= 51; i++)
    expect(
      (
        await api(page, apiKey, 'POST', '/api/v1/memory', {
          agent_id: 'paging-bot',
          key: `note-${String(i).padStart(2, '0')}`,
          value: { i },
        })
      ).status,
    ).toBe(201);

  await page.goto('/dashboard/memory?agent=paging-bot');
  const table = page.getByRole('table', { name: 'Memory entries of paging-bot' });
  await expect(table.getByRole('row')).toHaveCount(50 + 1);
  await expect(page.getByText('50 entries of paging-bot so far')).toBeVisible();
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(table.getByRole('row')).toHaveCount(51 + 1);
  await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
  await expect(page.getByText('51 entries of paging-bot')).toBeVisible();
  await check(page, 'memory-paged');
});
