/**
 * Tables on a phone: one owner with rows in every table of the dashboard (keys, a webhook whose
 * receiver fails, executions, memory, members and invitations, workflows and their runs, the
 * audit log) walks each page at 375 × 812. No page is wider than the screen, and in every table
 * each row's cells (its name or id first) and its actions (Manage, Resend, View, Delete, Revoke…)
 * lie inside the screen and inside any box that scrolls sideways. At 1280 px the row actions are
 * not cut off by a table's scrolling box either.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from '@playwright/test';
import { api, check, expect, newOwner, test, uniqueEmail, unreachableInTables } from './support';

/** At 375 px: the page is no wider than the screen and every table row is reachable; then the same rows at 1280 px. */
async function expectTablesFit(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 812 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: `${name}: page width at 375 px` })
    .toBeLessThanOrEqual(375);
  expect.soft(await unreachableInTables(page), `${name} at 375 px`).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: `${name}: page width at 1280 px` })
    .toBeLessThanOrEqual(1280);
  expect.soft(await unreachableInTables(page), `${name} at 1280 px`).toEqual([]);
  await page.setViewportSize({ width: 375, height: 812 });
}

/** Scrolled to (vertically, as a reader would), the element is entirely on the screen. */
async function inView(locator: Locator): Promise<void> {
  await locator.scrollIntoViewIfNeeded();
  await expect(locator).toBeInViewport({ ratio: 1 });
}

/** A receiver that refuses every delivery with a 500 and a long, unbroken reason. */
async function startFailingReceiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`receiver refused the event: upstream_dependency_unavailable_${'x'.repeat(80)} (try again later)`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/a-rather-long-path/that-keeps-going/amp`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('at 375 px every table of the dashboard shows each row’s name and actions without scrolling sideways', async ({ browser }) => {
  test.setTimeout(600_000);
  const receiver = await startFailingReceiver();
  try {
    const owner = await newOwner(browser, { agentName: 'Narrow Tables Agent' });
    const { page, apiKey } = owner;
    const call = async (method: string, pathname: string, body?: unknown, expected = [200, 201, 202]) => {
      const res = await api(page, apiKey, method, pathname, body);
      expect(expected, `${method} ${pathname}: ${JSON.stringify(res.body)}`).toContain(res.status);
      return res.body ?? {};
    };
    await call('PUT', '/api/v1/billing/plan', { plan: 'pro' });

    // Rows for every table: keys with long names and many scopes, a webhook whose receiver fails,
    // executions (one failed), memory entries, an invitation, a workflow with a run.
    const longKeyName = 'nightly-report-generator-for-the-finance-team';
    await call('POST', '/api/v1/keys', {
      name: longKeyName,
      scopes: ['modules:read', 'modules:execute', 'modules:install', 'billing:read', 'memory:read', 'memory:write', 'audit:read'],
    });
    await call('POST', '/api/v1/keys', { name: 'ci' });
    const webhook = await call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['execution.completed', 'execution.failed'] });
    const webhookId = String(webhook.id);
    for (const text of ['Hello narrow screens', 'A second title for the list'])
      await call('POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text } });
    await call('POST', '/api/v1/modules/text/execute', { action: 'slugify', input: {} }, [400, 422]);
    const agent = 'phone-sized-agent';
    for (const [key, value] of [
      ['customer-preferences/notification-channels-and-quiet-hours', { email: true, sms: false, quiet: '22:00-07:00' }],
      ['greeting', { text: 'hello there' }],
    ] as const)
      await call('POST', '/api/v1/memory', { agent_id: agent, key, value, tags: ['onboarding', 'preferences'] });
    const invitee = uniqueEmail('a-colleague-with-a-long-address');
    await call('POST', '/api/v1/members/invitations', { email: invitee, role: 'developer' });
    const workflow = await call('POST', '/api/v1/workflows', {
      name: 'Slugify the incoming support ticket titles',
      steps: [
        { id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
        { id: 'hash', module: 'crypto', action: 'hash', input: { text: '{{steps.slug.output.slug}}' }, depends_on: ['slug'] },
      ],
    });
    const workflowId = String(workflow.id);
    const run = await call('POST', `/api/v1/workflows/${workflowId}/runs`, { input: { title: 'Printer on fire' } });
    const runId = String(run.run_id);

    // The receiver refuses both attempts of a delivery (the service under test retries once).
    await expect
      .poll(
        async () => {
          const detail = await call('GET', `/api/v1/webhooks/${webhookId}`);
          return Number((detail as { consecutive_failures?: number }).consecutive_failures ?? 0);
        },
        { timeout: 60_000, message: 'a failed delivery' },
      )
      .toBeGreaterThan(0);

    await page.setViewportSize({ width: 375, height: 812 });

    await page.goto('/dashboard');
    await expect(
      page
        .getByRole('table', { name: /executions/i })
        .getByRole('row')
        .nth(1),
    ).toBeVisible();
    await expectTablesFit(page, 'overview');

    await page.goto('/dashboard/executions');
    const executions = page.getByRole('table', { name: 'Executions' });
    await expect(executions.getByRole('row').nth(3)).toBeVisible();
    await expectTablesFit(page, 'executions');

    await page.goto('/dashboard/keys');
    const keyRow = page.getByRole('row', { name: new RegExp(longKeyName) });
    await inView(keyRow.getByRole('button', { name: `Manage ${longKeyName}` }));
    await inView(keyRow.getByText('audit:read'));
    await expectTablesFit(page, 'keys');
    await check(page, 'narrow-keys');

    await page.goto('/dashboard/webhooks');
    await expect(page.getByRole('link', { name: receiver.url })).toBeVisible();
    await expectTablesFit(page, 'webhooks');

    await page.goto(`/dashboard/webhooks/${webhookId}`);
    const failed = page
      .getByTestId('delivery')
      .filter({ has: page.getByText('failed', { exact: true }) })
      .first();
    await expect(failed).toBeVisible({ timeout: 30_000 });
    await failed.getByRole('button').first().click();
    const attempts = failed.getByTestId('attempts');
    // The reason it failed, in view: the status and the receiver's answer.
    await expect(attempts).toContainText('500');
    await inView(attempts.getByText(/upstream_dependency_unavailable/).first());
    await expectTablesFit(page, 'webhook-detail');
    await check(page, 'narrow-webhook-attempts');

    await page.goto(`/dashboard/memory?agent=${agent}`);
    await expect(page.getByRole('button', { name: 'View greeting' })).toBeVisible();
    await expectTablesFit(page, 'memory');

    await page.goto('/dashboard/members');
    await expect(page.getByRole('table', { name: 'Pending invitations' }).getByRole('row', { name: new RegExp(invitee) })).toBeVisible();
    await inView(page.getByRole('button', { name: `Resend the invitation to ${invitee}` }));
    await expectTablesFit(page, 'members');

    await page.goto('/dashboard/workflows');
    await inView(page.getByRole('link', { name: 'Slugify the incoming support ticket titles' }));
    await expectTablesFit(page, 'workflows');

    await page.goto(`/dashboard/workflows/${workflowId}`);
    await expect(page.getByRole('link', { name: runId })).toBeVisible();
    await expectTablesFit(page, 'workflow-detail');
    await check(page, 'narrow-workflow-detail');

    await page.goto(`/dashboard/workflows/${workflowId}/runs/${runId}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectTablesFit(page, 'workflow-run');

    await page.goto('/dashboard/audit-log');
    await expect(page.getByRole('table').getByRole('row').nth(1)).toBeVisible();
    await expectTablesFit(page, 'audit-log');

    await page.goto('/dashboard/modules/text');
    await expect(page.getByTestId('trust-components')).toBeVisible();
    await expectTablesFit(page, 'module');

    for (const [path, name] of [
      ['/dashboard/usage', 'usage'],
      ['/dashboard/invoices', 'invoices'],
      ['/dashboard/modules', 'modules'],
      ['/account', 'account'],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await page.waitForLoadState('networkidle');
      await expectTablesFit(page, name);
    }
    // On a phone the plans are compared one card per plan, not in a table to scroll sideways.
    await page.goto('/dashboard/usage');
    await expect(page.getByTestId('plan-cards').getByRole('listitem')).toHaveCount(4);
    await expect(page.getByTestId('plan-comparison')).toBeHidden();
  } finally {
    await receiver.close();
  }
});
