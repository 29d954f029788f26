/**
 * The dashboard offers no action the API would refuse: a viewer finds Install, Uninstall, the
 * playground's Run, memory Delete, a delivery's Resend, Recover and Replay off, each described by
 * the reason in words; a developer may create keys but not give one a scope its role lacks, nor
 * rotate the `*` key.
 * The API stays the enforcement (docs/organizations.md); these only spare the click.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from '@playwright/test';
import { api, check, expect, expectFitsNarrowScreen, newOwner, test, uniqueEmail, type Owner } from './support';

/** A receiver that answers 500: every delivery to it fails. */
async function failingReceiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('down for the test');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/amp`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A member of the owner's workspace with `role`, signed in through the invitation link. */
async function member(browser: Browser, owner: Owner, role: 'viewer' | 'developer') {
  const email = uniqueEmail(`gating-${role}`);
  const invited = await api(owner.page, owner.apiKey, 'POST', '/api/v1/members/invitations', { email, role });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const { page } = await newOwner(browser, { email, agentName: `${role} own workspace` });
  await page.goto(new URL(String(invited.body!.accept_url)).pathname);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard');
  return page;
}

test('a viewer finds install, memory delete and delivery resend, recover and replay off, with the reason', async ({ browser }) => {
  test.setTimeout(600_000);
  const receiver = await failingReceiver();
  try {
    const owner = await newOwner(browser, { agentName: 'Gated Team' });
    expect((await api(owner.page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
    expect(
      (await api(owner.page, owner.apiKey, 'POST', '/api/v1/memory', { agent_id: 'gate-bot', key: 'note', value: { a: 1 } })).status,
    ).toBe(201);
    const made = await api(owner.page, owner.apiKey, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['execution.completed'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const webhookId = String(made.body!.id);
    const run = await api(owner.page, owner.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 'Gate' } });
    expect(run.status).toBe(200);
    await expect
      .poll(
        async () =>
          ((await api(owner.page, owner.apiKey, 'GET', `/api/v1/webhooks/${webhookId}`)).body!.stats as { failed_deliveries: number })
            .failed_deliveries,
        {
          timeout: 60_000,
        },
      )
      .toBeGreaterThan(0);

    const page = await member(browser, owner, 'viewer');
    const modulesReason = "Viewers can't install or uninstall modules — ask the owner or an admin.";

    // Modules: every Install and Uninstall is off, described by the reason under the header.
    await page.goto('/dashboard/modules');
    await expect(page.getByTestId('denied-reason')).toHaveText(modulesReason);
    const card = page.getByTestId('module-card-text');
    const toggle = card.getByRole('button', { name: /^(Install|Uninstall) / });
    await expect(toggle).toBeDisabled();
    await expect(toggle).toHaveAccessibleDescription(modulesReason);
    await check(page, 'gating-modules-viewer');
    await expectFitsNarrowScreen(page);

    await page.goto('/dashboard/modules/text');
    const one = page.getByRole('button', { name: /^(Install|Uninstall) / });
    await expect(one).toBeDisabled();
    await expect(one).toHaveAccessibleDescription(modulesReason);
    await check(page, 'gating-module-viewer');

    // The playground: the form works, Run is off with the reason.
    await page.goto('/dashboard/modules/text/slugify');
    const runButton = page.getByRole('button', { name: 'Run slugify' });
    await expect(runButton).toBeDisabled();
    await expect(runButton).toHaveAccessibleDescription("Viewers can't run actions — ask the owner or an admin.");
    await check(page, 'gating-playground-viewer');

    // Memory: the entry reads; its Delete is off.
    await page.goto('/dashboard/memory?agent=gate-bot');
    const del = page.getByRole('button', { name: 'Delete note' });
    await expect(del).toBeDisabled();
    await expect(del).toHaveAccessibleDescription("Viewers can't delete memory entries — ask the owner or an admin.");
    await expect(page.getByRole('button', { name: 'View note' })).toBeEnabled();
    await check(page, 'gating-memory-viewer');
    await expectFitsNarrowScreen(page);

    // A webhook: the failed delivery's Resend, Recover and Replay are off with the reason; no Edit.
    const webhookReason = "Viewers can't resend, recover or replay deliveries — ask the owner or an admin.";
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    const resend = page.getByRole('button', { name: /^Resend execution\.completed delivery/ }).first();
    await expect(resend).toBeDisabled();
    await expect(resend).toHaveAccessibleDescription(webhookReason);
    await expect(page.getByRole('button', { name: 'Recover' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Recover' })).toHaveAccessibleDescription(webhookReason);
    await expect(page.getByRole('button', { name: 'Replay', exact: true })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Replay', exact: true })).toHaveAccessibleDescription(webhookReason);
    await expect(page.getByRole('button', { name: 'Edit' })).toHaveCount(0);
    await check(page, 'gating-webhook-viewer');
    await expectFitsNarrowScreen(page);
  } finally {
    await receiver.close();
  }
});

test('a developer cannot give a key a scope its role lacks, nor rotate the full-access key', async ({ browser }) => {
  test.setTimeout(420_000);
  const owner = await newOwner(browser, { agentName: 'Dev Team' });
  expect((await api(owner.page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  const page = await member(browser, owner, 'developer');

  await page.goto('/dashboard/keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('dialog', { name: 'Create an API key' });
  const star = create.getByRole('checkbox', { name: '*' });
  await expect(star).toBeDisabled();
  await expect(star).toHaveAccessibleDescription(/Developers can't give a key the scope “\*” — ask the owner\./);
  await expect(create.getByRole('checkbox', { name: 'audit:read' })).toBeDisabled();
  await expect(create.getByRole('checkbox', { name: 'modules:install' })).toBeEnabled();
  await check(page, 'gating-key-create-developer');
  await create.getByLabel('Name').fill('dev-bot');
  await create.getByRole('button', { name: 'Create key' }).click();
  const created = page.getByRole('dialog', { name: 'Your new key' });
  await expect(created.getByTestId('new-key-secret')).toBeVisible();
  await created.getByRole('button', { name: 'Done' }).click();

  // The primary key holds `*`: rotating it is off, with the reason; the developer's own key rotates.
  await page
    .getByRole('row', { name: /primary/i })
    .getByRole('button', { name: 'Manage primary' })
    .click();
  await page.getByRole('menuitem', { name: 'Rotate…' }).click();
  const rotate = page.getByRole('dialog', { name: 'Rotate “primary”' });
  await expect(rotate.getByRole('button', { name: 'Rotate key' })).toBeDisabled();
  await expect(rotate.getByRole('button', { name: 'Rotate key' })).toHaveAccessibleDescription(
    "Developers can't rotate a key with the scope “*” — ask the owner.",
  );
  await check(page, 'gating-key-rotate-developer');
  await rotate.getByRole('button', { name: 'Cancel' }).click();
  await page
    .getByRole('row', { name: /dev-bot/ })
    .getByRole('button', { name: 'Manage dev-bot' })
    .click();
  await page.getByRole('menuitem', { name: 'Rotate…' }).click();
  await expect(page.getByRole('dialog', { name: 'Rotate “dev-bot”' }).getByRole('button', { name: 'Rotate key' })).toBeEnabled();

  // Modules: a developer installs.
  await page.goto('/dashboard/modules');
  await expect(page.getByTestId('module-card-text').getByRole('button', { name: /^(Install|Uninstall) / })).toBeEnabled();
  await expect(page.getByTestId('denied-reason')).toHaveCount(0);
});
