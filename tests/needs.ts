/**
 * What the tests that need PostgreSQL, Redis or Chromium find on this machine (docs/decisions.md,
 * Start-up and tests).
 * Those tests run when their service is there and are reported as *skipped* otherwise
 * (`describe.skipIf(missing.redis !== undefined)`, `backends.describe`), never as passing no-op
 * tests; tests/global-setup.ts prints one line saying why. No vitest import: the global setup
 * reads this outside the test workers.
 */
import { existsSync } from 'node:fs';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
/**
 * Each test worker on a Redis database of its own (its pool id's), when the URL names none: the
 * key cache's auth version is one key for the whole deployment, so a revocation in one file's
 * test would otherwise make another file's instances read their keys afresh mid-test.
 */
export const TEST_REDIS_URL = perWorkerDatabase(process.env.TEST_REDIS_URL, process.env.VITEST_POOL_ID);

function perWorkerDatabase(url: string | undefined, poolId: string | undefined): string | undefined {
  if (!url || !poolId) return url;
  const parsed = new URL(url);
  if (parsed.pathname !== '' && parsed.pathname !== '/') return url;
  parsed.pathname = `/${Number(poolId) % 16}`;
  return parsed.toString();
}
/**
 * The Chromium the browser tests drive, from Debian (CI installs it; no browser downloads): its
 * headless shell (package chromium-headless-shell) when installed, as Playwright's own headless
 * Chromium is, else the whole browser in its headless mode. The same Blink and V8 without the
 * browser's UI behind the page: the Playwright suite took 9.9 min instead of 13.5, its Chromium
 * 849 s of CPU instead of 1,252 (docs/testing.md).
 */
export const CHROMIUM = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((file) => existsSync(file)) ?? '/usr/bin/chromium';

/** For each need, why it is missing here, or undefined when it is there. */
export const missing = {
  postgres: TEST_DATABASE_URL ? undefined : 'TEST_DATABASE_URL is not set',
  redis: TEST_REDIS_URL ? undefined : 'TEST_REDIS_URL is not set',
  chromium: existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed`,
};

/** The one line the test run prints about what it reports as skipped, or undefined. */
export function skippedLine(): string | undefined {
  const reasons = [
    missing.postgres && `${missing.postgres}: the PostgreSQL variants`,
    missing.redis && `${missing.redis}: the Redis tests`,
    missing.chromium && `${missing.chromium}: the browser tests`,
  ].filter(Boolean);
  return reasons.length ? `[tests] reported as skipped (CI runs them): ${reasons.join('; ')}.` : undefined;
}
