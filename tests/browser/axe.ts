/**
 * axe-core's verdict on the page as it is now, run in the page itself. Its source (550 KB) is put
 * into a document once and kept until the page navigates; @axe-core/playwright evaluated it twice
 * for every run, which took three quarters of a run (a light check of the keys page: 560–880 ms
 * that way, 200–250 ms in the page). The dashboard has no frames: the main frame is the page.
 */
import type { Page } from '@playwright/test';
import axe from 'axe-core';

/** WCAG 2.1 A and AA: what every page is checked against. */
export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface AxeScope {
  /** Rules of these tags (WCAG_21_AA), or `rules` by id. */
  tags?: string[];
  rules?: string[];
  /** Selectors of markup left out (third-party markup a page embeds). */
  exclude?: string[];
}

/** The serious and critical violations, one line each: `rule: help (selectors)`. */
export async function seriousViolations(page: Page, scope: AxeScope): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(
    async ({ tags, rules, exclude }) => {
      const inPage = (window as unknown as { axe: typeof axe }).axe;
      const result = await inPage.run(exclude.length > 0 ? { exclude } : document, {
        resultTypes: ['violations'],
        runOnly: rules ? { type: 'rule', values: rules } : { type: 'tag', values: tags ?? [] },
      });
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
    },
    { tags: scope.tags, rules: scope.rules, exclude: scope.exclude ?? [] },
  );
}
