/**
 * Admin: an operator (ADMIN_EMAILS, email confirmed by the mailed link) with no workspace lands on
 * Admin after signing in, sees every tenant and the failed deliveries of another tenant's failing
 * webhook as one group (count, latest failure, events; opened and filtered), tests and re-enables
 * that webhook, which the service disabled after repeated failures (the focus stays in the list
 * when its row leaves), and changes that tenant's plan; a tenant owner gets no Admin link and is
 * refused the page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_EMAIL, api, check, expect, newOwner, test, verifyLink, waitForMail } from './support';

test('an operator sees failed deliveries grouped by endpoint, re-enables a disabled webhook of another tenant and changes its plan; others are refused', async ({
  browser,
}) => {
  // A receiver that fails until `up`: the service disables the subscription after 10 failed deliveries.
  let up = false;
  const receiver = http.createServer((_req, res) => {
    res.statusCode = up ? 200 : 500;
    res.end(up ? 'ok' : 'down');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const tenant = await newOwner(browser, { agentName: 'Webhook Owner' });
    expect((await api(tenant.page, tenant.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
    const sub = await api(tenant.page, tenant.apiKey, 'POST', '/api/v1/webhooks', { url: receiverUrl, events: ['execution.completed'] });
    expect(sub.status).toBe(201);
    const subId = String(sub.body?.id);
    for (let i = 0; i < 10; i++) {
      const run = await api(tenant.page, tenant.apiKey, 'POST', '/api/v1/modules/text/execute', {
        action: 'slugify',
        input: { text: `event ${i}` },
      });
      expect(run.status).toBe(200);
    }
    await expect
      .poll(async () => (await api(tenant.page, tenant.apiKey, 'GET', `/api/v1/webhooks/${subId}`)).body?.status, { timeout: 60_000 })
      .toBe('disabled');
    // Two events while it is disabled: not sent, for the operator to recover.
    for (const text of ['missed one', 'missed two'])
      expect(
        (await api(tenant.page, tenant.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text } })).status,
      ).toBe(200);

    // A tenant owner: no Admin link, and the page says so.
    await tenant.page.goto('/dashboard');
    await expect(tenant.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await tenant.page.goto('/dashboard/admin');
    await expect(tenant.page.getByText('Not authorized')).toBeVisible();
    await check(tenant.page, 'admin-refused');

    // The operator signs up and, with no workspace of their own, lands on Admin after signing in
    // (not on a page asking to create a tenant).
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const password = `pw-${Math.random().toString(36).slice(2)}-Aa1`;
    await page.goto('/sign-up');
    await page.getByLabel('Email', { exact: true }).fill(ADMIN_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Check your inbox').waitFor();
    await page.goto(verifyLink(await waitForMail(ADMIN_EMAIL, /confirm/i)));
    await page.waitForURL(/\/sign-in\?confirmed=1/);
    await page.goto('/sign-in');
    await page.getByLabel('Email', { exact: true }).fill(ADMIN_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/dashboard/admin');
    await expect(page.getByText('No tenant yet')).toHaveCount(0);
    // The dashboard itself sends them there too, and the navigation leads there.
    await page.goto('/dashboard');
    await page.waitForURL('**/dashboard/admin');
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL('**/dashboard/admin');
    await expect(page.getByRole('heading', { level: 1, name: 'Admin' })).toBeVisible();
    const tenantRow = page.getByRole('table', { name: 'Tenants' }).getByRole('row').filter({ hasText: tenant.email });
    await expect(tenantRow).toContainText('pro');
    await expect(tenantRow).toContainText('1 disabled webhook');
    const disabledRow = page
      .getByRole('table', { name: 'Disabled webhook subscriptions' })
      .getByRole('row')
      .filter({ hasText: receiverUrl });
    await expect(disabledRow).toBeVisible();
    // The ten failed deliveries to the receiver are one group: its count, the latest failure's
    // reason and the event kind, with a disclosure that opens the deliveries themselves.
    const failedTable = page.getByRole('table', { name: 'Failed deliveries by endpoint' });
    const group = failedTable.getByRole('row').filter({ hasText: receiverUrl });
    await expect(group).toHaveCount(1);
    await expect(group.getByTestId('failed-count')).toHaveText('10');
    await expect(group).toContainText('Webhook Owner');
    await expect(group).toContainText('HTTP 500');
    await expect(group).toContainText('execution.completed');
    await check(page, 'admin');

    const toggle = group.getByRole('button', { name: `Show deliveries to ${receiverUrl} of Webhook Owner` });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    const hide = failedTable.getByRole('button', { name: `Hide deliveries to ${receiverUrl} of Webhook Owner` });
    await expect(hide).toHaveAttribute('aria-expanded', 'true');
    const opened = page.locator(`[id="${await hide.getAttribute('aria-controls')}"]`);
    const deliveries = opened.getByRole('table', { name: `Failed deliveries to ${receiverUrl} of Webhook Owner` });
    await expect(deliveries.locator('tbody tr')).toHaveCount(10);
    await expect(deliveries.locator('tbody tr').first()).toContainText('HTTP 500');
    await check(page, 'admin-failed-open');
    await hide.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(opened).toHaveCount(0);

    // The filter: by the receiver's URL (the count says what is shown), by an event kind it did
    // not fail (the group goes), by words nothing has (an empty state), and back by the tenant's name.
    const filter = page.getByRole('searchbox', { name: 'Filter by receiver, tenant or event' });
    const summary = page.getByTestId('failed-summary');
    await filter.fill(receiverUrl);
    await expect(summary).toHaveText(/^1 endpoint, 10 failed deliveries \(of [\d,]+ loaded\)/);
    await expect(group).toHaveCount(1);
    await filter.fill('execution.failed');
    await expect(group).toHaveCount(0);
    await filter.fill('no receiver has these words');
    await expect(summary).toHaveText(/^0 endpoints, 0 failed deliveries/);
    await expect(page.getByText('No failed delivery matches')).toBeVisible();
    await check(page, 'admin-failed-none');
    await page.getByRole('button', { name: 'Clear the filter' }).click();
    await expect(filter).toHaveValue('');
    await expect(group).toHaveCount(1);
    await filter.fill('webhook owner');
    await expect(group).toHaveCount(1);
    await expect(group.getByTestId('failed-count')).toHaveText('10');
    await filter.fill('');

    // Re-enable asks first, offers a test send to the receiver and to recover what it missed. The
    // receiver is still down: the test says so. Once it is up, the test is delivered.
    const reenable = disabledRow.getByRole('button', { name: `Re-enable ${receiverUrl} of Webhook Owner` });
    await reenable.click();
    const enable = page.getByRole('alertdialog', { name: 'Re-enable this webhook?' });
    await expect(enable).toContainText('disabled after 10 failed deliveries in a row');
    await expect(enable.getByRole('checkbox', { name: 'Recover the events missed while it was disabled' })).toBeChecked();
    const testResult = enable.getByTestId('reenable-test-result');
    await enable.getByRole('button', { name: 'Send a test event' }).click();
    await expect(testResult).toContainText('Not delivered: HTTP 500');
    await check(page, 'admin-enable-dialog-down');
    // Cancel leaves it disabled, and the focus back on its button.
    await enable.getByRole('button', { name: 'Cancel' }).click();
    await expect(enable).toHaveCount(0);
    await expect(reenable).toBeFocused();
    up = true;
    await reenable.click();
    await expect(testResult).not.toContainText('Delivered');
    await enable.getByRole('button', { name: 'Send a test event' }).click();
    await expect(testResult).toContainText(/^Delivered: the receiver answered HTTP 200 in [\d,]+ ms\.$/);
    await check(page, 'admin-enable-dialog');
    await enable.getByRole('button', { name: 'Re-enable webhook' }).click();
    await expect(enable).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Disabled webhook subscriptions' }).getByText(receiverUrl)).toHaveCount(0);
    // The row has gone and the focus stays in the list (the next row's button, or the list's heading), not on <body>.
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.closest('section')?.getAttribute('aria-labelledby') ?? document.activeElement?.tagName),
      )
      .toBe('disabled-heading');
    await expect.poll(async () => (await api(tenant.page, tenant.apiKey, 'GET', `/api/v1/webhooks/${subId}`)).body?.status).toBe('active');
    const detail = await api(tenant.page, tenant.apiKey, 'GET', `/api/v1/webhooks/${subId}`);
    const history = detail.body?.deliveries as { kind: string }[];
    expect(history.filter((d) => d.kind === 'recover')).toHaveLength(2);
    // Both test sends are in the tenant's history, marked as tests.
    expect(history.filter((d) => d.kind === 'test')).toHaveLength(2);

    // Change the tenant's plan, with a request-limit override.
    await tenantRow.getByRole('button', { name: /^Change plan/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Plan').selectOption('business');
    await dialog.getByLabel('Request limit override (per minute)').fill('1234');
    await check(page, 'admin-change-plan');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(tenantRow).toContainText('business');
    await expect(tenantRow).toContainText('1,234');
    const me = await api(tenant.page, tenant.apiKey, 'GET', '/api/v1/me');
    expect(me.body).toMatchObject({ plan: 'business', requests_per_minute: 1234 });
    // The operator's own change is in the audit log of every tenant, under the operator's name.
    await page.reload();
    const audit = page.getByRole('region', { name: 'Audit log' });
    await expect(audit.getByRole('row').filter({ hasText: 'tenant.plan_set' }).first()).toContainText(`Operator ${ADMIN_EMAIL}`);
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
