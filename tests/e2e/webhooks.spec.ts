/**
 * The webhook pages as a tenant owner uses them, against a real receiver (node:http on
 * 127.0.0.1; the service under test allows private receivers, WEBHOOK_ALLOW_PRIVATE=1): the
 * free plan's explanation; on Pro a subscription created with its secret shown once, an action
 * run with the key delivering execution.completed, the delivery and its attempts and payload in
 * the detail, the charts, the test button, auto-disable by a failing receiver and enable, recovery
 * of the failed deliveries, a resend of one, replay of a time window (times in UTC); another tenant sees none of it, also by URL.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, check, expect, expectFitsNarrowScreen, newOwner, test, type Owner } from './support';

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: { id: string; event: string; data: Record<string, unknown> };
}

/** A receiver that records every request and answers 200, or 500 while `failing`. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { failing: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) as Received['body'] });
      res.writeHead(state.failing ? 500 : 200, { 'content-type': 'text/plain' });
      res.end(state.failing ? 'receiver down for the test' : 'thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/amp`;
  return { url, received, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const slugify = (owner: Owner, text: string) =>
  api(owner.page, owner.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text } });

test('a free tenant is told webhooks need a higher plan', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Free Hooks Agent' });
  const consoleErrors: string[] = [];
  owner.page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
  await owner.page.goto('/dashboard/webhooks');
  await expect(owner.page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();
  const limit = owner.page.getByTestId('webhooks-plan-limit');
  // The API's own 403 message, verbatim, and the way to a plan that has them.
  const refused = await api(owner.page, owner.apiKey, 'GET', '/api/v1/webhooks');
  expect(refused.status).toBe(403);
  await expect(limit).toContainText(String(refused.body?.message));
  await expect(limit.getByRole('link', { name: 'See your usage and change plan' })).toHaveAttribute('href', '/dashboard/usage');
  await check(owner.page, 'webhooks-free');
  expect(consoleErrors).toEqual([]);
});

test('subscribe a receiver, see deliveries with attempts, test, auto-disable and enable, replay; another tenant sees nothing', async ({
  browser,
}) => {
  test.setTimeout(420_000);
  const receiver = await startReceiver();
  try {
    const owner = await newOwner(browser, { agentName: 'Hooks Agent' });
    const { page } = owner;
    expect((await api(page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);

    await page.goto('/dashboard/webhooks');
    await expect(page.getByText('No webhooks yet')).toBeVisible();
    await check(page, 'webhooks-empty');

    await page.getByRole('button', { name: 'Create webhook' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create a webhook' });
    // The API's objection to the URL shows under the field, once, with the focus there.
    const urlField = dialog.getByLabel('Receiver URL');
    await urlField.fill('https://someone:secret@example.com/hooks');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await expect(urlField).toHaveAttribute('aria-invalid', 'true');
    await expect(urlField.locator('..')).toContainText('The URL must not carry credentials.');
    await expect(urlField).toBeFocused();
    await expect(dialog.getByRole('alert').filter({ hasText: 'The receiver URL is not allowed' })).toHaveCount(0);
    await urlField.fill(receiver.url);
    await expect(dialog.getByRole('checkbox', { name: 'execution.completed' })).toBeChecked();
    await expect(dialog.getByText('A module action succeeded')).toBeVisible();
    await dialog.getByRole('checkbox', { name: 'module.installed' }).check();
    await check(page, 'webhooks-create-dialog');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();

    const created = page.getByRole('dialog', { name: 'Webhook created' });
    const secret = ((await created.getByTestId('new-webhook-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_/);
    // The snippet carries the secret only now, right after it was created.
    await expect(created.getByTestId('verify-snippet-node')).toContainText(secret);
    await check(page, 'webhooks-created');
    await created.getByRole('link', { name: 'Open the webhook' }).click();
    await page.waitForURL(/\/dashboard\/webhooks\/wh_/);
    const webhookId = page.url().split('/').pop()!;
    await expect(page.getByTestId('webhook-status')).toContainText('Active');
    await expect(page.getByText('No deliveries yet')).toBeVisible();
    // Afterwards the snippet names the secret by its last four characters and reads it from the environment.
    await expect(page.getByTestId('verify-snippet-node')).not.toContainText(secret);
    await expect(page.getByTestId('verify-snippet-node')).toContainText(`ends in ${secret.slice(-4)}`);

    // An action run with the key: execution.completed reaches the receiver, signed with the secret.
    const run = await slugify(owner, 'Hello Webhooks');
    expect(run.status).toBe(200);
    await expect.poll(() => receiver.received.filter((r) => r.body.event === 'execution.completed').length, { timeout: 30_000 }).toBe(1);
    const completed = receiver.received.find((r) => r.body.event === 'execution.completed')!;
    const expected = createHmac('sha256', secret).update(completed.raw).digest();
    expect(timingSafeEqual(expected, Buffer.from(String(completed.headers['x-webhook-signature']), 'hex'))).toBe(true);
    expect(completed.body.data.execution_id).toBe(run.body?.execution_id);

    // The delivery and its attempt appear in the detail (it refreshes by itself).
    const delivery = page.getByTestId('delivery').filter({ has: page.getByText('execution.completed', { exact: true }) });
    await expect(delivery).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
    await delivery.getByRole('button').first().click();
    const attempts = delivery.getByTestId('attempts');
    await expect(attempts).toContainText('200');
    await expect(attempts).toContainText('thanks');
    await expect(delivery.getByTestId('delivery-payload')).toContainText(String(run.body?.execution_id));
    await expect(page.getByTestId('stat-succeeded')).not.toHaveText('0');
    // The charts count it (24 h, hourly buckets) without a reload, as the stat cards do.
    const succeeded = (await page.getByTestId('stat-succeeded').textContent())!.trim();
    await expect(page.getByTestId('webhook-rate-chart')).toHaveAttribute('data-succeeded', succeeded);
    await check(page, 'webhook-detail-delivery');
    await page.getByRole('button', { name: 'Show data' }).first().click();
    await expect(page.getByRole('table', { name: 'Deliveries per UTC hour' })).toBeVisible();
    await page.getByRole('button', { name: 'Hide data' }).click();

    // The test button and its result.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByTestId('test-result')).toContainText('Delivered');
    await expect(page.getByTestId('test-result')).toContainText('HTTP 200');
    await expect.poll(() => receiver.received.filter((r) => r.body.event === 'webhook.test').length).toBe(1);
    await check(page, 'webhook-test-result');

    // A failing receiver: 10 failed deliveries in a row disable the subscription.
    receiver.state.failing = true;
    for (let i = 0; i < 10; i++) expect((await slugify(owner, `Failing ${i}`)).status).toBe(200);
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId('webhook-status')).toContainText('Disabled', { timeout: 5_000 });
    }).toPass({ timeout: 120_000 });
    await expect(page.getByRole('alert').filter({ hasText: 'failed deliveries in a row' })).toBeVisible();
    const failed = page
      .getByTestId('delivery')
      .filter({ has: page.getByText('failed', { exact: true }) })
      .first();
    await failed.getByRole('button').first().click();
    await expect(failed.getByTestId('attempts')).toContainText('500');
    await expect(failed.getByTestId('attempts')).toContainText('receiver down for the test');
    await check(page, 'webhook-disabled');
    await expectFitsNarrowScreen(page);

    // Enable it again with the receiver back up.
    receiver.state.failing = false;
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    // The dialog offers to recover the window missed while disabled (none here: nothing happened since).
    const enableDialog = page.getByRole('dialog', { name: 'Enable this webhook?' });
    await expect(enableDialog.getByRole('checkbox', { name: 'Recover the events missed while it was disabled' })).toBeChecked();
    await enableDialog.getByRole('button', { name: 'Enable webhook' }).click();
    await expect(page.getByTestId('webhook-status')).toContainText('Active');
    await expect(page.getByText('Webhook enabled.')).toBeVisible();

    // Recover (since 24 hours ago, UTC): the 10 failed deliveries are sent again, nothing delivered is.
    const beforeRecover = receiver.received.length;
    await expect(page.getByLabel('Recover failed since (UTC)')).toHaveValue(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await expect(page.getByTestId('recover-result')).toContainText(/Queued \d+ events your receiver had not received/);
    const recovered = Number(/Queued (\d+)/.exec((await page.getByTestId('recover-result').textContent()) ?? '')?.[1]);
    expect(recovered).toBe(10);
    await expect.poll(() => receiver.received.length - beforeRecover, { timeout: 60_000 }).toBe(10);
    expect(new Set(receiver.received.slice(beforeRecover).map((r) => r.body.data.execution_id)).size).toBe(10);
    await expect(page.getByTestId('delivery').filter({ hasText: 'recover' }).first()).toHaveAttribute('data-status', 'succeeded', {
      timeout: 30_000,
    });
    await check(page, 'webhook-recovered');

    // Resend one delivery: one more attempt of the same message (same id), to the same receiver.
    const beforeResend = receiver.received.length;
    await page
      .getByRole('button', { name: /^Resend execution\.completed delivery/ })
      .first()
      .click();
    await expect(page.getByText(/Resending execution\.completed: attempt \d+ is on its way/)).toBeVisible();
    await expect.poll(() => receiver.received.length - beforeResend, { timeout: 30_000 }).toBe(1);
    const resent = receiver.received.at(-1)!;
    expect(receiver.received.slice(0, beforeResend).some((r) => r.body.id === resent.body.id)).toBe(true);

    // Replay the last hour: the 11 executions (and the install) are sent again with their ids.
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await expect(page.getByLabel('From (UTC)')).toBeVisible();
    await expect(page.getByTestId('replay-result')).toContainText(/Queued \d+ events/);
    const queued = Number(/Queued (\d+)/.exec((await page.getByTestId('replay-result').textContent()) ?? '')?.[1]);
    expect(queued).toBeGreaterThanOrEqual(11);
    await expect.poll(() => receiver.received.length - before, { timeout: 60_000 }).toBeGreaterThanOrEqual(queued);
    await check(page, 'webhook-replayed');

    // The list: status and the API's success rate.
    await page.goto('/dashboard/webhooks');
    const listed = await api(page, owner.apiKey, 'GET', '/api/v1/webhooks');
    const rate = (listed.body?.data as { success_rate: number }[])[0]!.success_rate;
    const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[/.:]/g, '\\$&')) });
    await expect(row).toContainText('Active');
    await expect(row).toContainText(`${(rate * 100).toLocaleString('en-US', { maximumFractionDigits: 2 })}%`);
    await check(page, 'webhooks-list');

    // Another tenant: no webhooks of its own, and the first tenant's by URL is not found.
    const other = await newOwner(browser, { agentName: 'Other Hooks Agent' });
    expect((await api(other.page, other.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
    await other.page.goto('/dashboard/webhooks');
    await expect(other.page.getByText('No webhooks yet')).toBeVisible();
    await other.page.goto(`/dashboard/webhooks/${webhookId}`);
    await expect(other.page.getByRole('heading', { level: 1, name: 'Webhook not found' })).toBeVisible();
    await expect(other.page.getByText(receiver.url)).toHaveCount(0);
    await check(other.page, 'webhook-not-found');
  } finally {
    await receiver.close();
  }
});
