/**
 * `npm run test:timings -- <vitest.json> [<playwright.json>]` (either, or both): the slowest test files and tests of
 * a run, from vitest's JSON reporter (`--reporter=json --outputFile.json=…`) and Playwright's
 * (`PLAYWRIGHT_JSON_OUTPUT_NAME=… --reporter=json`). Last, every failed test with the start of its error.
 * docs/testing.md says how to record a run.
 * `--save-durations`: also writes the vitest files' durations to tests/durations.json, the order
 * vitest.config.ts starts them in (from a whole run on both backends).
 *
 *   TIMINGS_TOP=20   how many files and tests to list (20)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface VitestReport {
  startTime: number;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: {
    name: string;
    startTime: number;
    endTime: number;
    status?: string;
    message?: string;
    assertionResults: { fullName: string; duration?: number | null; status: string; failureMessages?: string[] }[];
  }[];
}

interface PlaywrightStep {
  title: string;
  duration: number;
  steps?: PlaywrightStep[];
}

interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: {
    title: string;
    tests: {
      status: string;
      results: { duration: number; status: string; steps?: PlaywrightStep[]; errors?: { message?: string }[] }[];
    }[];
  }[];
  suites?: PlaywrightSuite[];
}

interface PlaywrightReport {
  suites: PlaywrightSuite[];
  stats: { duration: number; expected: number; unexpected: number; skipped: number; flaky: number };
}

const TOP = Number(process.env.TIMINGS_TOP ?? 20);
const DURATIONS_FILE = path.resolve(import.meta.dirname, '..', 'tests', 'durations.json');
/** Paths are shown relative to where the script runs (the checkout the report came from). */
const root = process.cwd();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function vitestSection(report: VitestReport): string {
  const files = report.testResults.map((r) => ({
    file: path.relative(root, r.name),
    ms: r.endTime - r.startTime,
    tests: r.assertionResults.length,
    testMs: r.assertionResults.reduce((sum, t) => sum + (t.duration ?? 0), 0),
  }));
  const wall = Math.max(...report.testResults.map((r) => r.endTime)) - report.startTime;
  const busy = files.reduce((sum, f) => sum + f.ms, 0);
  const tests = report.testResults.flatMap((r) =>
    r.assertionResults.map((t) => ({ file: path.relative(root, r.name), name: t.fullName, ms: t.duration ?? 0 })),
  );
  files.sort((a, b) => b.ms - a.ms);
  tests.sort((a, b) => b.ms - a.ms);
  return [
    `## vitest: ${report.numTotalTests} tests in ${files.length} files, ${seconds(wall)} wall, ${seconds(busy)} of file time`,
    `passed ${report.numPassedTests}, failed ${report.numFailedTests}, skipped ${report.numPendingTests}`,
    '',
    `### Slowest ${TOP} files (file time includes its hooks: server start-ups, database set-up)`,
    table(
      ['file', 'file time', 'tests', 'in tests', 'in hooks'],
      files.slice(0, TOP).map((f) => [f.file, seconds(f.ms), String(f.tests), seconds(f.testMs), seconds(Math.max(0, f.ms - f.testMs))]),
    ),
    '',
    `### Slowest ${TOP} tests`,
    table(
      ['test', 'file', 'time'],
      tests.slice(0, TOP).map((t) => [t.name.replace(/\|/g, '\\|'), t.file, seconds(t.ms)]),
    ),
  ].join('\n');
}

type PlaywrightTest = NonNullable<PlaywrightSuite['specs']>[number]['tests'][number];

/** Every test of a Playwright report, with its spec file and title. */
function playwrightTests(report: PlaywrightReport): { file: string; title: string; test: PlaywrightTest }[] {
  const found: { file: string; title: string; test: PlaywrightTest }[] = [];
  const walk = (suite: PlaywrightSuite, file: string) => {
    for (const spec of suite.specs ?? []) for (const test of spec.tests) found.push({ file, title: spec.title, test });
    for (const child of suite.suites ?? []) walk(child, suite.file ?? file);
  };
  for (const suite of report.suites) walk(suite, suite.file ?? suite.title);
  return found;
}

function playwrightSection(report: PlaywrightReport): string {
  const tests = playwrightTests(report).map(({ file, title, test }) => {
    const checks = test.results.flatMap((r) => pageChecks(r.steps ?? []));
    return {
      file,
      name: title,
      ms: test.results.reduce((sum, r) => sum + r.duration, 0),
      checks: checks.length,
      checkMs: checks.reduce((sum, step) => sum + step.duration, 0),
    };
  });
  tests.sort((a, b) => b.ms - a.ms);
  const total = tests.reduce((sum, t) => sum + t.ms, 0);
  const checkTotal = tests.reduce((sum, t) => sum + t.checkMs, 0);
  const checkCount = tests.reduce((sum, t) => sum + t.checks, 0);
  const { stats } = report;
  return [
    `## Playwright: ${tests.length} tests, ${seconds(stats.duration)} wall (setup included), ${seconds(total)} in tests`,
    `passed ${stats.expected}, failed ${stats.unexpected}, flaky ${stats.flaky}, skipped ${stats.skipped}`,
    `page checks (check(): axe, screenshots, words): ${checkCount}, ${seconds(checkTotal)} of the tests' time`,
    '',
    table(
      ['test', 'file', 'time', 'checks', 'in checks'],
      tests.slice(0, TOP).map((t) => [t.name.replace(/\|/g, '\\|'), t.file, seconds(t.ms), String(t.checks), seconds(t.checkMs)]),
    ),
  ].join('\n');
}

interface Failure {
  file: string;
  name: string;
  message: string;
}

/** A failure's message without colour codes, cut to its first lines (the rest is in the run's own output). */
function excerpt(message: string, lines = 12): string {
  // eslint-disable-next-line no-control-regex
  const plain = message.replace(/\u001b\[[0-9;]*m/g, '').trim();
  const kept = plain.split('\n').slice(0, lines);
  return kept.map((line) => `    ${line}`).join('\n');
}

function vitestFailures(report: VitestReport): Failure[] {
  return report.testResults.flatMap((r) => {
    const file = path.relative(root, r.name);
    const failed = r.assertionResults
      .filter((t) => t.status === 'failed')
      .map((t) => ({ file, name: t.fullName, message: (t.failureMessages ?? []).join('\n') }));
    // A file can fail outside its tests (an import, a hook), with no failed test to show it.
    if (failed.length === 0 && r.status === 'failed') return [{ file, name: '(the file itself)', message: r.message ?? '' }];
    return failed;
  });
}

function playwrightFailures(report: PlaywrightReport): Failure[] {
  return playwrightTests(report)
    .filter(({ test }) => test.status === 'unexpected' || test.status === 'flaky')
    .map(({ file, title, test }) => ({
      file,
      name: test.status === 'flaky' ? `${title} (flaky: passed on a retry)` : title,
      message: test.results
        .flatMap((r, attempt) => (r.errors ?? []).map((e) => `attempt ${attempt + 1} (${r.status}): ${e.message ?? ''}`))
        .join('\n'),
    }));
}

/** Every failed test of the reports, last, so the end of a CI log names them. */
function failuresSection(failures: Failure[]): string {
  return [`## Failed tests: ${failures.length}`, ...failures.map((f) => `- ${f.file}: ${f.name}\n${excerpt(f.message)}`)].join('\n');
}

/** The steps of `check()` (tests/e2e/support.ts titles them `check <name>`), outermost only. */
function pageChecks(steps: PlaywrightStep[]): PlaywrightStep[] {
  return steps.flatMap((step) => (step.title.startsWith('check ') ? [step] : pageChecks(step.steps ?? [])));
}

/** tests/durations.json: each vitest file's wall time in this run, in seconds (vitest.config.ts starts the slowest first). */
function saveDurations(report: VitestReport): void {
  const durations = Object.fromEntries(
    report.testResults
      .map((r) => [path.relative(root, r.name).split(path.sep).join('/'), Math.round((r.endTime - r.startTime) / 100) / 10] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(durations, null, 2)}\n`);
  console.log(`${Object.keys(durations).length} file durations written to ${path.relative(root, DURATIONS_FILE)}`);
}

const args = process.argv.slice(2);
const save = args.includes('--save-durations');
const files = args.filter((a) => a !== '--save-durations');
if (files.length === 0) {
  console.error('usage: npm run test:timings -- <vitest.json> [<playwright.json>] [--save-durations] (either report, or both)');
  process.exit(2);
}
// Told apart by their contents: Playwright's report has `stats`, vitest's `testResults`.
const reports = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as VitestReport | PlaywrightReport);
const isPlaywright = (report: VitestReport | PlaywrightReport): report is PlaywrightReport => 'stats' in report;
const sections = reports.map((report) => (isPlaywright(report) ? playwrightSection(report) : vitestSection(report)));
const failures = reports.flatMap((report) => (isPlaywright(report) ? playwrightFailures(report) : vitestFailures(report)));
if (failures.length > 0) sections.push(failuresSection(failures));
console.log(sections.join('\n\n'));
if (save) {
  const vitestReport = reports.find((report): report is VitestReport => !isPlaywright(report));
  if (!vitestReport) {
    console.error('--save-durations needs the vitest report');
    process.exit(2);
  }
  saveDurations(vitestReport);
}
