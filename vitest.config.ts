import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './tests/sequencer';

/** When set, each run also writes its timings as JSON there (`npm run test:timings` reads them). */
const reportDir = process.env.TEST_REPORT_DIR;

export default defineConfig({
  // The `@/` alias of tsconfig.json (the dashboard's files, which some tests import).
  resolve: { tsconfigPaths: true },
  test: {
    include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker keeps its modules from one test file to the next instead of importing the service
    // again for each (a third less time for the suite). A test that needs modules in their first
    // state imports them after vi.resetModules() (src/modules/packs.test.ts).
    isolate: false,
    fileParallelism: true,
    // The slowest files first, from their recorded durations (tests/sequencer.ts): on a clean clone
    // vitest would order them by size.
    sequence: { sequencer: SlowestFirstSequencer },
    // Measured on the 2-core reference machine (docs/testing.md): two workers left it a third
    // idle (tests wait on servers, receivers and databases); three keep it busy.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    reporters: reportDir ? ['default', ['json', { outputFile: path.join(reportDir, 'vitest.json') }]] : ['default'],
  },
});
