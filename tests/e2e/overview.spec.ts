/**
 * The overview (docs/dashboard.md): a new owner sees its plan, limits and the first steps; an action run
 * with the API key (as a script runs it) appears in the latest executions and in the chart's
 * data, the quota meter counts it and the getting-started step for it is gone.
 */
import { api, check, expect, newOwner, test } from './support';

test('a new owner sees the plan and first steps; an action run with the key shows up in the overview', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Overview Agent' });
  const { page } = owner;
  const consoleErrors: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByTestId('overview-plan')).toContainText('free');
  await expect(page.getByTestId('getting-started')).toBeVisible();
  await expect(page.getByTestId('getting-started-execute-step')).toBeVisible();
  await expect(page.getByTestId('getting-started-execute')).toContainText(`${new URL(page.url()).origin}/api/v1/modules/text/execute`);
  // Free plan: the webhook step explains the plan it needs, with the API's own message.
  await expect(page.getByTestId('getting-started-webhook-step')).toContainText('needs the pro plan');
  await expect(page.getByTestId('getting-started-webhook-step').getByRole('link', { name: 'Change plan' })).toBeVisible();
  await expect(page.getByTestId('overview-quota')).toContainText('0 / 1,000');
  await expect(page.getByTestId('overview-rate')).toContainText('/ 60');
  await expect(page.getByText('No executions yet')).toBeVisible();
  await check(page, 'overview-new');
  // Nothing the page asks fails: a free plan's webhooks are not asked for (their answer is a known 403).
  expect(consoleErrors).toEqual([]);

  const run = await api(page, owner.apiKey, 'POST', '/api/v1/modules/text/execute', {
    action: 'slugify',
    input: { text: 'Hello Overview' },
  });
  expect(run.status).toBe(200);
  const executionId = String(run.body?.execution_id);

  await page.reload();
  await expect(page.getByRole('link', { name: executionId })).toBeVisible();
  await expect(page.getByTestId('getting-started-execute-step')).toHaveCount(0);
  await expect(page.getByTestId('overview-quota')).toContainText('1 / 1,000');
  // The chart's data: today's bar holds the execution (its data table carries the same numbers).
  const chart = page.getByTestId('overview-chart');
  await expect(chart).toHaveAttribute('data-total', '1');
  const today = new Date().toISOString().slice(0, 10);
  await expect(chart.getByRole('row', { name: new RegExp(`^${today} 1 0$`) })).toHaveCount(1);
  await chart.getByRole('button', { name: 'Show data' }).click();
  await expect(chart.getByRole('row', { name: new RegExp(`^${today} 1 0$`) })).toBeVisible();
  // The numbers on the page are the API's.
  const usage = await api(page, owner.apiKey, 'GET', '/api/v1/billing/usage');
  expect((usage.body?.executions as { used: number }).used).toBe(1);
  // The open table scrolls in a named region the keyboard reaches (checked by axe with the page).
  const data = chart.getByRole('region', { name: 'Executions per day: data' });
  await chart.getByRole('button', { name: 'Hide data' }).focus();
  await page.keyboard.press('Tab');
  await expect(data).toBeFocused();
  await check(page, 'overview-active');
  await chart.getByRole('button', { name: 'Hide data' }).click();
  await expect(data).toHaveCount(0);

  // The execution links to its detail page.
  await page.getByRole('link', { name: executionId }).click();
  await page.waitForURL(`**/dashboard/executions/${executionId}`);
  await expect(page.getByTestId('execution-output')).toContainText('hello-overview');
});

test('signing in without a destination opens the dashboard; / links to it', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Home Agent' });
  const { page } = owner;
  await page.goto('/');
  await page.getByRole('main').getByRole('link', { name: 'Open the dashboard' }).click();
  await page.waitForURL('**/dashboard');
  // Another browser, not signed in: the sign-in page without a callbackUrl lands on the overview.
  const fresh = await (await browser.newContext({ baseURL: process.env.E2E_BASE_URL })).newPage();
  await fresh.goto('/sign-in');
  await fresh.getByLabel('Email', { exact: true }).fill(owner.email);
  await fresh.getByLabel('Password', { exact: true }).fill(owner.password);
  await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
  await fresh.waitForURL((url) => url.pathname === '/dashboard');
  await expect(fresh.getByTestId('overview-plan')).toContainText('free');
  await fresh.context().close();
});
