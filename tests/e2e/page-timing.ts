/**
 * How tests/e2e/page-load.spec.ts times a page (docs/dashboard.md, Page-load timings), shared with
 * the specs that time a page only they can reach (an invoice's, in billing.spec.ts).
 */
import type { Browser, BrowserContextOptions, Page } from '@playwright/test';

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

/**
 * Installed in every document before its own scripts: on each animation frame (from the first
 * one, before the first paint), whether the page's main region is there with no loading skeleton
 * left; the first such frame's time is kept. Data that comes with the first HTML is then counted
 * from the frame that first paints it, not from when the test asked.
 */
export function recordDataShown(): void {
  const w = window as unknown as { __dataShown?: number };
  const look = () => {
    const main = document.querySelector('main');
    if (main && !main.querySelector('.animate-pulse')) w.__dataShown = performance.now();
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}

/**
 * One visit. `settle`: afterwards, wait until the page has made no request for half a second (at
 * most 2 s; a page that polls never stops), counting the tRPC requests made until then too, so a
 * request sent after the data showed (a badge, a later section) is counted.
 */
export async function measure(page: Page, url: string, settle = false): Promise<Timing> {
  const apiCalls: string[] = [];
  const countCall = (r: { url(): string }) => {
    if (new URL(r.url()).pathname.startsWith('/api/trpc/')) apiCalls.push(r.url());
  };
  page.on('request', countCall);
  await page.goto(url, { waitUntil: 'load' });
  // A page still showing a skeleton after a minute is reported as such (-1), not failed: this
  // spec measures.
  const dataShown = await page
    .waitForFunction(() => (window as unknown as { __dataShown?: number }).__dataShown ?? false, null, { timeout: 60_000 })
    .then((handle) => handle.jsonValue() as Promise<number>)
    .catch(() => Number.NaN);
  if (settle) await page.waitForLoadState('networkidle', { timeout: 2_000 }).catch(() => undefined);
  page.off('request', countCall);
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

/**
 * Runs per page: each a cold visit (a fresh browser context) and a warm one (the same page again,
 * its files cached). One in the test suite, which checks that every page loads; five to measure
 * (`npm run bench:pages`), for a median and a p95 worth reading.
 */
export const RUNS = Number(process.env.E2E_PAGE_LOAD_RUNS ?? 1);

/** The nearest-rank percentile of `values` (p95 of 5 runs is the slowest). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const median = (values: number[]) => percentile(values, 50);

/**
 * `url` visited RUNS times cold (a fresh browser context with `storageState`) and warm (the same
 * page again once the first visit has settled, as a person comes back to a page, not within
 * milliseconds): a row of the timing table, named `label`.
 */
export async function timePage(
  browser: Browser,
  storageState: BrowserContextOptions['storageState'],
  url: string,
  label = url,
): Promise<string> {
  const cold: Timing[] = [];
  const warm: Timing[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, storageState, viewport: { width: 1280, height: 900 } });
    await context.addInitScript(recordDataShown);
    const page = await context.newPage();
    cold.push(await measure(page, url, true));
    warm.push(await measure(page, url));
    await context.close();
  }
  // -1: a loading skeleton was still there after a minute.
  const shown = (timings: Timing[]) => timings.map((t) => t.dataShown);
  return (
    `| ${label} | ${median(shown(cold))} | ${percentile(shown(cold), 95)} | ${median(shown(warm))} | ${percentile(shown(warm), 95)} | ` +
    `${median(cold.map((t) => t.ttfb))} | ${median(cold.map((t) => t.domContentLoaded))} | ${cold[0]!.jsKb} | ${cold[0]!.jsFiles} | ${cold[0]!.apiCalls} |`
  );
}

/** The rows of timePage as a Markdown table. */
export function timingTable(rows: string[]): string {
  return [
    `| page | data shown, cold: median ms | cold p95 | warm: median ms | warm p95 | TTFB ms (cold median) | DOMContentLoaded ms (cold median) | JS KB (transferred, cold) | JS files | tRPC requests (cold) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
