/**
 * The dashboard's end-to-end tests (`npx playwright test`, run by `npm test` after vitest):
 * Playwright's own runner driving Debian's Chromium (no browser download). The global setup
 * builds Next when stale, starts a local SMTP drop and the real service (server.ts + Next,
 * embedded database), and passes their addresses to the tests through the environment.
 * Two workers (E2E_WORKERS to change it) share that one service and one build; every test makes
 * its own accounts and tenants, so no test sees another's data. Tests of one file run in order.
 */
import { defineConfig } from '@playwright/test';
import path from 'node:path';
import { CHROMIUM } from './tests/needs';

const outputDir = process.env.E2E_OUTPUT_DIR ?? 'test-results/e2e';
/** When set, the run's timings are also written there as JSON (`npm run test:timings` reads them). */
const reportDir = process.env.TEST_REPORT_DIR;

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  outputDir,
  globalSetup: './tests/e2e/global-setup.ts',
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: `${outputDir}-report` }],
    ...(reportDir ? [['json', { outputFile: path.join(reportDir, 'playwright.json') }] as const] : []),
  ],
  use: {
    baseURL: process.env.E2E_BASE_URL,
    viewport: { width: 1280, height: 900 },
    actionTimeout: 30_000,
    navigationTimeout: 60_000,
    // E2E_TRACE=off (`npm test` and CI, where nobody opens a trace) records none: recording costs a third of the run.
    trace: process.env.E2E_TRACE === 'off' ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
});
