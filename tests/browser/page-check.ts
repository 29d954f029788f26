import type { Page } from '@playwright/test';
import path from 'node:path';
import { expect } from 'vitest';
import { seriousViolations, WCAG_21_AA } from './axe';

/** Where the browser tests' screenshots land, to be looked at. */
export const SCREENSHOTS = '/tmp/amp-browser-screenshots';

/** A screenshot to look at, and axe-core's verdict: no serious or critical violation. */
export async function check(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  expect(await seriousViolations(page, { tags: WCAG_21_AA }), name).toEqual([]);
}
