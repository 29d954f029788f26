import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { TEST_V8_FLAGS } from './tests/v8-flags';

/** When set, each run also writes its timings as JSON there (`npm run test:timings` reads them). */
const reportDir = process.env.TEST_REPORT_DIR;

/**
 * The order vitest starts test files in: the slowest first, so that the last files to finish
 * are short ones and the workers end together. vitest does this itself from its cache of the
 * previous run, but a clean clone (CI) has none and falls back to ordering by file size, which
 * started the slowest files (workflow runs, recovery, backups) halfway through the run. Their
 * durations are kept in tests/durations.json (seconds per file, from a whole run:
 * `npm run test:timings -- <vitest.json> --save-durations`); a file's own result in the local cache
 * wins over it, and a file in neither (a new one) starts first, as vitest starts unknown files.
 */
const DURATIONS_FILE = path.resolve(import.meta.dirname, 'tests', 'durations.json');

function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = recordedDurations();
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number | undefined => {
      const cached = this.ctx.cache.getTestSpecificationResult(spec);
      if (cached) return cached.duration / 1000;
      return recorded[path.relative(root, spec.moduleId).split(path.sep).join('/')];
    };
    return [...files].sort((a, b) => {
      const [da, db] = [seconds(a), seconds(b)];
      if (da === undefined || db === undefined) return da === undefined ? (db === undefined ? 0 : -1) : 1;
      return db - da;
    });
  }
}

export default defineConfig({
  // The `@/` alias of tsconfig.json (the dashboard's files, which some tests import).
  resolve: { tsconfigPaths: true },
  test: {
    include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // WebAssembly on V8's baseline compiler (tests/v8-flags.ts): measured even or faster here.
    execArgv: TEST_V8_FLAGS,
    // A worker keeps its modules from one test file to the next instead of importing the service
    // again for each (a third less time for the suite). A test that needs modules in their first
    // state imports them after vi.resetModules() (src/modules/packs.test.ts).
    isolate: false,
    fileParallelism: true,
    // The slowest files first, from their recorded durations (SlowestFirstSequencer above): on a
    // clean clone vitest would order them by size.
    sequence: { sequencer: SlowestFirstSequencer },
    // Measured on the 2-core reference machine (docs/testing.md): two workers left it a third
    // idle (tests wait on servers, receivers and databases); three keep it busy.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    reporters: reportDir ? ['default', ['json', { outputFile: path.join(reportDir, 'vitest.json') }]] : ['default'],
  },
});
