/**
 * V8 flags for the test run's own processes: vitest's workers, and every service or script a test
 * starts and throws away (docs/testing.md, Rules). `--liftoff-only` keeps WebAssembly (PGlite's
 * PostgreSQL) on V8's baseline compiler. A process that lives seconds spends more CPU optimising
 * PGlite's hot functions in background threads (Turboshaft, loop unrolling most of it) than the
 * optimised code gives back; a vitest worker, which runs many servers' short bursts of queries,
 * comes out even or ahead. It changes how fast code runs, never what it does.
 * `npm start`, the bench and the browser tests' shared service keep the optimising tier, which a
 * long-lived service earns back.
 */
export const SHORT_LIVED_FLAGS = ['--liftoff-only'];
