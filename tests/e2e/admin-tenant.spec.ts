/**
 * Admin's tenant page: the operator follows a tenant's name from the Admin page to its detail
 * (plan, executions this cycle against the quota, keys, webhooks, the latest failed deliveries);
 * an id with no tenant says so; a tenant owner is refused the page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, check, expect, expectFitsNarrowScreen, newOwner, SECOND_ADMIN_EMAIL, test } from './support';

test('an operator opens a tenant from the Admin page: plan, usage, keys, webhooks and failed deliveries', async ({ browser }) => {
  test.setTimeout(480_000);
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 500;
      res.end('down');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const tenant = await newOwner(browser, { agentName: 'Detail Works' });
    expect((await api(tenant.page, tenant.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
    const tenantId = String((await api(tenant.page, tenant.apiKey, 'GET', '/api/v1/me')).body!.tenant_id);
    expect((await api(tenant.page, tenant.apiKey, 'POST', '/api/v1/keys', { name: 'second', scopes: ['modules:read'] })).status).toBe(201);
    const sub = await api(tenant.page, tenant.apiKey, 'POST', '/api/v1/webhooks', { url: receiverUrl, events: ['execution.completed'] });
    expect(sub.status).toBe(201);
    for (const text of ['first', 'second'])
      expect(
        (await api(tenant.page, tenant.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text } })).status,
      ).toBe(200);
    await expect
      .poll(
        async () =>
          (
            (await api(tenant.page, tenant.apiKey, 'GET', `/api/v1/webhooks/${String(sub.body!.id)}`)).body!.stats as {
              failed_deliveries: number;
            }
          ).failed_deliveries,
        { timeout: 60_000 },
      )
      .toBe(2);

    // A tenant owner is refused the page.
    await tenant.page.goto(`/dashboard/admin/tenants/${tenantId}`);
    await expect(tenant.page.getByText('Not authorized')).toBeVisible();

    const operator = await newOwner(browser, { email: SECOND_ADMIN_EMAIL, agentName: 'Operator' });
    const page = operator.page;
    await page.goto('/dashboard/admin');
    const row = page.getByRole('table', { name: 'Tenants' }).getByRole('row').filter({ hasText: tenant.email });
    await row.getByRole('link', { name: 'Detail Works' }).click();
    await page.waitForURL(`**/dashboard/admin/tenants/${tenantId}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Detail Works' })).toBeVisible();
    await expect(page.getByTestId('tenant-plan')).toContainText('pro');
    await expect(page.getByTestId('tenant-usage')).toContainText(/^2 of [\d,]+ executions$/);
    await expect(page.getByRole('progressbar')).toBeVisible();
    await expect(page.getByTestId('tenant-keys')).toHaveText('2 active keys');
    await expect(page.getByTestId('tenant-webhooks')).toHaveText('1 subscription');
    const failed = page.getByRole('table', { name: 'Recent failed deliveries of this tenant' });
    await expect(failed.getByRole('row').filter({ hasText: receiverUrl })).toHaveCount(2);
    await expect(failed).toContainText('HTTP 500');
    await check(page, 'admin-tenant');
    await expectFitsNarrowScreen(page);

    // Back to Admin through the breadcrumb; an id with no tenant says so.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL('**/dashboard/admin');
    await page.goto('/dashboard/admin/tenants/00000000-0000-4000-8000-000000000000');
    await expect(page.getByRole('heading', { level: 1, name: 'Tenant not found' })).toBeVisible();
    await check(page, 'admin-tenant-missing');
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
