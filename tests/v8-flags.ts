/**
 * V8 flags for the test run's own processes: vitest's workers, every service a test starts
 * (the browser tests' shared one included) and the scripts tests run (docs/testing.md, Rules).
 * `--liftoff-only` keeps WebAssembly (PGlite's PostgreSQL) on V8's baseline compiler. A process
 * that lives seconds spends more CPU optimising PGlite's hot functions in background threads
 * (Turboshaft, loop unrolling most of it) than the optimised code gives back, and the longer-lived
 * ones here (a vitest worker, the Playwright run's service) came out even or ahead when measured.
 * It changes how fast code runs, never what it does. `npm start` and the bench keep the optimising
 * tier, which a service under sustained load earns back.
 */
export const TEST_V8_FLAGS = ['--liftoff-only'];
