/**
 * Page-load timings of the dashboard (docs/dashboard.md, Page-load timings): every dashboard page
 * that exists, each in a fresh browser context (cold cache, signed in), with the navigation timing, the time until the page's data is shown (no
 * loading skeleton left) and the JavaScript transferred. Printed as a table and attached to the
 * report. No assertion on the numbers: this machine is shared, they are for reading.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { api, expect, newOwner, test } from './support';

const APP = path.resolve(import.meta.dirname, '..', '..', 'app');

/** The dashboard's pages, measured when their page file exists. */
const PAGES = [
  { url: '/dashboard', file: '(dashboard)/dashboard/page.tsx' },
  { url: '/dashboard/keys', file: '(dashboard)/dashboard/keys/page.tsx' },
  { url: '/dashboard/webhooks', file: '(dashboard)/dashboard/webhooks/page.tsx' },
  { url: '/dashboard/modules', file: '(dashboard)/dashboard/modules/page.tsx' },
  { url: '/dashboard/modules/text', file: '(dashboard)/dashboard/modules/[name]/page.tsx' },
  { url: '/dashboard/executions', file: '(dashboard)/dashboard/executions/page.tsx' },
  { url: '/dashboard/executions/{execution}', file: '(dashboard)/dashboard/executions/[id]/page.tsx' },
  { url: '/dashboard/usage', file: '(dashboard)/dashboard/usage/page.tsx' },
  { url: '/dashboard/invoices', file: '(dashboard)/dashboard/invoices/page.tsx' },
  { url: '/dashboard/memory', file: '(dashboard)/dashboard/memory/page.tsx' },
  { url: '/dashboard/workflows', file: '(dashboard)/dashboard/workflows/page.tsx' },
  { url: '/account', file: '(dashboard)/account/page.tsx' },
  { url: '/docs', file: 'docs/page.tsx' },
];

interface Timing {
  page: string;
  ttfb: number;
  domContentLoaded: number;
  load: number;
  dataShown: number;
  jsKb: number;
  jsFiles: number;
  apiCalls: number;
}

async function measure(page: Page, url: string): Promise<Timing> {
  const apiCalls: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/trpc/')) apiCalls.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  // The page's data is shown: no loading skeleton left in the main region, checked in the page
  // on every animation frame so the moment is exact. (A page still showing a skeleton after a
  // minute is reported as such, not failed: this spec measures.)
  const dataShown = await page
    .waitForFunction(() => (document.querySelectorAll('main .animate-pulse').length === 0 ? performance.now() : false), null, {
      polling: 'raf',
      timeout: 60_000,
    })
    .then((handle) => handle.jsonValue() as Promise<number>)
    .catch(() => Number.NaN);
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
      (r) => r.initiatorType === 'script' || /\.m?js(\?|$)/.test(r.name),
    );
    return {
      ttfb: n.responseStart - n.startTime,
      domContentLoaded: n.domContentLoadedEventEnd - n.startTime,
      load: n.loadEventEnd - n.startTime,
      jsBytes: scripts.reduce((sum, r) => sum + (r.transferSize || r.encodedBodySize), 0),
      jsFiles: scripts.length,
    };
  });
  return {
    page: url,
    ttfb: Math.round(nav.ttfb),
    domContentLoaded: Math.round(nav.domContentLoaded),
    load: Math.round(nav.load),
    dataShown: Number.isNaN(dataShown) ? -1 : Math.round(dataShown),
    jsKb: Math.round(nav.jsBytes / 1024),
    jsFiles: nav.jsFiles,
    apiCalls: apiCalls.length,
  };
}

test('page-load timings of every dashboard page', async ({ browser }, testInfo) => {
  // A dozen pages, each in a fresh context, on a shared machine.
  test.setTimeout(900_000);
  const owner = await newOwner(browser, { agentName: 'Timing Agent' });
  const run = await api(owner.page, owner.apiKey, 'POST', '/api/v1/modules/text/execute', { action: 'slugify', input: { text: 'Timing' } });
  expect(run.status).toBe(200);
  const state = await owner.page.context().storageState();
  const rows: Timing[] = [];
  for (const p of PAGES.filter((x) => existsSync(path.join(APP, x.file)))) {
    // A fresh context per page: a cold cache, as a first visit.
    const context = await browser.newContext({
      baseURL: process.env.E2E_BASE_URL,
      storageState: state,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    rows.push(await measure(page, p.url.replace('{execution}', String(run.body?.execution_id))));
    await context.close();
  }
  // "data shown" -1: a loading skeleton was still there after a minute.
  const header = '| page | TTFB ms | DOMContentLoaded ms | load ms | data shown ms | JS KB (transferred) | JS files | tRPC requests |';
  const table = [
    header,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) => `| ${r.page} | ${r.ttfb} | ${r.domContentLoaded} | ${r.load} | ${r.dataShown} | ${r.jsKb} | ${r.jsFiles} | ${r.apiCalls} |`,
    ),
  ].join('\n');
  console.log(`\nDashboard page loads (cold cache, ${new Date().toISOString()}):\n${table}\n`);
  writeFileSync(testInfo.outputPath('page-load-timings.md'), `${table}\n`);
  await testInfo.attach('page-load-timings', { body: table, contentType: 'text/markdown' });
  expect(rows.length).toBeGreaterThan(0);
});
