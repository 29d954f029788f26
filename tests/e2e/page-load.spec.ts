/**
 * Page-load timings of the dashboard (docs/dashboard.md, Page-load timings): every dashboard page
 * that exists, visited E2E_PAGE_LOAD_RUNS times (1; 5 with `npm run bench:pages`) cold (a fresh browser context, signed in) and
 * warm (the same page again once the first visit has settled, its files cached): when the page's
 * data is shown (the first frame with the main region and no loading skeleton), the navigation
 * timing, the JavaScript transferred and the tRPC requests the browser made until the first visit
 * settled. Printed as a table (median and p95 of the data times) and attached to the report. No
 * assertion on the numbers: this machine is shared, they are for reading.
 */
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { RUNS, timePage, timingTable } from './page-timing';
import { api, expect, newOwner, test, TIMING_ADMIN_EMAIL } from './support';

const APP = path.resolve(import.meta.dirname, '..', '..', 'app');

/**
 * The dashboard's pages, measured when their page file exists; `operator`: visited by an operator.
 * An invoice's page is timed by tests/e2e/billing.spec.ts, which has one: an invoice needs a closed
 * billing cycle, and closing one here would close it for every tenant of the service the specs share.
 */
const PAGES: { url: string; file: string; operator?: true }[] = [
  { url: '/dashboard', file: '(dashboard)/dashboard/page.tsx' },
  { url: '/dashboard/keys', file: '(dashboard)/dashboard/keys/page.tsx' },
  { url: '/dashboard/webhooks', file: '(dashboard)/dashboard/webhooks/page.tsx' },
  { url: '/dashboard/webhooks/{webhook}', file: '(dashboard)/dashboard/webhooks/[id]/page.tsx' },
  { url: '/dashboard/webhooks/event-types', file: '(dashboard)/dashboard/webhooks/event-types/page.tsx' },
  { url: '/dashboard/modules', file: '(dashboard)/dashboard/modules/page.tsx' },
  { url: '/dashboard/modules/text', file: '(dashboard)/dashboard/modules/[name]/page.tsx' },
  { url: '/dashboard/modules/text/slugify', file: '(dashboard)/dashboard/modules/[name]/[action]/page.tsx' },
  { url: '/dashboard/executions', file: '(dashboard)/dashboard/executions/page.tsx' },
  { url: '/dashboard/executions/{execution}', file: '(dashboard)/dashboard/executions/[id]/page.tsx' },
  { url: '/dashboard/usage', file: '(dashboard)/dashboard/usage/page.tsx' },
  { url: '/dashboard/invoices', file: '(dashboard)/dashboard/invoices/page.tsx' },
  { url: '/dashboard/memory', file: '(dashboard)/dashboard/memory/page.tsx' },
  { url: '/dashboard/workflows', file: '(dashboard)/dashboard/workflows/page.tsx' },
  { url: '/dashboard/workflows/{workflow}', file: '(dashboard)/dashboard/workflows/[id]/page.tsx' },
  { url: '/dashboard/workflows/{workflow}/edit', file: '(dashboard)/dashboard/workflows/[id]/edit/page.tsx' },
  { url: '/dashboard/workflows/{workflow}/runs/{run}', file: '(dashboard)/dashboard/workflows/[id]/runs/[runId]/page.tsx' },
  { url: '/dashboard/workflows/new', file: '(dashboard)/dashboard/workflows/new/page.tsx' },
  { url: '/dashboard/members', file: '(dashboard)/dashboard/members/page.tsx' },
  { url: '/dashboard/audit-log', file: '(dashboard)/dashboard/audit-log/page.tsx' },
  { url: '/dashboard/admin', file: '(dashboard)/dashboard/admin/page.tsx', operator: true },
  { url: '/dashboard/admin/tenants/{tenant}', file: '(dashboard)/dashboard/admin/tenants/[id]/page.tsx', operator: true },
  { url: '/account', file: '(dashboard)/account/page.tsx' },
  { url: '/docs', file: 'docs/page.tsx' },
];

/** The webhook's receiver: answers every delivery with 200. */
const receiver = http.createServer((_req, res) => res.end('ok'));
let receiverUrl = '';
test.beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
test.afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

test('page-load timings of every dashboard page', async ({ browser }, testInfo) => {
  // A dozen pages, several visits each, on a shared machine.
  test.setTimeout(900_000);
  const owner = await newOwner(browser, { agentName: 'Timing Agent' });
  // Business: every page has its data (webhooks are not on Free), and its request limit (1,000 a
  // minute) is not what the visits measure (Free's 60 a minute would throttle them).
  expect((await api(owner.page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'business' })).status).toBe(200);
  const run = await api(owner.page, owner.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 'Timing' } });
  expect(run.status).toBe(200);
  // A webhook, a workflow and a finished run of it, for the pages that show one.
  const webhook = await api(owner.page, owner.apiKey, 'POST', '/api/v1/webhooks', { url: receiverUrl, events: ['execution.completed'] });
  expect(webhook.status).toBe(201);
  const workflow = await api(owner.page, owner.apiKey, 'POST', '/api/v1/workflows', {
    name: 'Timing workflow',
    steps: [{ id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } }],
  });
  expect(workflow.status).toBe(201);
  const started = await api(owner.page, owner.apiKey, 'POST', `/api/v1/workflows/${String(workflow.body?.id)}/runs`, {
    input: { title: 'Timing' },
  });
  expect(started.status).toBe(202);
  const operator = await newOwner(browser, { email: TIMING_ADMIN_EMAIL, agentName: 'Timing Operator' });
  // The operator's own tenant counts the admin pages' calls too: Business, as the owner's.
  expect((await api(operator.page, operator.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'business' })).status).toBe(200);
  const ids: Record<string, string> = {
    tenant: String((await api(owner.page, owner.apiKey, 'GET', '/api/v1/me')).body?.tenant_id),
    execution: String(run.body?.execution_id),
    webhook: String(webhook.body?.id),
    workflow: String(workflow.body?.id),
    run: String(started.body?.run_id),
  };
  const ownerState = await owner.page.context().storageState();
  const operatorState = await operator.page.context().storageState();
  const rows: string[] = [];
  for (const p of PAGES.filter((x) => existsSync(path.join(APP, x.file)))) {
    const url = p.url.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? name);
    rows.push(await timePage(browser, p.operator ? operatorState : ownerState, url, p.url));
  }
  const table = timingTable(rows);
  console.log(`\nDashboard page loads (${RUNS} runs per page, ${new Date().toISOString()}):\n${table}\n`);
  writeFileSync(testInfo.outputPath('page-load-timings.md'), `${table}\n`);
  await testInfo.attach('page-load-timings', { body: table, contentType: 'text/markdown' });
  expect(rows.length).toBeGreaterThan(0);
});
