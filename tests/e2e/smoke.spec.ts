/** The dashboard opens for a new tenant owner: signed up, confirmed, signed in, tenant created. */
import { check, expect, newOwner, test } from './support';

test('a new owner reaches the overview', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Smoke Agent' });
  await owner.page.goto('/dashboard');
  await expect(owner.page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(owner.page.getByTestId('overview-plan')).toContainText('free');
  await check(owner.page, 'overview');
});
