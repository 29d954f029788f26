/**
 * Failures made loud, as the owner sees them: while a webhook is failing or disabled the overview
 * shows a banner and "Webhooks" in the navigation a badge (the sheet's Menu button on a phone);
 * the owner is mailed; enabling from the webhook's page offers to recover the window missed while
 * it was disabled, and the missed event reaches the receiver. A real receiver on 127.0.0.1 (the
 * service under test allows private receivers) answering 500, then 200.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, check, expect, newOwner, test, waitForMail, type Owner } from './support';

/** A receiver that records each event's body and answers 500 while `failing`. */
async function startReceiver() {
  const received: { event: string; data: Record<string, unknown> }[] = [];
  const state = { failing: true };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!state.failing) received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof received)[number]);
      res.writeHead(state.failing ? 500 : 200, { 'content-type': 'text/plain' });
      res.end(state.failing ? 'down for the test' : 'thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/amp`;
  return { url, received, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const slugify = (owner: Owner, text: string) =>
  api(owner.page, owner.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text } });

test('a failing, then disabled webhook shows on the overview and in the navigation; enabling recovers the missed window', async ({
  browser,
}) => {
  test.setTimeout(420_000);
  const receiver = await startReceiver();
  try {
    const owner = await newOwner(browser, { agentName: 'Alerts Agent' });
    const { page } = owner;
    expect((await api(page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
    const made = await api(page, owner.apiKey, 'POST', '/api/v1/webhooks', {
      url: receiver.url,
      events: ['execution.completed'],
      failure_alert_threshold: 2,
    });
    expect(made.status).toBe(201);
    const id = String(made.body?.id);
    const view = async () => (await api(page, owner.apiKey, 'GET', `/api/v1/webhooks/${id}`)).body!;

    // Nothing wrong yet: no banner, no badge.
    await page.goto('/dashboard');
    await expect(page.getByTestId('overview-plan')).toContainText('pro');
    await expect(page.getByTestId('webhooks-attention')).toHaveCount(0);
    await expect(page.getByTestId('nav-webhooks-badge')).toHaveCount(0);

    // Two failed deliveries reach the threshold: failing, and the owner is mailed.
    for (const text of ['one', 'two']) expect((await slugify(owner, text)).status).toBe(200);
    await expect.poll(async () => (await view()).failing_since, { timeout: 60_000 }).not.toBeNull();
    const mail = await waitForMail(owner.email, /^Webhook failing/);
    expect(mail.text).toContain(`/dashboard/webhooks/${id}`);
    await page.reload();
    const banner = page.getByTestId('webhooks-attention');
    await expect(banner).toContainText('1 webhook failing');
    await expect(banner.getByRole('link', { name: receiver.url })).toHaveAttribute('href', `/dashboard/webhooks/${id}`);
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    await expect(nav.getByRole('link', { name: /Webhooks/ })).toContainText('1 webhook failing');

    // Eight more: disabled, mailed again; then an event while disabled, which it misses.
    for (let i = 3; i <= 10; i++) expect((await slugify(owner, `failing ${i}`)).status).toBe(200);
    await expect.poll(async () => (await view()).status, { timeout: 120_000 }).toBe('disabled');
    await waitForMail(owner.email, /^Webhook disabled/);
    expect((await slugify(owner, 'Missed While Disabled')).status).toBe(200);

    await page.reload();
    await expect(banner).toContainText('1 webhook disabled');
    await expect(banner).toContainText('enable it and recover what it missed');
    await expect(nav.getByTestId('nav-webhooks-badge')).toHaveText(/1/);
    await expect(nav.getByRole('link', { name: /Webhooks/ })).toContainText('1 webhook disabled');
    await check(page, 'overview-webhook-disabled');
    // On a phone the navigation is behind the Menu button, which carries the badge.
    await page.setViewportSize({ width: 375, height: 812 });
    await expect(page.getByRole('button', { name: /Menu/ })).toContainText('1 webhook disabled');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Enable from the webhook's page, recovering the window missed while disabled.
    await banner.getByRole('link', { name: receiver.url }).click();
    await page.waitForURL(`**/dashboard/webhooks/${id}`);
    await expect(page.getByTestId('webhook-status')).toContainText('Disabled');
    await expect(page.getByTestId('webhook-alert-threshold')).toContainText('Alerts after 2 failed deliveries in a row');
    receiver.state.failing = false;
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Enable this webhook?' });
    await expect(dialog.getByRole('checkbox', { name: 'Recover the events missed while it was disabled' })).toBeChecked();
    await check(page, 'webhook-enable-dialog');
    await dialog.getByRole('button', { name: 'Enable webhook' }).click();
    await expect(page.getByText('Webhook enabled. 1 missed event queued for delivery.')).toBeVisible();
    await expect(page.getByTestId('webhook-status')).toContainText('Active');
    await expect
      .poll(() => receiver.received.map((r) => (r.data.output as { slug?: string } | undefined)?.slug), { timeout: 60_000 })
      .toEqual(['missed-while-disabled']);

    // Nothing needs attention any more.
    await page.goto('/dashboard');
    await expect(page.getByTestId('overview-plan')).toContainText('pro');
    await expect(page.getByTestId('webhooks-attention')).toHaveCount(0);
    await expect(page.getByTestId('nav-webhooks-badge')).toHaveCount(0);
  } finally {
    await receiver.close();
  }
});
