/**
 * The webhook controls as a tenant owner uses them, against a real receiver (node:http on
 * 127.0.0.1; WEBHOOK_ALLOW_PRIVATE=1 in the service under test): the event catalog page, custom
 * headers entered in the form, a test send of a chosen kind, and a secret rotation with an overlap.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { api, check, expect, newOwner, test } from './support';

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: { id: string; event: string; test?: boolean; data: Record<string, unknown> };
}

async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) as Received['body'] });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/amp`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('event catalog, custom headers, a test send of a chosen kind and a rotation with an overlap', async ({ browser }) => {
  test.setTimeout(300_000);
  const receiver = await startReceiver();
  try {
    const owner = await newOwner(browser, { agentName: 'Controls Agent' });
    const { page } = owner;
    expect((await api(page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);

    // The catalog page: every kind of the API's catalog, with its example.
    const catalog = await api(page, owner.apiKey, 'GET', '/api/v1/webhooks/event-types');
    const kinds = (catalog.body!.data as { type: string }[]).map((e) => e.type);
    await page.goto('/dashboard/webhooks');
    await page.getByRole('link', { name: 'Event types' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Event types' })).toBeVisible();
    await expect(page.getByTestId('event-type')).toHaveCount(kinds.length);
    const invoice = page.locator('[data-type="billing.invoice_created"]');
    await expect(invoice).toContainText('AMP-3F2A9C1B-0001');
    await invoice.getByRole('button', { name: 'JSON Schema of the data' }).click();
    await expect(invoice.getByLabel('JSON Schema of billing.invoice_created')).toContainText('"invoice_id"');
    // A reference for receivers' developers by nature: its examples and schemas name API paths.
    await check(page, 'webhook-event-types', { developerPage: true });

    // Create with a custom header; the event picker shows each kind's description.
    await page.goto('/dashboard/webhooks');
    await page.getByRole('button', { name: 'Create webhook' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create a webhook' });
    await dialog.getByLabel('Receiver URL').fill(receiver.url);
    await expect(dialog.getByText('An invoice was generated')).toBeVisible();
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByLabel('Header 1 name').fill('Content-Type');
    await dialog.getByLabel('Header 1 value').fill('text/plain');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await expect(dialog.getByTestId('headers-editor')).toContainText('set by the platform');
    await dialog.getByLabel('Header 1 name').fill('Authorization');
    await dialog.getByLabel('Header 1 value').fill('Bearer e2e-receiver');
    await check(page, 'webhook-create-with-headers');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('link', { name: 'Open the webhook' }).click();
    await expect(page.getByTestId('delivery-settings')).toContainText('Authorization: Bearer e2e-receiver');

    // A test send of a chosen kind: its catalog example, marked as a test, with the header.
    await page.getByTestId('test-kind').selectOption('billing.invoice_created');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByTestId('test-result')).toContainText('Delivered');
    const sent = receiver.received.at(-1)!;
    expect(sent.body).toMatchObject({ event: 'billing.invoice_created', test: true, data: { number: 'AMP-3F2A9C1B-0001' } });
    expect(sent.headers['x-webhook-test']).toBe('1');
    expect(sent.headers.authorization).toBe('Bearer e2e-receiver');

    // Rotate with the default 24-hour overlap: the new secret is shown once; both secrets verify.
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret' });
    await expect(rotate.getByLabel('Keep the current secret signing for')).toHaveValue('86400');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const secret = (await rotate.getByTestId('rotated-webhook-secret').textContent())?.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(secret).toBeTruthy();
    await check(page, 'webhook-rotated-secret');
    await rotate.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId('delivery-settings')).toContainText('The previous secret also signs deliveries until');
    const test2 = await api(page, owner.apiKey, 'POST', `/api/v1/webhooks/${id}/test`);
    expect(test2.body?.delivered).toBe(true);
    const during = receiver.received.at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(secret!).verify(during.raw.toString('utf8'), during.headers as Record<string, string>)).not.toThrow();
    await check(page, 'webhook-detail-controls');

    // A filter and a pace, set in the edit form: a filter that does not parse is refused with the
    // reason; a good one and the pace show on the page, as the API answers them.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit webhook' });
    const filterField = edit.getByLabel('Only events matching (optional)');
    await filterField.fill('event = "execution.failed"');
    await edit.getByRole('button', { name: 'Save' }).click();
    // The reason shows under the field, which gets the focus.
    await expect(filterField).toHaveAttribute('aria-invalid', 'true');
    await expect(filterField.locator('..')).toContainText('The filter is not valid');
    await expect(filterField).toBeFocused();
    await edit.getByLabel('Only events matching (optional)').fill('event == "execution.failed" && data.module == "http"');
    await edit.getByLabel('Deliveries per second, at most (optional)').fill('5');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(edit).toBeHidden();
    await expect(page.getByTestId('webhook-filter')).toContainText('event == "execution.failed" && data.module == "http"');
    await expect(page.getByTestId('webhook-rate-limit')).toContainText('at most 5 deliveries a second');
    const saved = await api(page, owner.apiKey, 'GET', `/api/v1/webhooks/${id}`);
    expect(saved.body).toMatchObject({ filter: 'event == "execution.failed" && data.module == "http"', rate_limit_per_second: 5 });
  } finally {
    await receiver.close();
  }
});
