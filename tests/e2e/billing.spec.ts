/**
 * Usage and invoices (docs/dashboard.md): the usage page shows the cycle's executions as the API counts
 * them, every plan's price (the plan list the API gives) with the current one marked, and changes
 * the plan with a confirmation; a closed cycle's invoice is listed, renders as a
 * printable page (navigation hidden in print) and downloads as a PDF over the session.
 */
import { readFileSync } from 'node:fs';
import { extractText, getDocumentProxy } from 'unpdf';
import { RUNS, timePage, timingTable } from './page-timing';
import { api, check, E2E_ADMIN_TOKEN, expect, newOwner, test } from './support';

test('usage shows the executions and changes the plan; the invoice renders, prints and downloads', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Billing Agent' });
  const { page, apiKey } = owner;
  for (const text of ['Bill One', 'Bill Two']) {
    expect((await api(page, apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text } })).status).toBe(200);
  }

  await page.goto('/dashboard/usage');
  await expect(page.getByRole('heading', { level: 1, name: 'Usage' })).toBeVisible();
  await expect(page.getByTestId('usage-executions')).toHaveText('2');
  await expect(page.getByTestId('usage-projected')).toHaveText('$0.00');
  await expect(page.getByTestId('usage-daily-chart')).toHaveAttribute('data-total', '2');
  await expect(page.getByRole('table', { name: 'Executions per module' }).getByRole('row', { name: /^text 2 0$/ })).toHaveCount(1);

  // Every plan's price and limits, as GET /api/v1/billing/plans gives them; the current plan marked.
  const plans = (await api(page, apiKey, 'GET', '/api/v1/billing/plans')).body?.data as {
    plan: string;
    monthly_fee_usd: string | null;
    overage_unit_usd: string | null;
  }[];
  expect(plans.map((p) => p.plan)).toEqual(['free', 'pro', 'business', 'enterprise']);
  const comparison = page.getByTestId('plan-comparison');
  await expect(comparison.getByRole('columnheader', { name: /free/i })).toContainText('Current plan');
  await expect(comparison.getByRole('columnheader', { name: /pro/i })).not.toContainText('Current plan');
  const feeRow = comparison.getByRole('row', { name: /^Monthly fee/ });
  const overageRow = comparison.getByRole('row', { name: /^Past the monthly quota/ });
  for (const p of plans.filter((p) => p.monthly_fee_usd !== null && p.overage_unit_usd !== '0.00')) {
    await expect(feeRow).toContainText(`$${p.monthly_fee_usd} / month`);
    await expect(overageRow).toContainText(`$${p.overage_unit_usd} per execution`);
  }
  await expect(feeRow).toContainText(`$${plans[0]!.monthly_fee_usd} / month`);
  await expect(overageRow).toContainText('Paused until the next cycle');
  await expect(feeRow).toContainText('Custom');
  await expect(comparison.getByRole('row', { name: /^Webhooks/ })).toContainText('Not included');
  // The picker shows each plan's price.
  const pro = plans.find((p) => p.plan === 'pro')!;
  const business = plans.find((p) => p.plan === 'business')!;
  await expect(page.getByLabel('New plan').locator('option[value="pro"]')).toHaveText(`Pro · $${pro.monthly_fee_usd} / month`);
  await expect(page.getByLabel('New plan').locator('option[value="business"]')).toHaveText(
    `Business · $${business.monthly_fee_usd} / month`,
  );
  await check(page, 'usage');

  // Upgrade to Pro through the confirmation dialog; the page then shows the Pro terms.
  await page.getByRole('button', { name: 'Upgrade to pro' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upgrade to pro?' });
  await check(page, 'usage-upgrade-dialog');
  await dialog.getByRole('button', { name: 'Upgrade to pro' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText('Now on pro (was free)')).toBeVisible();
  const usage = await api(page, apiKey, 'GET', '/api/v1/billing/usage');
  expect(usage.body?.plan).toBe('pro');
  await expect(page.getByTestId('usage-projected')).toHaveText(`$${String(usage.body?.projected_total_usd)}`);
  // The plan changed in this cycle: the fee is prorated over both plans, so the page does not present Pro's list fee as the total's fee.
  await expect(page.getByTestId('usage-summary')).toContainText(
    `Monthly fees prorated by days on each plan + $${String(usage.body?.overage_cost_usd)} overage`,
  );
  // The cycle lives in the URL: picking a month writes ?cycle=, and such a URL opens that cycle
  // (the month before this tenant registered has none: the API's message is shown).
  const cycle = String(usage.body?.cycle);
  const [year, month] = cycle.split('-').map(Number) as [number, number];
  const before = month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
  await page.getByLabel('Billing cycle').fill(before);
  await page.waitForURL((url) => url.searchParams.get('cycle') === before);
  await expect(page.getByText(`there is no usage for ${before}`)).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Billing cycle')).toHaveValue(before);
  await expect(page.getByText(`there is no usage for ${before}`)).toBeVisible();
  // An empty state, not a failure: no "Try again", a way back to the current cycle.
  await expect(page.getByText(`No usage for ${before}`, { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Show the current cycle' }).click();
  await page.waitForURL((url) => !url.searchParams.has('cycle'));
  await expect(page.getByTestId('usage-executions')).toHaveText('2');
  await page.goto(`/dashboard/usage?cycle=${cycle}`);
  await expect(page.getByRole('heading', { name: new RegExp(`^Cycle ${cycle}`) })).toBeVisible();
  await page.goto('/dashboard/usage');
  await expect(page.getByTestId('usage-projected')).toHaveText(`$${String(usage.body?.projected_total_usd)}`);
  await expect(comparison.getByRole('columnheader', { name: /pro/i })).toContainText('Current plan');
  await expect(page.getByLabel('New plan').locator('option[value="free"]')).toHaveText(`Free · $${plans[0]!.monthly_fee_usd} / month`);
  // The confirmation toast has gone (sonner's rich success colours fail axe's contrast check; the result stays on the page).
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0, { timeout: 20_000 });
  await check(page, 'usage-pro');

  // A downgrade asks first and says what it suspends.
  await page.getByLabel('New plan').selectOption('free');
  await page.getByRole('button', { name: 'Downgrade to free' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Downgrade to free?' });
  await expect(confirm).toContainText('only your primary key works');
  await confirm.getByRole('button', { name: 'Cancel' }).click();

  // No invoice yet; then an operator closes the cycle (as the hourly job does at its end).
  await page.goto('/dashboard/invoices');
  await expect(page.getByText('No invoices yet')).toBeVisible();
  await check(page, 'invoices-empty');
  const closed = await page.request.post('/api/v1/admin/billing/close', {
    headers: { 'x-admin-token': E2E_ADMIN_TOKEN, 'content-type': 'application/json' },
    data: JSON.stringify({ at: usage.body?.cycle_end }),
  });
  expect(closed.status()).toBe(200);
  const invoices = (await api(page, apiKey, 'GET', '/api/v1/billing/invoices')).body?.data as {
    id: string;
    number: string;
    total_usd: string;
  }[];
  expect(invoices).toHaveLength(1);
  const invoice = invoices[0]!;

  // The invoiced cycle's usage links to its invoice.
  await page.goto(`/dashboard/usage?cycle=${cycle}`);
  await expect(page.getByRole('link', { name: `invoice ${invoice.number}` })).toBeVisible();
  await page.goto('/dashboard/invoices');
  await expect(page.getByRole('link', { name: invoice.number })).toBeVisible();
  await check(page, 'invoices');
  await page.getByRole('link', { name: invoice.number }).click();
  await page.waitForURL(`**/dashboard/invoices/${invoice.id}`);
  await expect(page.getByRole('heading', { level: 1, name: `Invoice ${invoice.number}` })).toBeVisible();
  await expect(page.getByTestId('invoice-total')).toHaveText(`$${invoice.total_usd}`);
  await expect(page.getByTestId('invoice-fields')).toContainText('Open: due ');
  await check(page, 'invoice');

  // Printed: the navigation and header are left out, the invoice stays.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('navigation', { name: 'Dashboard' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Download PDF' })).toBeHidden();
  await expect(page.getByTestId('invoice-lines')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('invoice-print.png'), fullPage: true });
  await page.emulateMedia({ media: 'screen' });

  // The PDF over the session cookie (no API key in the browser).
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download PDF' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`${invoice.number}.pdf`);
  const pdf = readFileSync((await file.path())!);
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  // The page and the PDF say the same, field by field, line by line; in words a person reads:
  // the workspace's name and the owner's email (not an id), dates written out, terms, status.
  const pdfText = (await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true })).text.replace(/\s+/g, ' ');
  const fields = page.getByTestId('invoice-fields');
  const labels = await fields.locator('dt').allTextContents();
  const values = await fields.locator('dd').allTextContents();
  expect(labels).toEqual([
    'Invoice number',
    'Billed to',
    'Email',
    'Account ID',
    'Billing period',
    'Issued',
    'Payment terms',
    'Due',
    'Status',
  ]);
  const field = (label: string) => values[labels.indexOf(label)];
  expect(field('Invoice number')).toBe(invoice.number);
  expect(field('Billed to')).toBe('Billing Agent');
  expect(field('Email')).toBe(owner.email);
  expect(field('Payment terms')).toBe('Net 14 (due 14 days after the issue date)');
  expect(field('Due')).toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}$/);
  expect(field('Status')).toBe(`Open: due ${field('Due')}`);
  for (const value of values) expect(value).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  labels.forEach((label, i) => expect(pdfText).toContain(`${label} ${values[i]}`));
  const status = await page.getByTestId('invoice-status').textContent();
  expect(status).toBe('Open');
  expect(pdfText).toContain(`Agent Module Platform ${status}`);
  // Each line's four columns as the page shows them at 1280 px, in the PDF in the same order.
  const rows = page.getByTestId('invoice-lines').locator('tbody tr');
  const lines: string[] = [];
  for (const row of await rows.all()) {
    const cells = row.locator('td');
    const description = await cells.nth(0).innerText();
    const quantity = await cells.nth(1).innerText();
    const unitPrice = await cells.nth(2).innerText();
    const amount = await cells.nth(3).innerText();
    lines.push(description);
    expect(pdfText).toContain(`${description} ${quantity} ${unitPrice} ${amount}`);
  }
  // The two executions ran within the free quota: a line at 0.00, on both.
  expect(lines).toContain('Executions included in the plan: 2');
  for (const label of ['Subtotal', 'Tax', 'Total (USD)']) {
    const total = page.getByTestId('invoice-lines').locator('tfoot tr').filter({ hasText: label });
    expect(pdfText).toContain(`${label} ${(await total.locator('td').innerText()).trim()}`);
  }
  expect(pdfText).toContain(`Total (USD) $${invoice.total_usd}`);
  expect(pdfText).not.toMatch(/\d{4}-\d{2}-\d{2}T/);

  // Another tenant: the invoice is not found by URL.
  const other = await newOwner(browser, { agentName: 'Other Billing Agent' });
  await other.page.goto(`/dashboard/invoices/${invoice.id}`);
  await expect(other.page.getByText('Invoice not found')).toBeVisible();

  // The invoice's page, timed as the page-load spec times every other page (only a closed cycle has
  // one); printed and attached to the report.
  const timing = timingTable([
    await timePage(browser, await page.context().storageState(), `/dashboard/invoices/${invoice.id}`, '/dashboard/invoices/{invoice}'),
  ]);
  console.log(`\nInvoice page load (${RUNS} runs, ${new Date().toISOString()}):\n${timing}\n`);
  await test.info().attach('page-load-timings', { body: timing, contentType: 'text/markdown' });
});
